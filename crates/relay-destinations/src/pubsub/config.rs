//! The registration rules of a `pubsub` destination's fields, pure (the
//! guard's check of the endpoint and the token URL is in `mod.rs`): the
//! topic's name, the endpoint's shape and region, ordering's need of a
//! regional endpoint.

use crate::Invalid;
use crate::pubsub::{GLOBAL_ENDPOINT, PubsubDestination};

/// A topic's resource name's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic<'a> {
    pub project: &'a str,
    pub topic: &'a str,
}

/// Splits `projects/<project>/topics/<topic>`, when both ids have
/// Google's shapes: a project id of 6 to 30 of `a-z 0-9 -` starting with a
/// letter and not ending with `-` (a domain-scoped one, `example.com:id`,
/// too); a topic id of 3 to 255 of `A-Z a-z 0-9 - _ . ~ + %` starting with
/// a letter, not starting with `goog`.
pub fn topic(name: &str) -> Option<Topic<'_>> {
    let rest = name.strip_prefix("projects/")?;
    let (project, rest) = rest.split_once('/')?;
    let topic = rest.strip_prefix("topics/")?;
    (valid_project(project) && valid_topic(topic)).then_some(Topic { project, topic })
}

/// Whether `p` has the shape of a project id (see [`topic`]).
pub fn valid_project(p: &str) -> bool {
    let id = match p.rsplit_once(':') {
        Some((domain, id)) => {
            let domain_ok = !domain.is_empty()
                && domain.len() <= 253
                && domain.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'
                });
            if !domain_ok {
                return false;
            }
            id
        }
        None => p,
    };
    (6..=30).contains(&id.len())
        && id.as_bytes()[0].is_ascii_lowercase()
        && !id.ends_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn valid_topic(t: &str) -> bool {
    (3..=255).contains(&t.len())
        && t.as_bytes()[0].is_ascii_alphabetic()
        && !t.to_ascii_lowercase().starts_with("goog")
        && t.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'+' | b'%')
        })
}

/// An endpoint's parts: `scheme://authority` (a trailing `/` allowed,
/// nothing else after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint<'a> {
    pub scheme: &'a str,
    /// `host[:port]`.
    pub authority: &'a str,
    pub host: &'a str,
}

/// Splits an endpoint URL: a scheme, an authority without user
/// information, and no path, query or fragment.
pub fn endpoint(url: &str) -> Option<Endpoint<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty() || authority.contains(['@', '?', '#', '/']) {
        return None;
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.0,
        None => authority.split(':').next()?,
    };
    (!host.is_empty()).then_some(Endpoint {
        scheme,
        authority,
        host,
    })
}

/// What a Google host is: `None` for a host that is not
/// `googleapis.com`'s (an emulator behind TLS, a proxy: nothing to
/// compare); `Some(Global)`, `Some(Regional(region))`,
/// `Some(PrivateServiceConnect)` (`….p.googleapis.com`), or
/// `Some(Other)` for a `googleapis.com` host that is not Pub/Sub's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoogleHost {
    Global,
    Regional(String),
    PrivateServiceConnect,
    Other,
}

/// See [`GoogleHost`].
pub fn google_host(host: &str) -> Option<GoogleHost> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let base = host.strip_suffix(".googleapis.com")?;
    Some(if base == "pubsub" {
        GoogleHost::Global
    } else if base.ends_with(".p") && !base.contains("..") {
        GoogleHost::PrivateServiceConnect
    } else if let Some(region) = base.strip_suffix("-pubsub")
        && valid_region(region)
    {
        GoogleHost::Regional(region.to_string())
    } else {
        GoogleHost::Other
    })
}

/// A Google Cloud region's shape: `<area>-<place><digit>` (`europe-west1`,
/// `us-central1`, `northamerica-northeast2`).
pub fn valid_region(r: &str) -> bool {
    let Some((area, place)) = r.split_once('-') else {
        return false;
    };
    let letters = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase());
    let Some(last) = place.bytes().last() else {
        return false;
    };
    letters(area)
        && last.is_ascii_digit()
        && letters(place.trim_end_matches(|c: char| c.is_ascii_digit()))
        && place
            .trim_start_matches(|c: char| c.is_ascii_lowercase())
            .bytes()
            .all(|b| b.is_ascii_digit())
}

fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// The pure checks of the fields, in the order of the schema.
pub fn check(c: &PubsubDestination) -> Result<(), Invalid> {
    if topic(&c.topic).is_none() {
        return Err(invalid(
            "invalid_topic",
            "/destination/topic",
            "a topic is `projects/<project id>/topics/<topic id>`: the project id 6 to 30 of a-z, 0-9 and `-` starting with a letter, the topic id 3 to 255 of A-Z, a-z, 0-9 and `-_.~+%` starting with a letter and not with `goog`",
        ));
    }
    let Some(e) = endpoint(&c.endpoint) else {
        return Err(invalid(
            "invalid_url",
            "/destination/endpoint",
            "an endpoint is `https://host[:port]`, without user information, path, query or fragment",
        ));
    };
    if e.scheme != "https" {
        return Err(invalid(
            "scheme_not_allowed",
            "/destination/endpoint",
            "requests to Pub/Sub carry an access token: the endpoint is https://",
        ));
    }
    let google = google_host(e.host);
    if google == Some(GoogleHost::Other) {
        return Err(invalid(
            "invalid_url",
            "/destination/endpoint",
            "a googleapis.com endpoint is Pub/Sub's: `pubsub.googleapis.com`, `<region>-pubsub.googleapis.com` or a Private Service Connect `….p.googleapis.com`",
        ));
    }
    if c.ordered && google == Some(GoogleHost::Global) {
        return Err(invalid(
            "ordering_needs_regional_endpoint",
            "/destination/ordered",
            format!(
                "Pub/Sub orders messages only within a region: with `ordered`, the endpoint is a regional one, `https://<region>-pubsub.googleapis.com`, not {GLOBAL_ENDPOINT}"
            ),
        ));
    }
    match (&c.service_account_key, c.workload_identity) {
        (Some(_), true) => {
            return Err(invalid(
                "invalid_credentials",
                "/destination/workload_identity",
                "give either a service_account_key or workload_identity, not both",
            ));
        }
        (None, false) => {
            return Err(invalid(
                "invalid_credentials",
                "/destination/service_account_key",
                "give a service_account_key (a secret reference to the account's JSON key), or workload_identity: true where the operator allows it",
            ));
        }
        _ => {}
    }
    if !c.token_url.starts_with("https://") || c.token_url.len() > 2048 {
        return Err(invalid(
            "invalid_token_url",
            "/destination/token_url",
            "the token URL is https://, at most 2048 bytes",
        ));
    }
    Ok(())
}

/// The URL a message is published to:
/// `<scheme>://<authority>/v1/<topic>:publish`.
pub fn publish_url(c: &PubsubDestination) -> Option<String> {
    let e = endpoint(&c.endpoint)?;
    topic(&c.topic)?;
    Some(format!(
        "{}://{}/v1/{}:publish",
        e.scheme, e.authority, c.topic
    ))
}

#[cfg(test)]
mod tests {
    use relay_core::secret::SecretRef;

    use super::*;

    fn dest(topic: &str, endpoint: &str, ordered: bool) -> PubsubDestination {
        PubsubDestination {
            topic: topic.into(),
            endpoint: endpoint.into(),
            service_account_key: Some(SecretRef::Secret("k".into())),
            workload_identity: false,
            token_url: crate::pubsub::GOOGLE_TOKEN_URL.into(),
            ordered,
            content_mode: Default::default(),
        }
    }

    #[test]
    fn a_key_or_the_installations_identity_never_both_nor_neither() {
        let t = "projects/relay-test/topics/events";
        let base = dest(t, crate::pubsub::GLOBAL_ENDPOINT, false);
        assert!(check(&base).is_ok());
        let workload = PubsubDestination {
            service_account_key: None,
            workload_identity: true,
            ..base.clone()
        };
        assert!(check(&workload).is_ok());
        for (d, pointer) in [
            (
                PubsubDestination {
                    workload_identity: true,
                    ..base.clone()
                },
                "/destination/workload_identity",
            ),
            (
                PubsubDestination {
                    service_account_key: None,
                    ..base.clone()
                },
                "/destination/service_account_key",
            ),
        ] {
            let e = check(&d).unwrap_err();
            assert_eq!((e.code, e.pointer), ("invalid_credentials", pointer));
        }
    }

    #[test]
    fn topics() {
        assert_eq!(
            topic("projects/acme-prod/topics/orders.v1"),
            Some(Topic {
                project: "acme-prod",
                topic: "orders.v1"
            })
        );
        assert!(topic("projects/example.com:acme-1/topics/t-1_%+~").is_some());
        for bad in [
            "projects/acme-prod/topics/or",
            "projects/acme/topics/orders",
            "projects/1acme-prod/topics/orders",
            "projects/acme-prod-/topics/orders",
            "projects/Acme-prod/topics/orders",
            "projects/acme-prod/topics/google-x",
            "projects/acme-prod/topics/1orders",
            "projects/acme-prod/topics/ord/ers",
            "projects/acme-prod/topics/ord ers",
            "projects/acme-prod/subscriptions/orders",
            "acme-prod/topics/orders",
            "projects//topics/orders",
        ] {
            assert_eq!(topic(bad), None, "{bad}");
        }
        assert!(topic(&format!("projects/acme-prod/topics/t{}", "x".repeat(255))).is_none());
    }

    #[test]
    fn google_hosts_and_regions() {
        for (host, what) in [
            ("pubsub.googleapis.com", Some(GoogleHost::Global)),
            ("PUBSUB.googleapis.com.", Some(GoogleHost::Global)),
            (
                "europe-west1-pubsub.googleapis.com",
                Some(GoogleHost::Regional("europe-west1".into())),
            ),
            (
                "northamerica-northeast2-pubsub.googleapis.com",
                Some(GoogleHost::Regional("northamerica-northeast2".into())),
            ),
            (
                "pubsub-acme.p.googleapis.com",
                Some(GoogleHost::PrivateServiceConnect),
            ),
            ("storage.googleapis.com", Some(GoogleHost::Other)),
            ("europe-pubsub.googleapis.com", Some(GoogleHost::Other)),
            ("127.0.0.1", None),
            ("pubsub.internal.example", None),
        ] {
            assert_eq!(google_host(host), what, "{host}");
        }
        for (r, ok) in [
            ("us-central1", true),
            ("europe-west10", true),
            ("us", false),
            ("us-central", false),
            ("us-1", false),
            ("US-central1", false),
            ("us-cen1tral1", false),
        ] {
            assert_eq!(valid_region(r), ok, "{r}");
        }
    }

    #[test]
    fn endpoints() {
        let e = endpoint("https://127.0.0.1:8443/").unwrap();
        assert_eq!((e.authority, e.host), ("127.0.0.1:8443", "127.0.0.1"));
        assert_eq!(endpoint("https://[::1]:9").unwrap().host, "::1");
        for bad in [
            "https://pubsub.googleapis.com/v1",
            "https://u@pubsub.googleapis.com",
            "https://pubsub.googleapis.com?x",
            "https://",
            "pubsub.googleapis.com",
        ] {
            assert_eq!(endpoint(bad), None, "{bad}");
        }
    }

    #[test]
    fn checks() {
        let t = "projects/acme-prod/topics/orders";
        assert_eq!(check(&dest(t, GLOBAL_ENDPOINT, false)), Ok(()));
        assert_eq!(
            check(&dest(t, "https://europe-west1-pubsub.googleapis.com", true)),
            Ok(())
        );
        assert_eq!(check(&dest(t, "https://127.0.0.1:8443", true)), Ok(()));
        for (d, code, pointer) in [
            (
                dest("projects/acme-prod/topic/orders", GLOBAL_ENDPOINT, false),
                "invalid_topic",
                "/destination/topic",
            ),
            (
                dest(t, "https://pubsub.googleapis.com/v1/", false),
                "invalid_url",
                "/destination/endpoint",
            ),
            (
                dest(t, "http://127.0.0.1:8085", false),
                "scheme_not_allowed",
                "/destination/endpoint",
            ),
            (
                dest(t, "https://storage.googleapis.com", false),
                "invalid_url",
                "/destination/endpoint",
            ),
            (
                dest(t, GLOBAL_ENDPOINT, true),
                "ordering_needs_regional_endpoint",
                "/destination/ordered",
            ),
            (
                PubsubDestination {
                    token_url: "http://oauth2.googleapis.com/token".into(),
                    ..dest(t, GLOBAL_ENDPOINT, false)
                },
                "invalid_token_url",
                "/destination/token_url",
            ),
        ] {
            let e = check(&d).unwrap_err();
            assert_eq!((e.code, e.pointer), (code, pointer), "{d:?}");
        }
    }

    #[test]
    fn the_publish_url() {
        assert_eq!(
            publish_url(&dest(
                "projects/acme-prod/topics/orders",
                "https://europe-west1-pubsub.googleapis.com/",
                true
            ))
            .as_deref(),
            Some(
                "https://europe-west1-pubsub.googleapis.com/v1/projects/acme-prod/topics/orders:publish"
            )
        );
    }
}
