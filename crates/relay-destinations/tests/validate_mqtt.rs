//! Registration checks of the MQTT kind's configuration, through a real
//! guard.

mod registration;

use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::mqtt::{MqttDestination, MqttVersion};
use relay_net::Guard;

fn guard(allow_loopback: bool) -> Guard {
    registration::guard(&[1883, 8883], "mqtt.example", allow_loopback)
}

fn mqtt(f: impl FnOnce(&mut MqttDestination)) -> Config {
    let mut m = MqttDestination {
        host: "mqtt.example".into(),
        port: 1883,
        tls: false,
        topic: "relay/{environment}/{event_type}".into(),
        protocol_version: MqttVersion::V5,
        client_id: None,
        username: None,
        password: None,
        content_mode: ContentMode::Structured,
    };
    f(&mut m);
    Config::Mqtt(m)
}

async fn code(d: Config) -> Option<(&'static str, &'static str)> {
    relay_destinations::validate(&d, &guard(false))
        .await
        .err()
        .map(|i| (i.code, i.pointer))
}

#[tokio::test]
async fn mqtt_configurations() {
    assert_eq!(code(mqtt(|_| {})).await, None);
    assert_eq!(
        code(mqtt(|m| m.protocol_version = MqttVersion::V311)).await,
        None
    );
    assert_eq!(
        code(mqtt(|m| m.content_mode = ContentMode::Binary)).await,
        None
    );
    assert_eq!(
        code(mqtt(|m| {
            m.protocol_version = MqttVersion::V311;
            m.content_mode = ContentMode::Binary;
        }))
        .await,
        Some(("binary_needs_mqtt5", "/destination/content_mode"))
    );
    for bad in ["", "a/+/b", "a/#", "$SYS/x", "{nope}", "a}b"] {
        assert_eq!(
            code(mqtt(|m| m.topic = bad.into())).await,
            Some(("invalid_topic", "/destination/topic")),
            "{bad:?}"
        );
    }
    assert_eq!(
        code(mqtt(|m| m.password = Some(SecretRef::Secret("pw".into())))).await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(mqtt(|m| m.username = Some(String::new()))).await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(mqtt(|m| m.username = Some("relay".into()))).await,
        None
    );
    for bad in ["", "has space", &"c".repeat(129)] {
        assert_eq!(
            code(mqtt(|m| m.client_id = Some(bad.to_string()))).await,
            Some(("invalid_client_id", "/destination/client_id")),
            "{bad:?}"
        );
    }
    assert_eq!(
        code(mqtt(|m| m.client_id = Some("relay-orders".into()))).await,
        None
    );
    assert_eq!(
        code(mqtt(|m| m.port = 1884)).await,
        Some(("port_not_allowed", "/destination/host"))
    );
    assert_eq!(
        code(mqtt(|m| m.host = "local.example".into())).await,
        Some(("blocked_address", "/destination/host")),
        "loopback is refused unless the operator allows it"
    );
    assert_eq!(
        relay_destinations::validate(&mqtt(|m| m.host = "local.example".into()), &guard(true))
            .await,
        Ok(())
    );
}

#[test]
fn the_configuration_reads_as_documented() {
    let d: Config = serde_json::from_value(serde_json::json!({
        "kind": "mqtt", "host": "mqtt.example", "topic": "t/{event_type}",
        "username": "relay", "password": "env:RELAY_MQTT_PW"
    }))
    .unwrap();
    let Config::Mqtt(m) = &d else { panic!("{d:?}") };
    assert_eq!(m.port, 1883);
    assert_eq!(m.protocol_version, MqttVersion::V5);
    assert_eq!(m.content_mode, ContentMode::Structured);
    let v311: Config = serde_json::from_value(serde_json::json!({
        "kind": "mqtt", "host": "h", "topic": "t", "protocol_version": "3.1.1"
    }))
    .unwrap();
    assert!(matches!(
        v311,
        Config::Mqtt(MqttDestination {
            protocol_version: MqttVersion::V311,
            ..
        })
    ));
    assert_eq!(
        serde_json::to_value(&v311).unwrap()["protocol_version"],
        "3.1.1"
    );
    // A password typed where a reference belongs is refused and never
    // echoed; an unknown version is refused.
    let e = serde_json::from_value::<Config>(serde_json::json!({
        "kind": "mqtt", "host": "h", "topic": "t", "username": "u", "password": "hunter2"
    }))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("secret reference") && !e.contains("hunter2"),
        "{e}"
    );
    assert!(
        serde_json::from_value::<Config>(serde_json::json!({
            "kind": "mqtt", "host": "h", "topic": "t", "protocol_version": "3.1"
        }))
        .is_err()
    );
}

#[test]
fn building_needs_the_password_resolved_and_never_shows_it() {
    let shared = relay_destinations::Shared {
        https: relay_net::HttpsClient::new(guard(false)),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let pw = SecretRef::Secret("mqtt-pw".into());
    let d = mqtt(|m| {
        m.username = Some("relay".into());
        m.password = Some(pw.clone());
    });
    assert_eq!(d.secret_refs(), vec![("/destination/password", &pw)]);
    assert!(relay_destinations::build(&d, &shared, &Secrets::new()).is_err());
    let mut s = Secrets::new();
    s.insert(pw, SecretValue::from("hunter2"));
    assert!(relay_destinations::build(&d, &shared, &s).is_ok());
    assert!(!format!("{d:?}").contains("hunter2"));
    assert!(!format!("{s:?}").contains("hunter2"));
}
