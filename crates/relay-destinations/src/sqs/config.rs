//! The registration rules of an `sqs` destination's fields, pure (the
//! guard's check of the URL is in `mod.rs`): the queue URL's shape, the
//! region against an AWS host, the size bound.

use crate::s3::config::valid_region;
use crate::sqs::{SQS_MAX_MESSAGE_BYTES, SqsDestination};
use crate::{Invalid, aws};

/// The longest queue name (`.fifo` included).
pub const MAX_QUEUE_NAME: usize = 80;

/// A queue URL's parts: `https://<authority>/<account>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueUrl<'a> {
    pub scheme: &'a str,
    /// `host[:port]`.
    pub authority: &'a str,
    pub host: &'a str,
    pub account: &'a str,
    pub name: &'a str,
}

/// Splits a queue URL, when it has the shape SQS gives: a scheme, an
/// authority without user information, and the path `/<account>/<name>`
/// (the account 12 digits, the name 1 to 80 of `A-Z a-z 0-9 - _`, a FIFO
/// queue's ending in `.fifo`), no query or fragment.
pub fn queue_url(url: &str) -> Option<QueueUrl<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    let (authority, path) = rest.split_once('/')?;
    if authority.is_empty() || authority.contains(['@', '?', '#']) || path.contains(['?', '#']) {
        return None;
    }
    let (account, name) = path.split_once('/')?;
    let stem = name.strip_suffix(".fifo").unwrap_or(name);
    let valid = account.len() == 12
        && account.bytes().all(|b| b.is_ascii_digit())
        && (1..=MAX_QUEUE_NAME).contains(&name.len())
        && !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.0,
        None => authority.split(':').next()?,
    };
    valid.then_some(QueueUrl {
        scheme,
        authority,
        host,
        account,
        name,
    })
}

/// The region an AWS SQS host names: `sqs.<region>.amazonaws.com`,
/// `<region>.queue.amazonaws.com`, a VPC endpoint's
/// `….sqs.<region>.vpce.amazonaws.com` (and their `.com.cn` forms);
/// `queue.amazonaws.com` is `us-east-1`. `None` for a host that is not
/// AWS's (an SQS-compatible service: no region to compare).
pub fn aws_region(host: &str) -> Option<String> {
    let labels = aws::host_labels(host)?;
    Some(match labels.as_slice() {
        [q] if q == "queue" => "us-east-1".to_string(),
        [region, q] if q == "queue" => region.clone(),
        _ => aws::service_region(&labels, "sqs")
            .unwrap_or_default()
            .to_string(),
    })
}

fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// The pure checks of the fields, in the order of the schema.
pub fn check(c: &SqsDestination) -> Result<(), Invalid> {
    let Some(q) = queue_url(&c.queue_url) else {
        return Err(invalid(
            "invalid_url",
            "/destination/queue_url",
            "a queue URL is `https://host[:port]/<12-digit account id>/<queue name>`, the name 1 to 80 of A-Z, a-z, 0-9, `-` and `_` (a FIFO queue's ending in `.fifo`), without user information, query or fragment",
        ));
    };
    if q.scheme != "https" {
        return Err(invalid(
            "scheme_not_allowed",
            "/destination/queue_url",
            "requests to SQS carry credentials: the queue URL is https://",
        ));
    }
    if !valid_region(&c.region) {
        return Err(invalid(
            "invalid_region",
            "/destination/region",
            "a region is 1 to 64 of a-z, 0-9 and `-`",
        ));
    }
    match aws_region(q.host) {
        Some(r) if r != c.region => {
            return Err(invalid(
                "invalid_region",
                "/destination/region",
                if r.is_empty() {
                    "the queue URL's host is an amazonaws.com host that is not SQS's (`sqs.<region>.amazonaws.com`)".to_string()
                } else {
                    format!("the queue URL's host is in {r}: the region must be {r}")
                },
            ));
        }
        _ => {}
    }
    let (lo, hi) = SQS_MAX_MESSAGE_BYTES;
    if !(lo..=hi).contains(&c.max_message_bytes) {
        return Err(invalid(
            "invalid_max_message_bytes",
            "/destination/max_message_bytes",
            format!("max_message_bytes is {lo} to {hi}"),
        ));
    }
    c.credentials.check()?;
    Ok(())
}

/// The URL requests are sent to (the JSON protocol's: the service's root,
/// the queue in the request's body): `scheme://authority/`.
pub fn service_url(c: &SqsDestination) -> Option<String> {
    let q = queue_url(&c.queue_url)?;
    Some(format!("{}://{}/", q.scheme, q.authority))
}

#[cfg(test)]
mod tests {
    use relay_core::secret::SecretRef;

    use super::*;

    fn dest(url: &str, region: &str) -> SqsDestination {
        SqsDestination {
            queue_url: url.into(),
            region: region.into(),
            credentials: crate::aws::Credentials::keys(
                SecretRef::Secret("k".into()),
                SecretRef::Secret("s".into()),
            ),
            content_mode: Default::default(),
            max_message_bytes: 256 * 1024,
        }
    }

    #[test]
    fn queue_urls() {
        let q = queue_url("https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo").unwrap();
        assert_eq!(
            (q.scheme, q.authority, q.host, q.account, q.name),
            (
                "https",
                "sqs.eu-west-1.amazonaws.com",
                "sqs.eu-west-1.amazonaws.com",
                "123456789012",
                "orders.fifo"
            )
        );
        let q = queue_url("https://127.0.0.1:4566/000000000000/q_1-a").unwrap();
        assert_eq!((q.host, q.authority), ("127.0.0.1", "127.0.0.1:4566"));
        assert_eq!(
            queue_url("https://[::1]:9/000000000000/q").unwrap().host,
            "::1"
        );
        for bad in [
            "https://sqs.eu-west-1.amazonaws.com/123456789012",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/",
            "https://sqs.eu-west-1.amazonaws.com/12345678901/q",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/q/x",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/q?x=1",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/q#f",
            "https://user@sqs.eu-west-1.amazonaws.com/123456789012/q",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/q.txt",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/.fifo",
            "https:///123456789012/q",
            "sqs.eu-west-1.amazonaws.com/123456789012/q",
        ] {
            assert_eq!(queue_url(bad), None, "{bad}");
        }
        let long = format!("https://h/123456789012/{}", "q".repeat(81));
        assert_eq!(queue_url(&long), None);
    }

    #[test]
    fn regions_of_aws_hosts() {
        for (host, region) in [
            ("sqs.eu-west-1.amazonaws.com", Some("eu-west-1")),
            ("SQS.EU-WEST-1.AMAZONAWS.COM", Some("eu-west-1")),
            ("eu-west-1.queue.amazonaws.com", Some("eu-west-1")),
            ("queue.amazonaws.com", Some("us-east-1")),
            ("sqs.cn-north-1.amazonaws.com.cn", Some("cn-north-1")),
            (
                "vpce-0abc-1234.sqs.us-east-2.vpce.amazonaws.com",
                Some("us-east-2"),
            ),
            ("s3.eu-west-1.amazonaws.com", Some("")),
            ("127.0.0.1", None),
            ("sqs.internal.example", None),
        ] {
            assert_eq!(aws_region(host).as_deref(), region, "{host}");
        }
    }

    #[test]
    fn checks() {
        assert_eq!(
            check(&dest(
                "https://sqs.eu-west-1.amazonaws.com/123456789012/q",
                "eu-west-1"
            )),
            Ok(())
        );
        assert_eq!(
            check(&dest("https://127.0.0.1:4566/123456789012/q", "us-east-1")),
            Ok(())
        );
        for (d, code, pointer) in [
            (
                dest("https://sqs.eu-west-1.amazonaws.com/q", "eu-west-1"),
                "invalid_url",
                "/destination/queue_url",
            ),
            (
                dest("http://127.0.0.1:4566/123456789012/q", "us-east-1"),
                "scheme_not_allowed",
                "/destination/queue_url",
            ),
            (
                dest(
                    "https://sqs.eu-west-1.amazonaws.com/123456789012/q",
                    "us-east-1",
                ),
                "invalid_region",
                "/destination/region",
            ),
            (
                dest(
                    "https://s3.eu-west-1.amazonaws.com/123456789012/q",
                    "eu-west-1",
                ),
                "invalid_region",
                "/destination/region",
            ),
            (
                dest("https://h.example/123456789012/q", "EU"),
                "invalid_region",
                "/destination/region",
            ),
            (
                SqsDestination {
                    max_message_bytes: 2 * 1024 * 1024,
                    ..dest("https://h.example/123456789012/q", "eu-west-1")
                },
                "invalid_max_message_bytes",
                "/destination/max_message_bytes",
            ),
            (
                SqsDestination {
                    credentials: crate::aws::Credentials {
                        role_arn: Some("arn:aws:iam::123456789012:role/relay".into()),
                        ..dest("https://h.example/123456789012/q", "eu-west-1").credentials
                    },
                    ..dest("https://h.example/123456789012/q", "eu-west-1")
                },
                "invalid_credentials",
                "/destination/role_arn",
            ),
            (
                SqsDestination {
                    credentials: crate::aws::Credentials::role(
                        "arn:aws:iam::123456789012:user/relay",
                    ),
                    ..dest("https://h.example/123456789012/q", "eu-west-1")
                },
                "invalid_role_arn",
                "/destination/role_arn",
            ),
            (
                SqsDestination {
                    credentials: crate::aws::Credentials {
                        secret_access_key: None,
                        ..dest("https://h.example/123456789012/q", "eu-west-1").credentials
                    },
                    ..dest("https://h.example/123456789012/q", "eu-west-1")
                },
                "invalid_credentials",
                "/destination/secret_access_key",
            ),
        ] {
            let e = check(&d).unwrap_err();
            assert_eq!((e.code, e.pointer), (code, pointer), "{d:?}");
        }
        assert_eq!(
            check(&SqsDestination {
                credentials: crate::aws::Credentials::role("arn:aws:iam::123456789012:role/relay"),
                ..dest("https://h.example/123456789012/q", "eu-west-1")
            }),
            Ok(())
        );
    }

    #[test]
    fn the_service_url_is_the_root() {
        assert_eq!(
            service_url(&dest("https://127.0.0.1:4566/123456789012/q.fifo", "r")).as_deref(),
            Some("https://127.0.0.1:4566/")
        );
    }
}
