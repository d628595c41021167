//! What the AWS kinds' unit tests share (`sqs/tests.rs`, `sns/tests.rs`):
//! the credentials' references and values, a guard allowing port 9 of
//! loopback (nothing listens: every send fails to connect), and the check
//! that no credential shows in a client's `Debug`, a result or a record.

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};

use crate::test_message::prepared;
use crate::{Kind, Shared};

/// The values of [`credentials`], which no output may show.
pub const VALUES: [&str; 3] = [
    "AKIASECRETKEYID00001",
    "the-secret-access-key",
    "the-session-token",
];

pub fn credentials() -> super::Credentials {
    super::Credentials {
        session_token: Some(SecretRef::Secret("token".into())),
        ..super::Credentials::keys(
            SecretRef::Secret("id".into()),
            SecretRef::Secret("secret".into()),
        )
    }
}

pub fn secrets() -> Secrets {
    let mut s = Secrets::new();
    for (name, value) in ["id", "secret", "token"].into_iter().zip(VALUES) {
        s.insert(SecretRef::Secret(name.into()), SecretValue::from(value));
    }
    s
}

pub fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(
            Guard::from_config(&OutboundConfig {
                allow_ports: vec![9],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: false,
            })
            .unwrap(),
        ),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

/// Neither the client's `Debug` nor a failed attempt's result or record
/// shows a credential; what they show includes `names`.
pub async fn credentials_never_show<K: Kind>(config: &K::Config, names: &str)
where
    K::Client: std::fmt::Debug,
    K::Result: std::fmt::Debug,
{
    let client = K::build(config, &shared(), &secrets()).unwrap();
    let result = K::deliver(
        &client,
        &prepared(ContentMode::Structured),
        Limits::default(),
    )
    .await;
    let record = K::record(&result);
    let shown = format!("{client:?} {result:?} {record:?}");
    for secret in VALUES {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert!(shown.contains(names), "{names} in {shown}");
}

/// A key id that is no header text is refused at build as unresolved.
pub fn a_key_id_that_cannot_be_sent_is_unresolved<K: Kind>(config: &K::Config) {
    let mut s = secrets();
    s.insert(SecretRef::Secret("id".into()), SecretValue::from("bad\nid"));
    assert!(K::build(config, &shared(), &s).is_err());
}
