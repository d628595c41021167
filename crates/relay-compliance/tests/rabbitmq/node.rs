//! A private `rabbitmq-server` for this test binary: its own node name,
//! ports, data and log directories, and no plugins, so tests can stop it,
//! pause it and start it again (the shared broker on 5672 is never
//! touched). One node serves the whole binary; [`lock`] hands it to one
//! test at a time. When the test process exits, a watchdog stops the node
//! and removes its directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_destinations::rabbitmq::conn::{Connection, Login};
use tokio::sync::{Mutex, OwnedMutexGuard};

const SERVER: &str = "/usr/lib/rabbitmq/bin/rabbitmq-server";
const CTL: &str = "/usr/lib/rabbitmq/bin/rabbitmqctl";

/// The user Relay logs in as.
pub const USER: &str = "relay";

pub struct Node {
    pub port: u16,
    /// The password of the user `relay` (all permissions on `/`), also in
    /// [`Node::password_file`].
    pub password: String,
    dist_port: u16,
    name: String,
    dir: PathBuf,
    /// The `rabbitmq-server` script (it waits for the VM).
    server: Option<Child>,
    /// Its stdin is held open: the watchdog stops the node when it closes
    /// (when this process exits).
    _watchdog: Child,
    paused: bool,
}

static NODE: OnceLock<Option<Arc<Mutex<Node>>>> = OnceLock::new();

/// Whether the broker's programs are installed.
pub fn installed() -> bool {
    std::path::Path::new(SERVER).exists() && std::path::Path::new(CTL).exists()
}

/// The node, for one test at a time, running and not paused; `None` when
/// RabbitMQ is not installed or would not start (the caller skips).
pub async fn lock() -> Option<OwnedMutexGuard<Node>> {
    let node = NODE
        .get_or_init(|| {
            if !installed() {
                return None;
            }
            Some(Arc::new(Mutex::new(Node::create())))
        })
        .clone()?;
    let mut guard = node.lock_owned().await;
    guard.resume();
    if guard.server.is_none() {
        let first = !guard.dir.join("mnesia").exists();
        guard.start().await;
        if first {
            let pw = guard.password.clone();
            guard.ctl(&["add_user", USER, &pw]);
            guard.ctl(&["set_permissions", "-p", "/", USER, ".*", ".*", ".*"]);
        }
    }
    Some(guard)
}

impl Node {
    fn create() -> Node {
        let pid = std::process::id();
        let dir = std::env::temp_dir().join(format!("relay-rabbitmq-{pid}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the node's directory");
        std::fs::write(dir.join("rabbitmq.conf"), "").unwrap();
        std::fs::write(dir.join("enabled_plugins"), "[].\n").unwrap();
        let password = format!(
            "apw-{pid}-{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        // As an operator's secret file usually is: the value and a newline.
        std::fs::write(dir.join("amqp-password"), format!("{password}\n")).unwrap();
        let watchdog = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "read _; p=$(cat '{d}/pid' 2>/dev/null); [ -n \"$p\" ] && kill -CONT $p; \
                 [ -n \"$p\" ] && kill -TERM $p; \
                 for i in $(seq 1 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done; \
                 rm -rf '{d}'",
                d = dir.display()
            ))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the watchdog");
        Node {
            password,
            port: free_port(),
            dist_port: free_port(),
            name: format!("relaytest{pid}@localhost"),
            dir,
            server: None,
            _watchdog: watchdog,
            paused: false,
        }
    }

    /// The directory the password file is in (the operator's `[secrets]`
    /// allows it).
    pub fn dir(&self) -> String {
        self.dir.display().to_string()
    }

    /// The `file:` reference to the password.
    pub fn password_file(&self) -> String {
        format!("{}/amqp-password", self.dir.display())
    }

    fn env(&self, c: &mut Command) {
        let d = &self.dir;
        c.env("HOME", d)
            .env("RABBITMQ_NODENAME", &self.name)
            .env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_NODE_PORT", self.port.to_string())
            .env("RABBITMQ_DIST_PORT", self.dist_port.to_string())
            .env("RABBITMQ_MNESIA_BASE", d.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", d.join("log"))
            .env("RABBITMQ_CONFIG_FILE", d.join("rabbitmq.conf"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", d.join("enabled_plugins"))
            .env("RABBITMQ_PID_FILE", d.join("pid"))
            .current_dir(d);
    }

    /// Starts the node and waits until it opens an AMQP connection.
    pub async fn start(&mut self) {
        let _ = std::fs::remove_file(self.dir.join("pid"));
        let out = std::fs::File::create(self.dir.join("server.out")).unwrap();
        let mut c = Command::new(SERVER);
        self.env(&mut c);
        c.stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        self.server = Some(c.spawn().expect("start rabbitmq-server"));
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(conn) = self.try_connect().await {
                conn.close(tokio::time::Instant::now() + Duration::from_secs(2))
                    .await;
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the private rabbitmq-server did not start: see {}",
                self.dir.display()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn try_connect(&self) -> Option<Connection> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .ok()?;
        let addr = tcp.peer_addr().ok()?;
        let login = Login {
            username: "guest",
            password: b"guest",
            virtual_host: "/",
        };
        Connection::open(Box::new(tcp), addr, &login, deadline)
            .await
            .ok()
    }

    /// An administration connection (declare, bind, read).
    pub async fn admin(&self) -> Connection {
        self.try_connect()
            .await
            .expect("an administration connection to the private node")
    }

    fn beam_pid(&self) -> String {
        std::fs::read_to_string(self.dir.join("pid"))
            .expect("the node's pid file")
            .trim()
            .to_string()
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.beam_pid()])
            .status()
            .expect("kill");
        assert!(status.success(), "kill {signal}");
    }

    /// Stops the node gracefully and waits until it has exited.
    pub fn stop(&mut self) {
        self.resume();
        let Some(mut server) = self.server.take() else {
            return;
        };
        self.signal("-TERM");
        let _ = server.wait();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(
                std::time::Instant::now() < deadline,
                "the node did not stop"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Freezes the broker's VM: connections are accepted by the kernel and
    /// never answered.
    pub fn pause(&mut self) {
        if !self.paused && self.server.is_some() {
            self.signal("-STOP");
            self.paused = true;
        }
    }

    pub fn resume(&mut self) {
        if self.paused {
            self.signal("-CONT");
            self.paused = false;
        }
    }

    /// `rabbitmqctl` against this node.
    pub fn ctl(&self, args: &[&str]) {
        let mut c = Command::new(CTL);
        self.env(&mut c);
        let out = c
            .args(["-n", &self.name])
            .args(args)
            .output()
            .expect("rabbitmqctl");
        assert!(
            out.status.success(),
            "rabbitmqctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::io::stderr().flush();
    }
}
