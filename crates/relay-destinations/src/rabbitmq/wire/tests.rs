use super::*;

#[test]
fn a_method_frame_is_type_channel_size_payload_end() {
    let f = method_frame(1, id::CONFIRM_SELECT, Args::new().bits(&[false]));
    assert_eq!(f, [1, 0, 1, 0, 0, 0, 5, 0, 85, 0, 10, 0, 0xCE]);
}

#[test]
fn bits_pack_into_one_octet_low_bit_first() {
    let Args(b) = Args::new().bits(&[true, false, true]);
    assert_eq!(b, [0b101]);
    let mut r = Reader::new(&[0b101, 7]);
    assert_eq!(
        (r.bit(), r.bit(), r.bit(), r.octet()),
        (Ok(true), Ok(false), Ok(true), Ok(7))
    );
}

#[test]
fn tables_and_content_headers_read_back() {
    let headers = Table::new()
        .with("webhook-id", Value::Str(b"evt_1".to_vec()))
        .with("n", Value::Int(-3))
        .with(
            "nested",
            Value::Table(Table::new().with("b", Value::Bool(true))),
        );
    let p = Properties {
        content_type: Some("application/cloudevents+json".into()),
        headers: Some(headers.clone()),
        delivery_mode: Some(2),
        message_id: Some("evt_1".into()),
        timestamp: Some(1_800_000_000),
        kind: Some("order.shipped".into()),
        app_id: Some("relay".into()),
    };
    let bytes = content_header(42, &p);
    let (size, back) = Reader::new(&bytes).content_header().unwrap();
    assert_eq!(size, 42);
    assert_eq!(back, p);
    assert_eq!(back.headers.unwrap().str("webhook-id"), Some(&b"evt_1"[..]));
}

#[test]
fn truncated_input_is_malformed_not_a_panic() {
    let bytes = content_header(
        1,
        &Properties {
            headers: Some(Table::new().with("k", Value::Str(b"v".to_vec()))),
            ..Properties::default()
        },
    );
    for n in 0..bytes.len() {
        assert_eq!(
            Reader::new(&bytes[..n]).content_header(),
            Err(Malformed),
            "{n}"
        );
    }
    // An unknown field type.
    let mut r = Reader::new(&[0, 0, 0, 3, 1, b'k', b'?']);
    assert_eq!(r.table(), Err(Malformed));
}

#[test]
fn rabbitmq_integer_types_decode() {
    // s (i16), I (i32), l (i64), t (bool)
    let mut t = vec![];
    for (name, ty, v) in [
        (b'a', b's', &[0, 5][..]),
        (b'b', b'I', &[0, 0, 0, 6][..]),
        (b'c', b'l', &[0, 0, 0, 0, 0, 0, 0, 7][..]),
        (b'd', b't', &[1][..]),
    ] {
        t.extend([1, name, ty]);
        t.extend_from_slice(v);
    }
    let mut bytes = (t.len() as u32).to_be_bytes().to_vec();
    bytes.extend(t);
    let table = Reader::new(&bytes).table().unwrap();
    assert_eq!(table.get("a"), Some(&Value::Int(5)));
    assert_eq!(table.get("b"), Some(&Value::Int(6)));
    assert_eq!(table.get("c"), Some(&Value::Int(7)));
    assert_eq!(table.get("d"), Some(&Value::Bool(true)));
}
