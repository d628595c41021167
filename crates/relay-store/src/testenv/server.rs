//! A private PostgreSQL server a test starts and stops: `initdb` into a
//! directory of its own, on a free port on 127.0.0.1, with the test's
//! `pg_hba.conf` lines and, when asked, TLS (`ssl = on`) with the test's
//! certificate, key and client CA. For the tests of connecting over TLS
//! (the shared server's settings are not the tests' to change).
//!
//! The binaries are found where `initdb` is on `PATH`, else in the newest
//! `/usr/lib/postgresql/<version>/bin`. Without them [`PgServer::start`]
//! says `SKIPPED` and returns `None` (a failure under
//! `RELAY_TEST_REQUIRE_ALL=1`, [`super::skip`]). PostgreSQL refuses to run
//! as root: as root, the server's commands run as the user `postgres`
//! (`runuser`), which then owns the directory.
//!
//! The server is stopped (`pg_ctl stop -m immediate`) and its directory
//! removed when the [`PgServer`] is dropped. Waiting for it to accept
//! connections is `pg_ctl start -w`'s.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// TLS for the server: PEM texts.
#[derive(Clone)]
pub struct ServerTls {
    /// The server's certificate chain.
    pub cert_pem: String,
    /// The server's private key.
    pub key_pem: String,
    /// The CA whose client certificates `cert` authentication accepts.
    pub client_ca_pem: Option<String>,
}

/// How to start a [`PgServer`].
#[derive(Clone, Default)]
pub struct ServerConfig {
    /// `None`: `ssl = off`.
    pub tls: Option<ServerTls>,
    /// `pg_hba.conf` lines for TCP connections (`hostssl all all
    /// 127.0.0.1/32 trust`); the Unix socket in the server's directory is
    /// always `trust` for [`PgServer::psql`].
    pub hba: Vec<String>,
}

/// A running private PostgreSQL server, stopped when dropped.
pub struct PgServer {
    dir: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    /// Whether its commands run as the user `postgres` (this process is root).
    as_postgres: bool,
    port: u16,
}

static SERVERS: AtomicU64 = AtomicU64::new(0);

impl PgServer {
    /// Starts a server for `test` with `config`; `None` (after saying
    /// `SKIPPED`) when the PostgreSQL binaries are missing. Panics, with
    /// the server's log, when it does not start.
    pub fn start(test: &str, config: &ServerConfig) -> Option<PgServer> {
        let Some(bin) = binaries() else {
            super::skip(
                &format!("on a private PostgreSQL server: {test}"),
                "no initdb on PATH or in /usr/lib/postgresql/*/bin",
            );
            return None;
        };
        let as_postgres = is_root();
        let n = SERVERS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("relay-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the server's directory");
        let port = free_port();
        let server = PgServer {
            data: dir.join("data"),
            dir,
            bin,
            as_postgres,
            port,
        };
        server.own();
        server.run_ok(
            "initdb",
            &[
                "-D",
                &server.data.display().to_string(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        server.configure(config);
        let log = server.dir.join("server.log").display().to_string();
        let started = server.run(
            "pg_ctl",
            &[
                "-D",
                &server.data.display().to_string(),
                "-l",
                &log,
                "-w",
                "-t",
                "120",
                "start",
            ],
        );
        if !started.status.success() {
            panic!(
                "the private PostgreSQL server did not start: {}\n{}",
                String::from_utf8_lossy(&started.stderr),
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        Some(server)
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of its Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `sql` as the superuser `postgres` over the Unix socket
    /// (`psql`, stopping at the first error); panics when it fails.
    pub fn psql(&self, sql: &str) {
        self.query(sql);
    }

    /// [`PgServer::psql`], returning what it printed: the rows unaligned,
    /// `|` between columns, trimmed.
    pub fn query(&self, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.dir)
            .args(["-p", &self.port.to_string(), "-U", "postgres", "-d"])
            .args(["postgres", "-c", sql])
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "psql {sql:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    fn configure(&self, config: &ServerConfig) {
        let mut conf = format!(
            "\nport = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
             fsync = off\nfull_page_writes = off\nsynchronous_commit = off\n\
             max_connections = 60\nshared_buffers = 16MB\n",
            self.port,
            self.dir.display()
        );
        match &config.tls {
            Some(tls) => {
                self.write("server.crt", &tls.cert_pem);
                self.write("server.key", &tls.key_pem);
                conf.push_str(&format!(
                    "ssl = on\nssl_cert_file = '{0}/server.crt'\nssl_key_file = '{0}/server.key'\n",
                    self.dir.display()
                ));
                if let Some(ca) = &tls.client_ca_pem {
                    self.write("client-ca.crt", ca);
                    conf.push_str(&format!(
                        "ssl_ca_file = '{}/client-ca.crt'\n",
                        self.dir.display()
                    ));
                }
            }
            None => conf.push_str("ssl = off\n"),
        }
        let path = self.data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&path).expect("postgresql.conf");
        text.push_str(&conf);
        std::fs::write(&path, text).expect("write postgresql.conf");
        let mut hba = String::from("local all all trust\n");
        for line in &config.hba {
            hba.push_str(line);
            hba.push('\n');
        }
        std::fs::write(self.data.join("pg_hba.conf"), hba).expect("write pg_hba.conf");
        self.own();
    }

    /// Writes a file of the server's, readable by its owner only (the
    /// server refuses a key others may read).
    fn write(&self, name: &str, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.join(name);
        std::fs::write(&path, text).expect("write a server file");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .expect("chmod a server file");
    }

    /// Hands the directory to the user `postgres` when running as root.
    fn own(&self) {
        if self.as_postgres {
            let out = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&self.dir)
                .output()
                .expect("run chown");
            assert!(out.status.success(), "chown the server's directory");
        }
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        let program = self.bin.join(program);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        cmd.args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("run {args:?}: {e}"))
    }

    fn run_ok(&self, program: &str, args: &[&str]) {
        let out = self.run(program, args);
        assert!(
            out.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if self.data.join("postmaster.pid").exists() {
            let _ = self.run(
                "pg_ctl",
                &[
                    "-D",
                    &self.data.display().to_string(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
            );
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The directory of the PostgreSQL server's programs, if installed.
fn binaries() -> Option<PathBuf> {
    binaries_in(std::env::var_os("PATH"), Path::new("/usr/lib/postgresql"))
}

/// Where `initdb`, `pg_ctl` and `postgres` are: beside the `initdb` found
/// on `path` (links followed), else in the newest `<installed>/<version>/bin`.
fn binaries_in(path: Option<std::ffi::OsString>, installed: &Path) -> Option<PathBuf> {
    let on_path = path.and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("initdb"))
            .find(|p| p.is_file())
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|p| p.parent().map(Path::to_path_buf))
    });
    let has_all = |dir: &PathBuf| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(dir) = on_path.filter(has_all) {
        return Some(dir);
    }
    let mut installed: Vec<(u32, PathBuf)> = std::fs::read_dir(installed)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| has_all(dir))
        .collect();
    installed.sort();
    installed.pop().map(|(_, dir)| dir)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A port nothing listens on now (the kernel's choice, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_install(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        for b in ["initdb", "pg_ctl", "postgres"] {
            std::fs::write(dir.join(b), "").unwrap();
        }
    }

    #[test]
    fn the_binaries_are_found_on_the_path_else_in_the_newest_install() {
        let root = tempfile::tempdir().unwrap();
        let lib = root.path().join("lib");
        assert_eq!(binaries_in(None, &lib), None, "nothing installed: a skip");
        fake_install(&lib.join("13/bin"));
        fake_install(&lib.join("15/bin"));
        std::fs::create_dir_all(lib.join("16/bin")).unwrap(); // incomplete
        assert_eq!(binaries_in(None, &lib), Some(lib.join("15/bin")));
        let own = root.path().join("own");
        fake_install(&own);
        let path = std::env::join_paths([root.path().join("empty"), own.clone()]).unwrap();
        assert_eq!(
            binaries_in(Some(path), &lib).map(|d| std::fs::canonicalize(d).unwrap()),
            Some(std::fs::canonicalize(&own).unwrap())
        );
    }
}
