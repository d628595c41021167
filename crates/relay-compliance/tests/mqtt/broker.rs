//! A private `mosquitto` per test: its own port, configuration, password
//! file, ACL and persistence directory in a temporary directory, so a test
//! can stop it, pause it, start it again and change what it allows (the
//! shared broker on 1883 is never touched). Dropping it ends the process.
//!
//! Two users: `relay` (publishes; its password is the file the endpoint's
//! `file:` reference names) and `consumer` (reads). What `relay` may do is
//! the ACL and the size limit, changed by rewriting the configuration and
//! `SIGHUP` (mosquitto reloads both; [`Broker::reload`] waits until the log
//! says so).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;

/// The user Relay publishes as.
pub const USER: &str = "relay";
/// The user the test's consumer reads as, and its password.
pub const CONSUMER: &str = "consumer";
pub const CONSUMER_PASSWORD: &str = "consumer-pw";

fn program(name: &str) -> Option<PathBuf> {
    ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

/// Why a private broker cannot run here, if it cannot.
pub fn missing() -> Option<&'static str> {
    if program("mosquitto").is_none() {
        return Some("mosquitto is not installed (Debian: apt-get install mosquitto)");
    }
    if program("mosquitto_passwd").is_none() {
        return Some("mosquitto_passwd is not installed (Debian: apt-get install mosquitto)");
    }
    None
}

/// What the broker lets `relay` do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// `relay` may publish (else its publishes get `PUBACK` 0x87).
    pub publish: bool,
    /// `message_size_limit` (a larger publish gets `PUBACK` 0x95).
    pub size_limit: Option<usize>,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            publish: true,
            size_limit: None,
        }
    }
}

pub struct Broker {
    pub port: u16,
    /// `relay`'s password, also in [`Broker::password_file`].
    pub password: String,
    dir: tempfile::TempDir,
    child: Option<Child>,
    paused: bool,
    rules: Rules,
    extra: String,
}

impl Broker {
    /// A running broker; `extra` is appended to its configuration.
    pub async fn start(extra: &str) -> Broker {
        let dir = tempfile::Builder::new()
            .prefix("relay-mqtt-")
            .tempdir()
            .expect("a directory");
        let password = format!(
            "mpw-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        // As an operator's secret file usually is: the value and a newline.
        std::fs::write(dir.path().join("mqtt-password"), format!("{password}\n")).unwrap();
        let passwd = dir.path().join("passwd");
        std::fs::write(&passwd, "").unwrap();
        for (user, pw) in [(USER, password.as_str()), (CONSUMER, CONSUMER_PASSWORD)] {
            let ok = Command::new(program("mosquitto_passwd").expect("installed"))
                .arg("-b")
                .arg(&passwd)
                .args([user, pw])
                .status()
                .expect("mosquitto_passwd")
                .success();
            assert!(ok, "mosquitto_passwd");
        }
        let mut b = Broker {
            port: free_port(),
            password,
            dir,
            child: None,
            paused: false,
            rules: Rules::default(),
            extra: extra.to_string(),
        };
        b.configure(Rules::default());
        b.run().await;
        b
    }

    /// The directory of the password file (the operator's `[secrets]`
    /// allows it).
    pub fn dir(&self) -> String {
        self.dir.path().display().to_string()
    }

    /// The `file:` reference's path to `relay`'s password.
    pub fn password_file(&self) -> String {
        format!("{}/mqtt-password", self.dir())
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }

    fn configure(&mut self, rules: Rules) {
        let d = self.dir.path();
        let acl = format!(
            "user {USER}\ntopic {} #\n\nuser {CONSUMER}\ntopic read #\n",
            if rules.publish { "readwrite" } else { "read" }
        );
        std::fs::write(d.join("acl"), acl).unwrap();
        let mut conf = format!(
            "listener {port} 127.0.0.1\n\
             allow_anonymous false\n\
             password_file {d}/passwd\n\
             acl_file {d}/acl\n\
             persistence true\n\
             persistence_location {d}/\n\
             log_dest file {d}/mosquitto.log\n\
             log_type all\n\
             max_queued_messages 100000\n\
             # Started as root (CI), mosquitto would switch to the user\n\
             # `mosquitto`, who cannot read this directory; as any other\n\
             # user this line does nothing.\n\
             user root\n",
            port = self.port,
            d = d.display()
        );
        if let Some(n) = rules.size_limit {
            conf.push_str(&format!("message_size_limit {n}\n"));
        }
        conf.push_str(&self.extra);
        std::fs::write(d.join("mosquitto.conf"), conf).unwrap();
        self.rules = rules;
    }

    /// Starts the broker and waits until it accepts connections.
    pub async fn run(&mut self) {
        let d = self.dir.path();
        let out = std::fs::File::create(d.join("stderr")).unwrap();
        let child = Command::new(program("mosquitto").expect("installed"))
            .arg("-c")
            .arg(d.join("mosquitto.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start mosquitto");
        self.child = Some(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the private mosquitto did not start: {}",
                std::fs::read_to_string(d.join("stderr")).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn signal(&self, signal: &str) {
        let Some(c) = &self.child else { return };
        let status = Command::new("kill")
            .args([signal, &c.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success(), "kill {signal}");
    }

    /// Stops the broker gracefully (it saves its persistent sessions and
    /// their queued messages) and waits until it has exited.
    pub fn stop(&mut self) {
        self.resume();
        if self.child.is_none() {
            return;
        }
        self.signal("-TERM");
        if let Some(mut c) = self.child.take() {
            let _ = c.wait();
        }
    }

    /// Freezes the broker: connections are accepted by the kernel and never
    /// answered.
    pub fn pause(&mut self) {
        if !self.paused && self.child.is_some() {
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

    /// Applies `rules` to the running broker and waits until it has
    /// reloaded them.
    pub async fn reload(&mut self, rules: Rules) {
        if rules == self.rules {
            return;
        }
        self.configure(rules);
        let before = self.log().matches("Reloading config").count();
        self.signal("-HUP");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.log().matches("Reloading config").count() <= before {
            assert!(
                std::time::Instant::now() < deadline,
                "mosquitto did not reload"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// How many `PINGREQ`s the broker has logged.
    pub fn pings(&self) -> usize {
        self.log().matches("Received PINGREQ").count()
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.resume();
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
