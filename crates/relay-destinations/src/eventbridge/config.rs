//! The registration rules of an `eventbridge` destination's fields, pure
//! (the guard's check of the service URL is in `mod.rs`): the bus's name or
//! ARN, the region against the ARN and an AWS host, the `Source` and
//! `DetailType` EventBridge takes; and the service URL requests go to.

use crate::eventbridge::EventBridgeDestination;
use crate::eventbridge::limits::{MAX_BUS_NAME, MAX_BUS_NAME_OR_ARN, MAX_DETAIL_TYPE, MAX_SOURCE};
use crate::s3::config::{authority, valid_region};
use crate::{Invalid, aws};

/// An event bus ARN's parts:
/// `arn:<partition>:events:<region>:<account>:event-bus/<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusArn<'a> {
    pub partition: &'a str,
    pub region: &'a str,
    pub account: &'a str,
    pub name: &'a str,
}

/// Whether `name` is an event bus name: 1 to 256 of `A-Z a-z 0-9 . - _ /`.
pub fn valid_bus_name(name: &str) -> bool {
    (1..=MAX_BUS_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/'))
}

/// Splits an event bus ARN, when it has EventBridge's shape: the partition
/// `aws`, `aws-cn` or `aws-us-gov`, the service `events`, a region, a
/// 12-digit account and `event-bus/<name>`.
pub fn bus_arn(arn: &str) -> Option<BusArn<'_>> {
    let mut parts = arn.splitn(6, ':');
    let (Some("arn"), Some(partition), Some("events"), Some(region), Some(account), Some(resource)) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    let name = resource.strip_prefix("event-bus/")?;
    let valid = arn.len() <= MAX_BUS_NAME_OR_ARN
        && matches!(partition, "aws" | "aws-cn" | "aws-us-gov")
        && valid_region(region)
        && account.len() == 12
        && account.bytes().all(|b| b.is_ascii_digit())
        && valid_bus_name(name);
    valid.then_some(BusArn {
        partition,
        region,
        account,
        name,
    })
}

/// Whether `source` is a `Source` EventBridge takes from Relay: 1 to 256
/// of `A-Z a-z 0-9 . - _ /`, not beginning with `aws.`.
pub fn valid_source(source: &str) -> bool {
    (1..=MAX_SOURCE).contains(&source.len())
        && source
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/'))
        && !source.starts_with("aws.")
}

/// Whether `detail_type` is a `DetailType`: 1 to 128 characters, none a
/// control character.
pub fn valid_detail_type(detail_type: &str) -> bool {
    let n = detail_type.chars().count();
    (1..=MAX_DETAIL_TYPE).contains(&n) && !detail_type.chars().any(char::is_control)
}

/// The region an AWS EventBridge host names (`events.<region>.amazonaws.com`,
/// a VPC endpoint's `….events.<region>.vpce.amazonaws.com`, and their
/// `.com.cn` forms); `Some("")` for another `amazonaws.com` host; `None` for
/// a host that is not AWS's (a compatible service: no region to compare).
pub fn aws_region(host: &str) -> Option<String> {
    let labels = aws::host_labels(host)?;
    Some(
        aws::service_region(&labels, "events")
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
pub fn check(c: &EventBridgeDestination) -> Result<(), Invalid> {
    if !valid_region(&c.region) {
        return Err(invalid(
            "invalid_region",
            "/destination/region",
            "a region is 1 to 64 of a-z, 0-9 and `-`",
        ));
    }
    if c.event_bus.starts_with("arn:") {
        let Some(arn) = bus_arn(&c.event_bus) else {
            return Err(invalid(
                "invalid_event_bus",
                "/destination/event_bus",
                "an event bus ARN is `arn:<aws|aws-cn|aws-us-gov>:events:<region>:<12-digit account id>:event-bus/<name>`, the name 1 to 256 of A-Z, a-z, 0-9, `.`, `-`, `_` and `/`",
            ));
        };
        if arn.region != c.region {
            return Err(invalid(
                "invalid_region",
                "/destination/region",
                format!(
                    "the event bus is in {}: the region must be {}",
                    arn.region, arn.region
                ),
            ));
        }
    } else if !valid_bus_name(&c.event_bus) {
        return Err(invalid(
            "invalid_event_bus",
            "/destination/event_bus",
            "an event bus name is 1 to 256 of A-Z, a-z, 0-9, `.`, `-`, `_` and `/` (or give its ARN)",
        ));
    }
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
                "requests to EventBridge carry credentials: the endpoint URL is https://",
            ));
        }
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split_once(']').map_or(v6, |(h, _)| h),
            None => authority.split(':').next().unwrap_or_default(),
        };
        match aws_region(host) {
            Some(r) if r != c.region => {
                return Err(invalid(
                    "invalid_region",
                    "/destination/endpoint_url",
                    if r.is_empty() {
                        "the endpoint URL's host is an amazonaws.com host that is not EventBridge's (`events.<region>.amazonaws.com`)".to_string()
                    } else {
                        format!(
                            "the endpoint URL's host is in {r}, the destination in {}: they must be the same",
                            c.region
                        )
                    },
                ));
            }
            _ => {}
        }
    }
    if !valid_source(&c.source) {
        return Err(invalid(
            "invalid_source",
            "/destination/source",
            "the source is 1 to 256 of A-Z, a-z, 0-9, `.`, `-`, `_` and `/`, not beginning with `aws.` (EventBridge keeps that prefix for AWS services' events)",
        ));
    }
    if let Some(t) = &c.detail_type
        && !valid_detail_type(t)
    {
        return Err(invalid(
            "invalid_detail_type",
            "/destination/detail_type",
            "the detail type is 1 to 128 characters without control characters",
        ));
    }
    c.credentials.check()?;
    Ok(())
}

/// The URL requests are sent to (the JSON protocol's: the service's root):
/// the endpoint URL's, else AWS's `https://events.<region>.amazonaws.com/`
/// (`.com.cn` in a `cn-` region).
pub fn service_url(c: &EventBridgeDestination) -> Option<String> {
    if let Some(url) = &c.endpoint_url {
        let (scheme, authority) = authority(url)?;
        return Some(format!("{scheme}://{authority}/"));
    }
    if !valid_region(&c.region) {
        return None;
    }
    let suffix = if c.region.starts_with("cn-") {
        ".cn"
    } else {
        ""
    };
    Some(format!(
        "https://events.{}.amazonaws.com{suffix}/",
        c.region
    ))
}

#[cfg(test)]
mod tests;
