//! One Redis connection: opened through the guard, authenticated and its
//! database selected, then commands written and their replies read, each
//! before the attempt's deadline.

use std::net::SocketAddr;

use crate::redis_stream::RedisStreamDestination;
use relay_core::secret::SecretValue;
use relay_net::{ErrorKind, Guard, Limits};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::time::{Instant, timeout_at};

use super::wire::{self, Reply};
use super::{Result, refused};
use crate::broker::{Link, failed, guard_failed, server_text};

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// An open connection, held by one attempt at a time.
pub(super) struct Conn {
    io: BufReader<Box<dyn Io>>,
    pub(super) addr: SocketAddr,
}

impl Link for Conn {
    fn share(&self) -> Option<Conn> {
        None
    }
}

impl Conn {
    /// Connects through the guard (TLS when configured), then `AUTH
    /// [username] password` when a password is configured and `SELECT`
    /// when a database is.
    pub(super) async fn open(
        guard: &Guard,
        c: &RedisStreamDestination,
        password: Option<&SecretValue>,
        deadline: Instant,
        limits: Limits,
    ) -> std::result::Result<Conn, Result> {
        let (io, addr): (Box<dyn Io>, SocketAddr) = if c.tls {
            let (s, addr) = guard
                .connect_tls(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(guard_failed::<Result>)?;
            (Box::new(s), addr)
        } else {
            let (s, addr) = guard
                .connect_checked(&c.host, c.port, limits.connect_timeout)
                .await
                .map_err(guard_failed::<Result>)?;
            (Box::new(s), addr)
        };
        let mut conn = Conn {
            io: BufReader::new(io),
            addr,
        };
        if let Some(password) = password {
            let mut args: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(user) = &c.username {
                args.push(user.as_bytes());
            }
            args.push(password.expose());
            match conn.exchange(&args, deadline).await? {
                Reply::Simple(_) => {}
                // A server's error line could quote what it was sent.
                Reply::Error(line) => return Err(refused(&server_text(&line, [password]), addr)),
                _ => {
                    return Err(failed(
                        ErrorKind::Protocol,
                        "unexpected reply to AUTH",
                        Some(addr),
                    ));
                }
            }
        }
        if let Some(db) = c.database {
            let db = db.to_string();
            match conn.exchange(&[b"SELECT", db.as_bytes()], deadline).await? {
                Reply::Simple(_) => {}
                Reply::Error(line) => return Err(refused(&line, addr)),
                _ => {
                    return Err(failed(
                        ErrorKind::Protocol,
                        "unexpected reply to SELECT",
                        Some(addr),
                    ));
                }
            }
        }
        Ok(conn)
    }

    /// Writes one command and reads its reply before `deadline`.
    async fn exchange(
        &mut self,
        args: &[&[u8]],
        deadline: Instant,
    ) -> std::result::Result<Reply, Result> {
        let mut replies = self.exchange_raw(&wire::command(args), 1, deadline).await?;
        Ok(replies.pop().unwrap_or(Reply::Bulk(None)))
    }

    /// Writes `out` (`n` commands, pipelined) and reads their `n` replies
    /// before `deadline`.
    pub(super) async fn exchange_raw(
        &mut self,
        out: &[u8],
        n: usize,
        deadline: Instant,
    ) -> std::result::Result<Vec<Reply>, Result> {
        let addr = Some(self.addr);
        let io = async {
            self.io.get_mut().write_all(out).await?;
            self.io.get_mut().flush().await?;
            let mut replies = Vec::with_capacity(n);
            for _ in 0..n {
                replies.push(wire::read(&mut self.io).await.map_err(|e| match e {
                    wire::ReadError::Io(e) => e,
                    other => std::io::Error::other(other.to_string()),
                })?);
            }
            Ok::<_, std::io::Error>(replies)
        };
        match timeout_at(deadline, io).await {
            Ok(Ok(replies)) => Ok(replies),
            Ok(Err(e)) => Err(failed(
                ErrorKind::Protocol,
                format!("connection: {e}"),
                addr,
            )),
            Err(_) => Err(failed(ErrorKind::Timeout, "the exchange timed out", addr)),
        }
    }
}
