//! Just enough of RESP2, Redis's protocol, for one destination: commands
//! as arrays of bulk strings, and the replies they get. The connection
//! comes from the outbound guard; nothing here opens a socket.

use tokio::io::{AsyncBufRead, AsyncReadExt};

/// The longest reply line or bulk string read (an `XADD` answer is an id).
const MAX_REPLY: usize = 64 * 1024;

/// One reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    /// `-CODE message`: the server refused the command.
    Error(String),
    Integer(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

/// A command as RESP: `*<n>\r\n` then `$<len>\r\n<bytes>\r\n` per argument.
pub fn command(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + args.iter().map(|a| a.len() + 16).sum::<usize>());
    out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

pub use crate::broker::ReadError;
use crate::broker::{LineErrors, read_line};

async fn line<R: AsyncBufRead + Unpin + Send>(r: &mut R) -> Result<String, ReadError> {
    const ERRORS: LineErrors = LineErrors {
        no_crlf: "a reply line without CRLF",
        not_utf8: "a reply line that is not UTF-8",
    };
    read_line(r, MAX_REPLY, &ERRORS).await
}

fn number(s: &str) -> Result<i64, ReadError> {
    s.parse()
        .map_err(|_| ReadError::Protocol("a length or integer that is not a number"))
}

/// Reads one reply (arrays nest at most 4 deep).
pub async fn read<R: AsyncBufRead + Unpin + Send>(r: &mut R) -> Result<Reply, ReadError> {
    read_depth(r, 0).await
}

fn read_depth<'a, R: AsyncBufRead + Unpin + Send>(
    r: &'a mut R,
    depth: u8,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Reply, ReadError>> + Send + 'a>> {
    Box::pin(async move {
        let l = line(r).await?;
        let (tag, rest) = l.split_at(l.len().min(1));
        Ok(match tag {
            "+" => Reply::Simple(rest.to_string()),
            "-" => Reply::Error(rest.to_string()),
            ":" => Reply::Integer(number(rest)?),
            "$" => {
                let len = number(rest)?;
                if len < 0 {
                    return Ok(Reply::Bulk(None));
                }
                let len = usize::try_from(len).unwrap_or(usize::MAX);
                if len > MAX_REPLY {
                    return Err(ReadError::Protocol("a bulk reply larger than expected"));
                }
                let mut data = vec![0; len + 2];
                r.read_exact(&mut data).await?;
                if !data.ends_with(b"\r\n") {
                    return Err(ReadError::Protocol("a bulk reply without CRLF"));
                }
                data.truncate(len);
                Reply::Bulk(Some(data))
            }
            "*" => {
                let n = number(rest)?;
                if n < 0 {
                    return Ok(Reply::Array(None));
                }
                if depth >= 4 || n > 1024 {
                    return Err(ReadError::Protocol(
                        "an array reply deeper or longer than expected",
                    ));
                }
                let mut items = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    items.push(read_depth(r, depth + 1).await?);
                }
                Reply::Array(Some(items))
            }
            _ => return Err(ReadError::Protocol("an unknown reply type")),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn parse(bytes: &[u8]) -> Result<Reply, ReadError> {
        let mut r = tokio::io::BufReader::new(bytes);
        read(&mut r).await
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        assert_eq!(
            command(&[b"XADD", b"s", b"*", b"k", b"v\r\n"]),
            b"*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$1\r\nk\r\n$3\r\nv\r\n\r\n".to_vec()
        );
    }

    #[tokio::test]
    async fn replies() {
        assert_eq!(parse(b"+OK\r\n").await.unwrap(), Reply::Simple("OK".into()));
        assert_eq!(
            parse(b"-WRONGTYPE Operation against a key\r\n")
                .await
                .unwrap(),
            Reply::Error("WRONGTYPE Operation against a key".into())
        );
        assert_eq!(parse(b":42\r\n").await.unwrap(), Reply::Integer(42));
        assert_eq!(
            parse(b"$15\r\n1700000000000-0\r\n").await.unwrap(),
            Reply::Bulk(Some(b"1700000000000-0".to_vec()))
        );
        assert_eq!(parse(b"$-1\r\n").await.unwrap(), Reply::Bulk(None));
        assert_eq!(
            parse(b"*2\r\n:1\r\n$1\r\nx\r\n").await.unwrap(),
            Reply::Array(Some(vec![
                Reply::Integer(1),
                Reply::Bulk(Some(b"x".to_vec()))
            ]))
        );
        for bad in [
            &b"+OK\n"[..],
            b"?x\r\n",
            b"$5\r\nab\r\n",
            b"",
            b":x\r\n",
            b"$99999999\r\n",
        ] {
            assert!(parse(bad).await.is_err(), "{bad:?}");
        }
    }
}
