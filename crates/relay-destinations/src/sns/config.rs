//! The registration rules of an `sns` destination's fields, pure (the
//! guard's check of the service URL is in `mod.rs`): the topic ARN's
//! shape, the service URL (`https://`, no path, an AWS host in the ARN's
//! region), the size bound; and the service URL requests go to.

use crate::s3::config::{authority, valid_region};
use crate::sns::{SNS_MAX_MESSAGE_BYTES, SnsDestination};
use crate::{Invalid, aws};

/// The longest topic name (`.fifo` included).
pub const MAX_TOPIC_NAME: usize = 256;

/// A topic ARN's parts: `arn:<partition>:sns:<region>:<account>:<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicArn<'a> {
    pub partition: &'a str,
    pub region: &'a str,
    pub account: &'a str,
    pub name: &'a str,
}

/// Splits a topic ARN, when it has SNS's shape: the partition `aws`,
/// `aws-cn` or `aws-us-gov`, the service `sns`, a region (1–64 of
/// `a-z 0-9 -`), a 12-digit account and a name of 1 to 256 of
/// `A-Z a-z 0-9 - _` (a FIFO topic's ending in `.fifo`).
pub fn topic_arn(arn: &str) -> Option<TopicArn<'_>> {
    let mut parts = arn.split(':');
    let (Some("arn"), Some(partition), Some("sns"), Some(region), Some(account), Some(name), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    let stem = name.strip_suffix(".fifo").unwrap_or(name);
    let valid = matches!(partition, "aws" | "aws-cn" | "aws-us-gov")
        && valid_region(region)
        && account.len() == 12
        && account.bytes().all(|b| b.is_ascii_digit())
        && (1..=MAX_TOPIC_NAME).contains(&name.len())
        && !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    valid.then_some(TopicArn {
        partition,
        region,
        account,
        name,
    })
}

/// The region an AWS SNS host names (`sns.<region>.amazonaws.com`, a VPC
/// endpoint's `….sns.<region>.vpce.amazonaws.com`, and their `.com.cn`
/// forms); `Some("")` for another `amazonaws.com` host; `None` for a host
/// that is not AWS's (an SNS-compatible service: no region to compare).
pub fn aws_region(host: &str) -> Option<String> {
    let labels = aws::host_labels(host)?;
    Some(
        aws::service_region(&labels, "sns")
            .unwrap_or_default()
            .to_string(),
    )
}

fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// The pure checks of the fields, in the order of the schema.
pub fn check(c: &SnsDestination) -> Result<(), Invalid> {
    let Some(arn) = topic_arn(&c.topic_arn) else {
        return Err(invalid(
            "invalid_topic_arn",
            "/destination/topic_arn",
            "a topic ARN is `arn:<aws|aws-cn|aws-us-gov>:sns:<region>:<12-digit account id>:<topic name>`, the name 1 to 256 of A-Z, a-z, 0-9, `-` and `_` (a FIFO topic's ending in `.fifo`)",
        ));
    };
    if let Some(url) = &c.endpoint_url {
        let Some((scheme, authority)) = authority(url) else {
            return Err(invalid(
                "invalid_url",
                "/destination/endpoint_url",
                "the endpoint URL is `https://host[:port]`, without path, query, fragment or user information",
            ));
        };
        if scheme != "https" {
            return Err(invalid(
                "scheme_not_allowed",
                "/destination/endpoint_url",
                "requests to SNS carry credentials: the endpoint URL is https://",
            ));
        }
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split_once(']').map_or(v6, |(h, _)| h),
            None => authority.split(':').next().unwrap_or_default(),
        };
        match aws_region(host) {
            Some(r) if r != arn.region => {
                return Err(invalid(
                    "invalid_region",
                    "/destination/endpoint_url",
                    if r.is_empty() {
                        "the endpoint URL's host is an amazonaws.com host that is not SNS's (`sns.<region>.amazonaws.com`)".to_string()
                    } else {
                        format!(
                            "the endpoint URL's host is in {r}, the topic in {}: they must be the same",
                            arn.region
                        )
                    },
                ));
            }
            _ => {}
        }
    }
    let (lo, hi) = SNS_MAX_MESSAGE_BYTES;
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

/// The region requests are signed for: the topic ARN's.
pub fn region(c: &SnsDestination) -> Option<&str> {
    topic_arn(&c.topic_arn).map(|a| a.region)
}

/// The URL requests are sent to (the query protocol's: the service's
/// root): the endpoint URL's, else AWS's `https://sns.<region>.amazonaws.com/`
/// (`.com.cn` in the `aws-cn` partition).
pub fn service_url(c: &SnsDestination) -> Option<String> {
    if let Some(url) = &c.endpoint_url {
        let (scheme, authority) = authority(url)?;
        return Some(format!("{scheme}://{authority}/"));
    }
    let arn = topic_arn(&c.topic_arn)?;
    let suffix = if arn.partition == "aws-cn" { ".cn" } else { "" };
    Some(format!("https://sns.{}.amazonaws.com{suffix}/", arn.region))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest(arn: &str, endpoint_url: Option<&str>) -> SnsDestination {
        SnsDestination {
            topic_arn: arn.into(),
            endpoint_url: endpoint_url.map(str::to_string),
            credentials: crate::aws::Credentials::keys(
                relay_core::secret::SecretRef::Secret("k".into()),
                relay_core::secret::SecretRef::Secret("s".into()),
            ),
            content_mode: Default::default(),
            max_message_bytes: 256 * 1024,
        }
    }

    #[test]
    fn topic_arns() {
        let a = topic_arn("arn:aws:sns:eu-west-1:123456789012:orders.fifo").unwrap();
        assert_eq!(
            (a.partition, a.region, a.account, a.name),
            ("aws", "eu-west-1", "123456789012", "orders.fifo")
        );
        assert!(topic_arn("arn:aws-cn:sns:cn-north-1:123456789012:o_1-x").is_some());
        assert!(topic_arn(&format!("arn:aws:sns:r:123456789012:{}", "t".repeat(256))).is_some());
        for bad in [
            "arn:aws:sqs:eu-west-1:123456789012:orders",
            "arn:aws:sns:eu-west-1:12345678901:orders",
            "arn:aws:sns:eu-west-1:123456789012:",
            "arn:aws:sns:eu-west-1:123456789012:.fifo",
            "arn:aws:sns:eu-west-1:123456789012:a.b",
            "arn:aws:sns:eu-west-1:123456789012:orders:sub-id",
            "arn:aws:sns:EU:123456789012:orders",
            "arn:other:sns:eu-west-1:123456789012:orders",
            "arn:aws:sns::123456789012:orders",
            "sns:eu-west-1:123456789012:orders",
            "https://sns.eu-west-1.amazonaws.com/",
        ] {
            assert_eq!(topic_arn(bad), None, "{bad}");
        }
        let long = format!("arn:aws:sns:r:123456789012:{}", "t".repeat(257));
        assert_eq!(topic_arn(&long), None);
    }

    #[test]
    fn regions_of_aws_hosts() {
        for (host, region) in [
            ("sns.eu-west-1.amazonaws.com", Some("eu-west-1")),
            ("SNS.EU-WEST-1.AMAZONAWS.COM", Some("eu-west-1")),
            ("sns.cn-north-1.amazonaws.com.cn", Some("cn-north-1")),
            (
                "vpce-0abc-1234.sns.us-east-2.vpce.amazonaws.com",
                Some("us-east-2"),
            ),
            ("sqs.eu-west-1.amazonaws.com", Some("")),
            ("127.0.0.1", None),
            ("sns.internal.example", None),
        ] {
            assert_eq!(aws_region(host).as_deref(), region, "{host}");
        }
    }

    #[test]
    fn checks() {
        let arn = "arn:aws:sns:eu-west-1:123456789012:orders";
        for ok in [
            dest(arn, None),
            dest(arn, Some("https://sns.eu-west-1.amazonaws.com")),
            dest(arn, Some("https://127.0.0.1:4566/")),
            dest(arn, Some("https://[::1]:4566")),
        ] {
            assert_eq!(check(&ok), Ok(()), "{ok:?}");
        }
        for (d, code, pointer) in [
            (
                dest("arn:aws:sns:eu-west-1:123456789012", None),
                "invalid_topic_arn",
                "/destination/topic_arn",
            ),
            (
                dest(arn, Some("http://127.0.0.1:4566")),
                "scheme_not_allowed",
                "/destination/endpoint_url",
            ),
            (
                dest(arn, Some("https://127.0.0.1:4566/path")),
                "invalid_url",
                "/destination/endpoint_url",
            ),
            (
                dest(arn, Some("https://user@sns.example")),
                "invalid_url",
                "/destination/endpoint_url",
            ),
            (
                dest(arn, Some("https://sns.us-east-1.amazonaws.com")),
                "invalid_region",
                "/destination/endpoint_url",
            ),
            (
                dest(arn, Some("https://s3.eu-west-1.amazonaws.com")),
                "invalid_region",
                "/destination/endpoint_url",
            ),
            (
                SnsDestination {
                    max_message_bytes: 2 * 1024 * 1024,
                    ..dest(arn, None)
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
    fn the_service_url_is_the_endpoint_or_aws() {
        let arn = "arn:aws:sns:eu-west-1:123456789012:orders";
        assert_eq!(
            service_url(&dest(arn, None)).as_deref(),
            Some("https://sns.eu-west-1.amazonaws.com/")
        );
        assert_eq!(
            service_url(&dest("arn:aws-cn:sns:cn-north-1:123456789012:o", None)).as_deref(),
            Some("https://sns.cn-north-1.amazonaws.com.cn/")
        );
        assert_eq!(
            service_url(&dest(arn, Some("https://127.0.0.1:4566"))).as_deref(),
            Some("https://127.0.0.1:4566/")
        );
        assert_eq!(region(&dest(arn, None)), Some("eu-west-1"));
    }
}
