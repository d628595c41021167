//! The registration rules of an `azure_service_bus` destination's fields,
//! pure (the guard's check of the service's host and the token URL is in
//! `mod.rs`): the namespace's shape and its Azure cloud (kept as data,
//! [`CLOUDS`]), the endpoint's, the entity's name, the credentials' fields,
//! the refusal of connection strings; and the URLs the client uses.

use crate::Invalid;
use crate::pubsub::config::endpoint as split_endpoint;
use crate::service_bus::{
    EntraCredentials, SERVICE_BUS_MAX_MESSAGE_BYTES, ServiceBusAuth, ServiceBusDestination,
};

/// An Azure cloud, as Service Bus and Entra ID name their hosts in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cloud {
    pub name: &'static str,
    /// The namespaces' host suffix (after `<namespace>.`).
    pub suffix: &'static str,
    /// Entra ID's authority (token URL: `<authority>/<tenant>/oauth2/v2.0/token`).
    pub authority: &'static str,
}

/// The Azure clouds a `namespace` may be in (Microsoft's "national
/// clouds"), as data: a new one is a line here.
pub const CLOUDS: &[Cloud] = &[
    Cloud {
        name: "public",
        suffix: "servicebus.windows.net",
        authority: "https://login.microsoftonline.com",
    },
    Cloud {
        name: "china",
        suffix: "servicebus.chinacloudapi.cn",
        authority: "https://login.chinacloudapi.cn",
    },
    Cloud {
        name: "us_government",
        suffix: "servicebus.usgovcloudapi.net",
        authority: "https://login.microsoftonline.us",
    },
];

/// The scope of a Service Bus token (every cloud's resource id).
pub const ENTRA_SCOPE: &str = "https://servicebus.azure.net/.default";

/// What a `namespace` host is: its name and its cloud, when it is
/// `<name>.<a cloud's suffix>` with a namespace name of Azure's shape (6 to
/// 50 of letters, digits and `-`, starting with a letter, ending with a
/// letter or digit).
pub fn namespace(host: &str) -> Option<(&str, &'static Cloud)> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let (name, suffix) = host.split_once('.')?;
    let cloud = CLOUDS
        .iter()
        .find(|c| suffix.eq_ignore_ascii_case(c.suffix))?;
    let b = name.as_bytes();
    let ok = (6..=50).contains(&b.len())
        && b[0].is_ascii_alphabetic()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-');
    ok.then_some((name, cloud))
}

/// An entity's name: 1 to 260 of letters, digits, `.`, `-`, `_` and `/`,
/// starting and ending with a letter or digit, no empty path segment.
pub fn valid_entity(e: &str) -> bool {
    let b = e.as_bytes();
    !b.is_empty()
        && b.len() <= 260
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && !e.contains("//")
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'/'))
}

/// Whether `s` looks like a Service Bus connection string or a SAS token:
/// something that carries a key or a signature.
pub fn looks_like_connection_string(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    [
        "endpoint=sb://",
        "sharedaccesskey=",
        "sharedaccesssignature",
    ]
    .iter()
    .any(|m| l.contains(m))
        || (l.contains("sig=") && l.contains("se=") && l.contains("sr="))
}

/// The JSON pointer of the first place in `value` (a destination's
/// members) that holds something looking like a connection string, as a
/// value or as a name, at any depth; `None` when nothing does.
pub fn connection_string_in(value: &serde_json::Value) -> Option<&'static str> {
    fn found(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => looks_like_connection_string(s),
            serde_json::Value::Array(a) => a.iter().any(found),
            serde_json::Value::Object(o) => o
                .iter()
                .any(|(k, v)| looks_like_connection_string(k) || found(v)),
            _ => false,
        }
    }
    let serde_json::Value::Object(members) = value else {
        return found(value).then_some("/destination");
    };
    members.iter().find_map(|(k, v)| {
        (looks_like_connection_string(k) || found(v)).then_some(match k.as_str() {
            "namespace" => "/destination/namespace",
            "endpoint" => "/destination/endpoint",
            "entity" => "/destination/entity",
            "auth" => "/destination/auth",
            _ => "/destination",
        })
    })
}

fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// The refusal of a connection string (the key in it never echoed).
pub fn connection_string_refused(pointer: &'static str) -> Invalid {
    invalid(
        "connection_string_refused",
        pointer,
        "a Service Bus connection string or SAS token is refused: it carries the key. Give `namespace` (or `endpoint`), `entity` and `auth.sas` with `key_name` and `key` as a secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the key alone",
    )
}

/// The service's base URL, `https://host[:port]`, without a trailing `/`.
pub fn base_url(c: &ServiceBusDestination) -> Option<String> {
    match (&c.namespace, &c.endpoint) {
        (Some(ns), None) => {
            namespace(ns)?;
            Some(format!("https://{}", ns.trim_end_matches('.')))
        }
        (None, Some(e)) => {
            let e = split_endpoint(e)?;
            Some(format!("{}://{}", e.scheme, e.authority))
        }
        _ => None,
    }
}

/// The entity's URI, `https://host[:port]/<entity>`: what a SAS token is
/// signed for (its `sr`).
pub fn resource_uri(c: &ServiceBusDestination) -> Option<String> {
    valid_entity(&c.entity).then_some(())?;
    Some(format!("{}/{}", base_url(c)?, c.entity))
}

/// The send URL, `https://host[:port]/<entity>/messages`.
pub fn send_url(c: &ServiceBusDestination) -> Option<String> {
    Some(format!("{}/messages", resource_uri(c)?))
}

/// The Entra token URL: the configured one, else the namespace's cloud's
/// authority (the public cloud's for an `endpoint`) with the tenant.
pub fn token_url(c: &ServiceBusDestination, e: &EntraCredentials) -> String {
    if let Some(u) = &e.token_url {
        return u.clone();
    }
    let cloud = c
        .namespace
        .as_deref()
        .and_then(namespace)
        .map_or(&CLOUDS[0], |(_, cloud)| cloud);
    format!("{}/{}/oauth2/v2.0/token", cloud.authority, e.tenant_id)
}

/// A shared access rule's name: 1 to 256 of letters, digits, `.`, `-`
/// and `_` (Azure's rule for it; so it needs no encoding in a token).
pub fn valid_key_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 256
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// A tenant id: a GUID or a domain name (letters, digits, `.`, `-`).
fn valid_tenant(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 256
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The pure checks of the fields, in the order of the schema.
pub fn check(c: &ServiceBusDestination) -> Result<(), Invalid> {
    if let Some(pointer) = c.refused {
        return Err(connection_string_refused(pointer));
    }
    match (&c.namespace, &c.endpoint) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(invalid(
                "namespace_or_endpoint",
                "/destination/namespace",
                "give exactly one of `namespace` (`<name>.servicebus.windows.net`) and `endpoint` (`https://host[:port]`)",
            ));
        }
        (Some(ns), None) => {
            if namespace(ns).is_none() {
                let suffixes: Vec<&str> = CLOUDS.iter().map(|c| c.suffix).collect();
                return Err(invalid(
                    "invalid_namespace",
                    "/destination/namespace",
                    format!(
                        "a namespace is `<name>.<suffix>`: the name 6 to 50 of letters, digits and `-`, starting with a letter and ending with a letter or digit; the suffix one of {}",
                        suffixes.join(", ")
                    ),
                ));
            }
        }
        (None, Some(e)) => {
            let Some(parts) = split_endpoint(e) else {
                return Err(invalid(
                    "invalid_url",
                    "/destination/endpoint",
                    "an endpoint is `https://host[:port]`, without user information, path, query or fragment",
                ));
            };
            if parts.scheme != "https" {
                return Err(invalid(
                    "scheme_not_allowed",
                    "/destination/endpoint",
                    "requests to Service Bus carry a token: the endpoint is https://",
                ));
            }
        }
    }
    if !valid_entity(&c.entity) {
        return Err(invalid(
            "invalid_entity",
            "/destination/entity",
            "an entity is 1 to 260 of letters, digits, `.`, `-`, `_` and `/`, starting and ending with a letter or digit",
        ));
    }
    match &c.auth {
        ServiceBusAuth::Sas(s) => {
            if !valid_key_name(&s.key_name) {
                return Err(invalid(
                    "invalid_key_name",
                    "/destination/auth/sas/key_name",
                    "a key name (a shared access rule's) is 1 to 256 of letters, digits, `.`, `-` and `_`",
                ));
            }
        }
        ServiceBusAuth::Entra(e) => {
            if !valid_tenant(&e.tenant_id) {
                return Err(invalid(
                    "invalid_tenant_id",
                    "/destination/auth/entra/tenant_id",
                    "a tenant id is a GUID or a domain name (letters, digits, `.` and `-`), at most 256",
                ));
            }
            if e.client_id.is_empty()
                || e.client_id.len() > 256
                || !e.client_id.bytes().all(|b| (0x21..=0x7e).contains(&b))
            {
                return Err(invalid(
                    "invalid_client_id",
                    "/destination/auth/entra/client_id",
                    "a client id is 1 to 256 characters of printable ASCII without spaces",
                ));
            }
            let url = token_url(c, e);
            if !url.starts_with("https://") || url.len() > 2048 {
                return Err(invalid(
                    "invalid_token_url",
                    "/destination/auth/entra/token_url",
                    "the token URL is https://, at most 2048 bytes",
                ));
            }
        }
    }
    let (min, max) = SERVICE_BUS_MAX_MESSAGE_BYTES;
    if !(min..=max).contains(&c.max_message_bytes) {
        return Err(invalid(
            "invalid_max_message_bytes",
            "/destination/max_message_bytes",
            format!("between {min} and {max}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use relay_core::model::ContentMode;
    use relay_core::secret::SecretRef;

    use super::*;
    use crate::service_bus::SasKey;

    fn sas() -> ServiceBusAuth {
        ServiceBusAuth::Sas(SasKey {
            key_name: "RootManageSharedAccessKey".into(),
            key: SecretRef::Secret("sb".into()),
        })
    }

    fn dest(
        namespace: Option<&str>,
        endpoint: Option<&str>,
        entity: &str,
    ) -> ServiceBusDestination {
        ServiceBusDestination {
            namespace: namespace.map(Into::into),
            endpoint: endpoint.map(Into::into),
            entity: entity.into(),
            auth: sas(),
            sessions: false,
            content_mode: ContentMode::Structured,
            max_message_bytes: 256 * 1024,
            refused: None,
        }
    }

    #[test]
    fn namespaces_and_their_clouds() {
        for (host, found) in [
            (
                "acme-prod.servicebus.windows.net",
                Some(("acme-prod", "public")),
            ),
            (
                "acme-prod.servicebus.windows.net.",
                Some(("acme-prod", "public")),
            ),
            ("Acme01.SERVICEBUS.windows.net", Some(("Acme01", "public"))),
            (
                "acme-prod.servicebus.chinacloudapi.cn",
                Some(("acme-prod", "china")),
            ),
            (
                "acme-prod.servicebus.usgovcloudapi.net",
                Some(("acme-prod", "us_government")),
            ),
            ("acme.servicebus.windows.net", None),
            ("1acme-prod.servicebus.windows.net", None),
            ("acme-prod-.servicebus.windows.net", None),
            ("acme_prod.servicebus.windows.net", None),
            ("acme-prod.servicebus.example.com", None),
            ("acme-prod.blob.core.windows.net", None),
            ("servicebus.windows.net", None),
        ] {
            assert_eq!(namespace(host).map(|(n, c)| (n, c.name)), found, "{host}");
        }
        let long = format!("a{}.servicebus.windows.net", "b".repeat(50));
        assert_eq!(namespace(&long), None);
    }

    #[test]
    fn entities() {
        for ok in ["orders", "orders.v1", "a", "sales/eu/orders", "Q_1-x"] {
            assert!(valid_entity(ok), "{ok}");
        }
        for bad in [
            "",
            "-orders",
            "orders-",
            "/orders",
            "orders/",
            "a//b",
            "or ders",
            "or%20ders",
            "ordérs",
        ] {
            assert!(!valid_entity(bad), "{bad}");
        }
        assert!(valid_entity(&"a".repeat(260)));
        assert!(!valid_entity(&"a".repeat(261)));
    }

    #[test]
    fn connection_strings_are_found_anywhere() {
        let cs = "Endpoint=sb://acme-prod.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=c2VjcmV0LWtleQ==";
        let token = "SharedAccessSignature sr=https%3A%2F%2Fa&sig=abc&se=1&skn=Root";
        assert!(looks_like_connection_string(cs));
        assert!(looks_like_connection_string(token));
        assert!(looks_like_connection_string("sr=x&sig=y&se=1"));
        assert!(!looks_like_connection_string(
            "acme-prod.servicebus.windows.net"
        ));
        assert!(!looks_like_connection_string("secret:sb-key"));
        for (v, pointer) in [
            (
                serde_json::json!({"namespace": cs}),
                "/destination/namespace",
            ),
            (
                serde_json::json!({"entity": "q", "auth": cs}),
                "/destination/auth",
            ),
            (
                serde_json::json!({"auth": {"sas": {"key_name": "Root", "key": cs}}}),
                "/destination/auth",
            ),
            (serde_json::json!({"connection_string": cs}), "/destination"),
            (
                serde_json::json!({"extra": [1, {"x": token}]}),
                "/destination",
            ),
        ] {
            assert_eq!(connection_string_in(&v), Some(pointer), "{v}");
        }
        assert_eq!(
            connection_string_in(
                &serde_json::json!({"namespace": "acme-prod.servicebus.windows.net", "entity": "q", "auth": {"sas": {"key_name": "Root", "key": "secret:k"}}})
            ),
            None
        );
    }

    #[test]
    fn checks() {
        let ns = Some("acme-prod.servicebus.windows.net");
        assert_eq!(check(&dest(ns, None, "orders")), Ok(()));
        assert_eq!(
            check(&dest(None, Some("https://127.0.0.1:8443"), "orders")),
            Ok(())
        );
        let entra = |token_url: Option<&str>| ServiceBusDestination {
            auth: ServiceBusAuth::Entra(EntraCredentials {
                tenant_id: "72f988bf-86f1-41af-91ab-2d7cd011db47".into(),
                client_id: "app-1".into(),
                client_secret: SecretRef::Secret("c".into()),
                token_url: token_url.map(Into::into),
            }),
            ..dest(ns, None, "orders")
        };
        assert_eq!(check(&entra(None)), Ok(()));
        let mut refused = dest(ns, None, "orders");
        refused.refused = Some("/destination/auth");
        for (d, code, pointer) in [
            (refused, "connection_string_refused", "/destination/auth"),
            (
                dest(ns, Some("https://x"), "orders"),
                "namespace_or_endpoint",
                "/destination/namespace",
            ),
            (
                dest(None, None, "orders"),
                "namespace_or_endpoint",
                "/destination/namespace",
            ),
            (
                dest(Some("acme-prod.example.com"), None, "orders"),
                "invalid_namespace",
                "/destination/namespace",
            ),
            (
                dest(None, Some("https://127.0.0.1/path"), "orders"),
                "invalid_url",
                "/destination/endpoint",
            ),
            (
                dest(None, Some("http://127.0.0.1:8080"), "orders"),
                "scheme_not_allowed",
                "/destination/endpoint",
            ),
            (
                dest(ns, None, "orders/"),
                "invalid_entity",
                "/destination/entity",
            ),
            (
                ServiceBusDestination {
                    auth: ServiceBusAuth::Sas(SasKey {
                        key_name: "Root Key".into(),
                        key: SecretRef::Secret("sb".into()),
                    }),
                    ..dest(ns, None, "orders")
                },
                "invalid_key_name",
                "/destination/auth/sas/key_name",
            ),
            (
                entra(Some("http://login.example/token")),
                "invalid_token_url",
                "/destination/auth/entra/token_url",
            ),
            (
                ServiceBusDestination {
                    max_message_bytes: 100 * 1024 * 1024 + 1,
                    ..dest(ns, None, "orders")
                },
                "invalid_max_message_bytes",
                "/destination/max_message_bytes",
            ),
        ] {
            let e = check(&d).unwrap_err();
            assert_eq!((e.code, e.pointer), (code, pointer), "{d:?}");
        }
    }

    #[test]
    fn urls() {
        let d = dest(
            Some("acme-prod.servicebus.windows.net"),
            None,
            "sales/orders",
        );
        assert_eq!(
            send_url(&d).as_deref(),
            Some("https://acme-prod.servicebus.windows.net/sales/orders/messages")
        );
        assert_eq!(
            resource_uri(&d).as_deref(),
            Some("https://acme-prod.servicebus.windows.net/sales/orders")
        );
        let t = dest(None, Some("https://127.0.0.1:8443/"), "q");
        assert_eq!(
            send_url(&t).as_deref(),
            Some("https://127.0.0.1:8443/q/messages")
        );
        let creds = EntraCredentials {
            tenant_id: "contoso.onmicrosoft.com".into(),
            client_id: "app".into(),
            client_secret: SecretRef::Secret("c".into()),
            token_url: None,
        };
        assert_eq!(
            token_url(&d, &creds),
            "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
        );
        let cn = dest(Some("acme-prod.servicebus.chinacloudapi.cn"), None, "q");
        assert_eq!(
            token_url(&cn, &creds),
            "https://login.chinacloudapi.cn/contoso.onmicrosoft.com/oauth2/v2.0/token"
        );
    }
}
