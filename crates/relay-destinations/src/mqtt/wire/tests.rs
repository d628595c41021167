use proptest::prelude::*;

use super::*;

const V5: MqttVersion = MqttVersion::V5;
const V3: MqttVersion = MqttVersion::V311;

fn raw(bytes: &[u8]) -> Raw {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut r = bytes;
        read(&mut r, MAX_REMAINING).await.unwrap()
    })
}

#[test]
fn remaining_lengths_are_variable_integers() {
    // §1.5.5's boundaries.
    for (n, bytes) in [
        (0usize, vec![0x00]),
        (127, vec![0x7F]),
        (128, vec![0x80, 0x01]),
        (16_383, vec![0xFF, 0x7F]),
        (16_384, vec![0x80, 0x80, 0x01]),
        (2_097_152, vec![0x80, 0x80, 0x80, 0x01]),
        (MAX_REMAINING, vec![0xFF, 0xFF, 0xFF, 0x7F]),
    ] {
        let mut out = Vec::new();
        put_varint(&mut out, n);
        assert_eq!(out, bytes, "{n}");
        assert_eq!(Cur(&bytes).varint("n"), Ok(n));
    }
    assert!(Cur(&[0xFF, 0xFF, 0xFF, 0xFF, 0x01]).varint("n").is_err());
}

#[test]
fn a_311_connect_is_byte_for_byte_the_specification() {
    // §3.1 (3.1.1): "MQTT", level 4, flags (user name, password, clean
    // session), keep alive, then the payload's strings.
    let c = connect(&Connect {
        version: V3,
        client_id: "relay1",
        username: Some("u"),
        password: Some(b"p"),
        keep_alive_secs: 30,
        clean_start: true,
        session_expiry_secs: 0,
    });
    let mut want = vec![0x10, 24, 0, 4, b'M', b'Q', b'T', b'T', 4, 0xC2, 0, 30];
    want.extend_from_slice(&[
        0, 6, b'r', b'e', b'l', b'a', b'y', b'1', 0, 1, b'u', 0, 1, b'p',
    ]);
    assert_eq!(c, want);
}

#[test]
fn a_5_connect_has_a_property_section() {
    let c = connect(&Connect {
        version: V5,
        client_id: "c",
        username: None,
        password: None,
        keep_alive_secs: 60,
        clean_start: false,
        session_expiry_secs: 3600,
    });
    assert_eq!(
        c,
        vec![
            0x10, 19, 0, 4, b'M', b'Q', b'T', b'T', 5, 0x00, 0, 60, 5, 0x11, 0, 0, 0x0E, 0x10, 0,
            1, b'c'
        ]
    );
}

#[test]
fn a_publish_reads_back_as_sent() {
    let props = Properties {
        content_type: Some("application/json".into()),
        user: vec![
            ("webhook-id".into(), "evt_1".into()),
            ("specversion".into(), "1.0".into()),
        ],
    };
    let p = publish(V5, "relay/live/order.shipped", 513, &props, b"{\"a\":1}");
    assert_eq!(p[0], 0x32, "PUBLISH, QoS 1");
    match decode(V5, &raw(&p)).unwrap() {
        Incoming::Publish {
            topic,
            qos,
            id,
            props: got,
            payload,
        } => {
            assert_eq!(topic, "relay/live/order.shipped");
            assert_eq!((qos, id), (1, Some(513)));
            assert_eq!(got, props);
            assert_eq!(got.user("webhook-id"), Some("evt_1"));
            assert_eq!(payload, b"{\"a\":1}");
        }
        other => panic!("{other:?}"),
    }
    // 3.1.1 has no properties: only the topic, the id and the payload.
    let p = publish(V3, "t", 1, &props, b"x");
    assert_eq!(p, vec![0x32, 6, 0, 1, b't', 0, 1, b'x']);
}

#[test]
fn pubacks_with_and_without_a_reason() {
    // 3.1.1, and MQTT 5's short form (§3.4.2.1: no reason code = success).
    assert_eq!(
        decode(V3, &raw(&[0x40, 2, 0x01, 0x02])).unwrap(),
        Incoming::PubAck {
            id: 258,
            code: 0,
            reason: None
        }
    );
    assert_eq!(
        decode(V5, &raw(&[0x40, 2, 0, 7])).unwrap(),
        Incoming::PubAck {
            id: 7,
            code: 0,
            reason: None
        }
    );
    // 0x10 without properties, then 0x87 with a reason string.
    assert_eq!(
        decode(V5, &raw(&[0x40, 3, 0, 7, 0x10])).unwrap(),
        Incoming::PubAck {
            id: 7,
            code: 0x10,
            reason: None
        }
    );
    let mut p = vec![0x40, 11, 0, 9, 0x87, 7, 0x1F, 0, 4];
    p.extend_from_slice(b"deny");
    assert_eq!(
        decode(V5, &raw(&p)).unwrap(),
        Incoming::PubAck {
            id: 9,
            code: 0x87,
            reason: Some("deny".into())
        }
    );
    assert_eq!(puback(V5, 9, 0), vec![0x40, 2, 0, 9]);
    assert_eq!(puback(V5, 9, 0x10), vec![0x40, 3, 0, 9, 0x10]);
    assert_eq!(puback(V3, 9, 0x10), vec![0x40, 2, 0, 9]);
}

#[test]
fn a_5_connack_says_the_servers_limits() {
    let p = [
        0x20, 16, 0, 0, 13, 0x21, 0, 20, 0x27, 0, 1, 0, 0, 0x24, 0, 0x13, 0, 10,
    ];
    assert_eq!(
        decode(V5, &raw(&p)).unwrap(),
        Incoming::ConnAck {
            session_present: false,
            code: 0,
            props: ConnAckProps {
                receive_maximum: Some(20),
                maximum_packet_size: Some(65_536),
                maximum_qos: Some(0),
                server_keep_alive: Some(10),
                ..ConnAckProps::default()
            }
        }
    );
    // A refusal in 3.1.1 form to a 5 CONNECT: no properties.
    assert!(matches!(
        decode(V5, &raw(&[0x20, 2, 0, 1])).unwrap(),
        Incoming::ConnAck { code: 1, .. }
    ));
    assert!(matches!(
        decode(V3, &raw(&[0x20, 2, 1, 5])).unwrap(),
        Incoming::ConnAck {
            session_present: true,
            code: 5,
            ..
        }
    ));
}

#[test]
fn disconnects_subacks_and_pings() {
    assert_eq!(
        decode(V5, &raw(&[0xE0, 0])).unwrap(),
        Incoming::Disconnect {
            code: 0,
            reason: None
        }
    );
    assert_eq!(
        decode(V5, &raw(&[0xE0, 1, 0x8B])).unwrap(),
        Incoming::Disconnect {
            code: 0x8B,
            reason: None
        }
    );
    assert_eq!(
        decode(V5, &raw(&[0x90, 4, 0, 3, 0, 1])).unwrap(),
        Incoming::SubAck {
            id: 3,
            codes: vec![1]
        }
    );
    assert_eq!(decode(V3, &raw(&[0xD0, 0])).unwrap(), Incoming::PingResp);
    assert_eq!(PINGREQ, [0xC0, 0]);
    let s = subscribe(V5, 1, "relay/#");
    assert_eq!(s[0], 0x82);
    assert_eq!(*s.last().unwrap(), 1, "QoS 1");
}

#[tokio::test]
async fn a_packet_larger_than_accepted_is_refused_before_it_is_read() {
    let mut r: &[u8] = &[0x30, 0xFF, 0xFF, 0xFF, 0x7F];
    let e = read(&mut r, 1 << 20).await.unwrap_err();
    assert!(e.to_string().contains("larger than"), "{e}");
    let mut r: &[u8] = &[0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];
    assert!(read(&mut r, MAX_REMAINING).await.is_err());
}

proptest! {
    /// Whatever a server sends, decoding answers, never panics.
    #[test]
    fn decoding_never_panics(first in any::<u8>(), body in proptest::collection::vec(any::<u8>(), 0..64)) {
        let raw = Raw { first, body };
        let _ = decode(V5, &raw);
        let _ = decode(V3, &raw);
    }
}
