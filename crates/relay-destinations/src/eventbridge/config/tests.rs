use super::*;

fn dest(bus: &str, region: &str, endpoint_url: Option<&str>) -> EventBridgeDestination {
    EventBridgeDestination {
        event_bus: bus.into(),
        region: region.into(),
        endpoint_url: endpoint_url.map(str::to_string),
        source: "com.acme.orders".into(),
        detail_type: None,
        credentials: crate::aws::Credentials::keys(
            relay_core::secret::SecretRef::Secret("k".into()),
            relay_core::secret::SecretRef::Secret("s".into()),
        ),
    }
}

#[test]
fn bus_arns() {
    let a = bus_arn("arn:aws:events:eu-west-1:123456789012:event-bus/orders").unwrap();
    assert_eq!(
        (a.partition, a.region, a.account, a.name),
        ("aws", "eu-west-1", "123456789012", "orders")
    );
    assert!(
        bus_arn("arn:aws:events:us-east-1:123456789012:event-bus/aws.partner/acme.com/x").is_some()
    );
    for bad in [
        "arn:aws:events:eu-west-1:123456789012:rule/orders",
        "arn:aws:events:eu-west-1:12345678901:event-bus/orders",
        "arn:aws:events:eu-west-1:123456789012:event-bus/",
        "arn:aws:events:eu-west-1:123456789012:event-bus/a b",
        "arn:aws:sns:eu-west-1:123456789012:event-bus/orders",
        "arn:other:events:eu-west-1:123456789012:event-bus/orders",
        "arn:aws:events::123456789012:event-bus/orders",
        "orders",
    ] {
        assert_eq!(bus_arn(bad), None, "{bad}");
    }
}

#[test]
fn sources_and_detail_types() {
    for (s, ok) in [
        ("com.acme.orders", true),
        ("acme/orders_v2-x", true),
        (&"s".repeat(256) as &str, true),
        (&"s".repeat(257), false),
        ("", false),
        ("aws.s3", false),
        ("awsome.orders", true),
        ("com.acme orders", false),
        ("com.acme:orders", false),
        ("ç.acme", false),
    ] {
        assert_eq!(valid_source(s), ok, "{s}");
    }
    for (t, ok) in [
        ("order.shipped", true),
        ("Order Shipped (v2) ✓", true),
        (&"t".repeat(128) as &str, true),
        (&"é".repeat(128), true),
        (&"t".repeat(129), false),
        ("", false),
        ("a\nb", false),
    ] {
        assert_eq!(valid_detail_type(t), ok, "{t}");
    }
}

#[test]
fn regions_of_aws_hosts() {
    for (host, region) in [
        ("events.eu-west-1.amazonaws.com", Some("eu-west-1")),
        ("EVENTS.EU-WEST-1.AMAZONAWS.COM", Some("eu-west-1")),
        ("events.cn-north-1.amazonaws.com.cn", Some("cn-north-1")),
        (
            "vpce-0abc-1234.events.us-east-2.vpce.amazonaws.com",
            Some("us-east-2"),
        ),
        ("sqs.eu-west-1.amazonaws.com", Some("")),
        ("127.0.0.1", None),
    ] {
        assert_eq!(aws_region(host).as_deref(), region, "{host}");
    }
}

#[test]
fn checks() {
    let arn = "arn:aws:events:eu-west-1:123456789012:event-bus/orders";
    for ok in [
        dest("default", "eu-west-1", None),
        dest(arn, "eu-west-1", None),
        dest(
            "orders",
            "eu-west-1",
            Some("https://events.eu-west-1.amazonaws.com"),
        ),
        dest("orders", "us-east-1", Some("https://127.0.0.1:4566/")),
        EventBridgeDestination {
            detail_type: Some("Order Shipped".into()),
            ..dest("orders", "eu-west-1", None)
        },
    ] {
        assert_eq!(check(&ok), Ok(()), "{ok:?}");
    }
    for (d, code, pointer) in [
        (
            dest("orders", "EU", None),
            "invalid_region",
            "/destination/region",
        ),
        (
            dest(
                "arn:aws:events:eu-west-1:123456789012:bus/x",
                "eu-west-1",
                None,
            ),
            "invalid_event_bus",
            "/destination/event_bus",
        ),
        (
            dest(arn, "us-east-1", None),
            "invalid_region",
            "/destination/region",
        ),
        (
            dest("my bus", "eu-west-1", None),
            "invalid_event_bus",
            "/destination/event_bus",
        ),
        (
            dest("orders", "eu-west-1", Some("http://127.0.0.1:4566")),
            "scheme_not_allowed",
            "/destination/endpoint_url",
        ),
        (
            dest("orders", "eu-west-1", Some("https://127.0.0.1:4566/path")),
            "invalid_url",
            "/destination/endpoint_url",
        ),
        (
            dest(
                "orders",
                "eu-west-1",
                Some("https://events.us-east-1.amazonaws.com"),
            ),
            "invalid_region",
            "/destination/endpoint_url",
        ),
        (
            dest(
                "orders",
                "eu-west-1",
                Some("https://sns.eu-west-1.amazonaws.com"),
            ),
            "invalid_region",
            "/destination/endpoint_url",
        ),
        (
            EventBridgeDestination {
                source: "aws.orders".into(),
                ..dest("orders", "eu-west-1", None)
            },
            "invalid_source",
            "/destination/source",
        ),
        (
            EventBridgeDestination {
                detail_type: Some(String::new()),
                ..dest("orders", "eu-west-1", None)
            },
            "invalid_detail_type",
            "/destination/detail_type",
        ),
        (
            EventBridgeDestination {
                credentials: crate::aws::Credentials {
                    role_arn: Some("arn:aws:iam::123456789012:role/relay".into()),
                    ..dest("orders", "eu-west-1", None).credentials
                },
                ..dest("orders", "eu-west-1", None)
            },
            "invalid_credentials",
            "/destination/role_arn",
        ),
    ] {
        let e = check(&d).unwrap_err();
        assert_eq!((e.code, e.pointer), (code, pointer), "{d:?}");
    }
}

#[test]
fn the_service_url_is_the_endpoint_or_aws() {
    assert_eq!(
        service_url(&dest("orders", "eu-west-1", None)).as_deref(),
        Some("https://events.eu-west-1.amazonaws.com/")
    );
    assert_eq!(
        service_url(&dest("orders", "cn-north-1", None)).as_deref(),
        Some("https://events.cn-north-1.amazonaws.com.cn/")
    );
    assert_eq!(
        service_url(&dest("orders", "eu-west-1", Some("https://127.0.0.1:4566"))).as_deref(),
        Some("https://127.0.0.1:4566/")
    );
}
