//! A TCP relay on loopback in front of the moto server, so the suite can
//! make the service hang (connections accepted and never answered) or go
//! down (the port closed, then open again on the same number). TLS passes
//! through untouched: Relay still verifies moto's certificate. Changing
//! the mode closes every connection it relays, as a server going down
//! does (Relay's pooled connections included).

use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// What the relay does with a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relaying {
    /// Relays it to the server.
    Through,
    /// Accepts it and never answers.
    Hang,
    /// Is not listening.
    Down,
}

pub struct Proxy {
    pub port: u16,
    upstream: u16,
    state: Arc<Mutex<Relaying>>,
    /// The accept loop, which owns the listener; empty while down.
    accept: Mutex<JoinSet<()>>,
    /// Every relayed connection's task.
    connections: Arc<Mutex<JoinSet<()>>>,
}

impl Proxy {
    /// Listening on a free loopback port, relaying to `upstream`.
    pub async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("a port");
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            upstream,
            state: Arc::new(Mutex::new(Relaying::Through)),
            accept: Mutex::new(JoinSet::new()),
            connections: Arc::new(Mutex::new(JoinSet::new())),
        };
        proxy.serve(listener);
        proxy
    }

    fn serve(&self, listener: TcpListener) {
        let (state, upstream) = (self.state.clone(), self.upstream);
        let connections = self.connections.clone();
        self.accept.lock().unwrap().spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let mode = *state.lock().unwrap();
                connections
                    .lock()
                    .unwrap()
                    .spawn(relay(client, upstream, mode));
            }
        });
    }

    /// Relays this way from now on; every open connection is closed first.
    pub async fn set(&self, mode: Relaying) {
        *self.state.lock().unwrap() = mode;
        let mut open = std::mem::take(&mut *self.connections.lock().unwrap());
        open.shutdown().await;
        let listening = !self.accept.lock().unwrap().is_empty();
        if mode == Relaying::Down {
            // The port closes once the loop (and its listener) is gone.
            let mut accept = std::mem::take(&mut *self.accept.lock().unwrap());
            accept.shutdown().await;
        } else if !listening {
            // The same port again (tokio sets SO_REUSEADDR).
            let listener = TcpListener::bind(("127.0.0.1", self.port))
                .await
                .unwrap_or_else(|e| panic!("port {} again: {e}", self.port));
            self.serve(listener);
        }
    }
}

async fn relay(mut client: TcpStream, upstream: u16, mode: Relaying) {
    match mode {
        Relaying::Through => {
            let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                return;
            };
            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        }
        // Held open, never read, until the mode changes.
        Relaying::Hang | Relaying::Down => {
            let _held = client;
            std::future::pending::<()>().await;
        }
    }
}
