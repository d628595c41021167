//! How Relay connects to PostgreSQL: the URL's parameters, checked before
//! sqlx sees them, and the pool's settings ([`StoreSettings`]).
//!
//! The URL takes libpq's TLS parameters: `sslmode` (`disable`, `prefer`
//! (the default), `require`, `verify-ca`, `verify-full`), `sslrootcert` (a
//! PEM file of the CA(s) to trust), `sslcert` and `sslkey` (a client
//! certificate and its key, for `cert` authentication). As in libpq,
//! `require` with an `sslrootcert` verifies the server's certificate
//! against it (`verify-ca`). TLS is rustls on `ring`; the CA file is
//! trusted beside the bundled Mozilla roots.
//!
//! A parameter sqlx does not know is refused here, naming it alone: sqlx
//! would log it with its value (`?sslpassword=…`) and go on without it.
//! An error never quotes the URL, its password or a file's contents.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgSslMode};

use crate::{Result, StoreError};

/// How the store connects beyond what its URL says (`[store]` in Relay's
/// configuration). PostgreSQL only: SQLite has no server to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSettings {
    /// Connections the pool keeps open at most (the `LISTEN` connection
    /// is one more).
    pub pool_size: u32,
    /// How long getting a connection may take: opening one (TCP, TLS,
    /// authentication, retried while the server refuses) or waiting for a
    /// free one in the pool. Beyond it the operation fails.
    pub connect_timeout: Duration,
    /// `statement_timeout` of every connection: a statement running longer
    /// is cancelled by the server. `None` keeps the server's setting.
    pub statement_timeout: Option<Duration>,
}

/// The pool size when none is configured.
pub const DEFAULT_POOL_SIZE: u32 = 16;
/// The connect timeout when none is configured (sqlx's own default).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            pool_size: DEFAULT_POOL_SIZE,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            statement_timeout: None,
        }
    }
}

/// Query parameters sqlx reads (`sqlx_postgres::options::parse`): any
/// other is refused.
const KNOWN: &[&str] = &[
    "sslmode",
    "ssl-mode",
    "sslrootcert",
    "ssl-root-cert",
    "ssl-ca",
    "sslcert",
    "ssl-cert",
    "sslkey",
    "ssl-key",
    "statement-cache-capacity",
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "application_name",
    "options",
];

/// The options a PostgreSQL URL names, checked (see the module's
/// documentation).
pub fn connect_options(url: &str) -> Result<PgConnectOptions> {
    let invalid = |why: String| StoreError::InvalidUrl(why);
    // `url`'s errors never quote the input.
    let parsed = url::Url::parse(url).map_err(|e| invalid(format!("not a URL: {e}")))?;
    let mut mode: Option<PgSslMode> = None;
    let mut root_cert = false;
    let mut client_cert = false;
    let mut client_key = false;
    for (name, value) in parsed.query_pairs() {
        let name = name.as_ref();
        if !(KNOWN.contains(&name) || name.starts_with("options[")) {
            return Err(invalid(format!(
                "unknown parameter `{name}` (known: sslmode, sslrootcert, sslcert, sslkey, \
                 application_name, options, host, port, dbname, user, password)"
            )));
        }
        match name {
            "sslmode" | "ssl-mode" => {
                mode = Some(match value.as_ref() {
                    "disable" => PgSslMode::Disable,
                    "prefer" => PgSslMode::Prefer,
                    "require" => PgSslMode::Require,
                    "verify-ca" => PgSslMode::VerifyCa,
                    "verify-full" => PgSslMode::VerifyFull,
                    "allow" => {
                        return Err(invalid(
                            "sslmode=allow is not supported; use prefer or require".into(),
                        ));
                    }
                    _ => {
                        return Err(invalid(
                            "sslmode must be disable, prefer, require, verify-ca or verify-full"
                                .into(),
                        ));
                    }
                });
            }
            "sslrootcert" | "ssl-root-cert" | "ssl-ca" => {
                readable("sslrootcert", &value)?;
                root_cert = true;
            }
            "sslcert" | "ssl-cert" => {
                readable("sslcert", &value)?;
                client_cert = true;
            }
            "sslkey" | "ssl-key" => {
                readable("sslkey", &value)?;
                client_key = true;
            }
            _ => {}
        }
    }
    if client_cert != client_key {
        return Err(invalid("sslcert and sslkey go together".into()));
    }
    if matches!(mode, Some(PgSslMode::Disable)) && (root_cert || client_cert) {
        return Err(invalid(
            "sslmode=disable with sslrootcert, sslcert or sslkey: choose require, verify-ca or \
             verify-full"
                .into(),
        ));
    }
    let mut options = PgConnectOptions::from_str(url)
        .map_err(|e| invalid(format!("not a PostgreSQL URL: {}", kind_of(&e))))?;
    // libpq: "if a root CA file exists, the behavior of sslmode=require
    // will be the same as that of verify-ca".
    if matches!(mode, Some(PgSslMode::Require)) && root_cert {
        options = options.ssl_mode(PgSslMode::VerifyCa);
    }
    Ok(options)
}

/// Refuses a TLS file parameter naming a file that cannot be read now,
/// saying which parameter, the path and why (never the contents).
fn readable(parameter: &str, path: &str) -> Result<()> {
    if path.is_empty() {
        return Err(StoreError::InvalidUrl(format!("{parameter} is empty")));
    }
    std::fs::File::open(path).map(drop).map_err(|e| {
        StoreError::InvalidUrl(format!("{parameter}: cannot read {path}: {}", e.kind()))
    })
}

/// What kind of error sqlx found in a URL, without its text (which may
/// quote a value).
fn kind_of(e: &sqlx::Error) -> &'static str {
    match e {
        sqlx::Error::Configuration(_) => "a value is invalid",
        _ => "it cannot be read",
    }
}

/// `SET statement_timeout` for a new connection.
pub(crate) fn statement_timeout_sql(timeout: Duration) -> String {
    format!("SET statement_timeout = {}", timeout.as_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PgSslMode` has no `PartialEq`.
    fn name(mode: PgSslMode) -> &'static str {
        match mode {
            PgSslMode::Disable => "disable",
            PgSslMode::Allow => "allow",
            PgSslMode::Prefer => "prefer",
            PgSslMode::Require => "require",
            PgSslMode::VerifyCa => "verify-ca",
            PgSslMode::VerifyFull => "verify-full",
        }
    }

    fn err(url: &str) -> String {
        match connect_options(url) {
            Err(StoreError::InvalidUrl(why)) => why,
            Err(other) => panic!("{url}: not InvalidUrl: {other}"),
            Ok(_) => panic!("{url} was accepted"),
        }
    }

    #[test]
    fn the_ssl_modes_are_read() {
        for text in ["disable", "prefer", "require", "verify-ca", "verify-full"] {
            let o = connect_options(&format!("postgres://u@db/x?sslmode={text}")).unwrap();
            assert_eq!(name(o.get_ssl_mode()), text);
        }
        assert!(err("postgres://u@db/x?sslmode=allow").contains("allow is not supported"));
        assert!(err("postgres://u@db/x?sslmode=strict").contains("sslmode must be"));
    }

    #[test]
    fn require_with_a_root_certificate_verifies_it() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "not read here").unwrap();
        let url = format!(
            "postgres://u@db/x?sslmode=require&sslrootcert={}",
            ca.display()
        );
        assert_eq!(
            name(connect_options(&url).unwrap().get_ssl_mode()),
            "verify-ca"
        );
        let url = format!(
            "postgres://u@db/x?sslmode=verify-full&sslrootcert={}",
            ca.display()
        );
        assert_eq!(
            name(connect_options(&url).unwrap().get_ssl_mode()),
            "verify-full"
        );
    }

    #[test]
    fn tls_files_must_be_readable_and_come_in_pairs() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("client.key");
        std::fs::write(&key, "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n").unwrap();
        let missing = dir.path().join("missing.pem");
        let why = err(&format!(
            "postgres://u@db/x?sslmode=verify-full&sslrootcert={}",
            missing.display()
        ));
        assert!(why.starts_with("sslrootcert: cannot read "), "{why}");
        assert!(why.contains("missing.pem"), "{why}");
        let why = err(&format!(
            "postgres://u@db/x?sslmode=verify-full&sslkey={}",
            key.display()
        ));
        assert_eq!(why, "sslcert and sslkey go together");
        let why = err(&format!(
            "postgres://u@db/x?sslmode=disable&sslcert={0}&sslkey={0}",
            key.display()
        ));
        assert!(why.contains("sslmode=disable with"), "{why}");
    }

    #[test]
    fn an_unknown_parameter_is_named_without_its_value() {
        let why = err("postgres://u:hunter2@db/x?sslpassword=s3cr3t-value");
        assert!(why.contains("`sslpassword`"), "{why}");
        assert!(
            !why.contains("s3cr3t-value") && !why.contains("hunter2"),
            "{why}"
        );
        // libpq's connect_timeout is `[store] connect_timeout_seconds`.
        assert!(err("postgres://u@db/x?connect_timeout=5").contains("`connect_timeout`"));
    }

    #[test]
    fn errors_never_quote_the_password() {
        for url in [
            "postgres://u:hunter2@db:notaport/x",
            "postgres://u:hunter2@db/x?port=hunter2",
            "postgres://u:hunter2@db/x?sslmode=hunter2",
            "postgres://u:hunter2@[db/x",
        ] {
            let why = err(url);
            assert!(!why.contains("hunter2"), "{url}: {why}");
        }
    }

    #[test]
    fn the_known_parameters_pass() {
        let o = connect_options(
            "postgres://u:p@db:6432/x?application_name=relay&options[search_path]=s&statement-cache-capacity=10",
        )
        .unwrap();
        assert_eq!(o.get_port(), 6432);
        assert_eq!(name(o.get_ssl_mode()), "prefer");
        assert_eq!(o.get_application_name(), Some("relay"));
    }

    #[test]
    fn the_statement_timeout_is_set_in_milliseconds() {
        assert_eq!(
            statement_timeout_sql(Duration::from_millis(2500)),
            "SET statement_timeout = 2500"
        );
    }
}
