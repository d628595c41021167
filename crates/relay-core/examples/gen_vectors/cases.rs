//! The cases of `sdks/vectors.json`: a table, section by section (valid
//! requests, tampering and wrong keys, malformed headers, timestamps,
//! missing headers), then the key strings a verifier must accept or refuse.

use base64::Engine as _;

use super::*;

impl Gen {
    pub(crate) fn generate(&mut self) {
        let k = &self.keys;
        let (ed_a, ed_b, ed_new) = (&k.ed_a.clone(), &k.ed_b.clone(), &k.ed_new.clone());
        let (hmac_a, hmac_b) = (&k.hmac_a.clone(), &k.hmac_b.clone());
        let (hmac_24, hmac_64) = (&k.hmac_24.clone(), &k.hmac_64.clone());
        let id = self.id.clone();
        let body = self.body.clone();
        let now_s = NOW.to_string();

        // --- Valid requests.
        self.simple(
            "v1a_valid",
            "v1a (Ed25519), one key",
            &[ed_a],
            &[ed_a],
            "valid",
        );
        self.simple(
            "v1_valid",
            "v1 (HMAC-SHA256), one key",
            &[hmac_a],
            &[hmac_a],
            "valid",
        );
        self.simple(
            "v1_secret_24_bytes",
            "the shortest HMAC secret",
            &[hmac_24],
            &[hmac_24],
            "valid",
        );
        self.simple(
            "v1_secret_64_bytes",
            "the longest HMAC secret",
            &[hmac_64],
            &[hmac_64],
            "valid",
        );
        self.simple(
            "rotation_v1a_verifier_has_both_keys",
            "rotation overlap: `v1a,<new> v1a,<old>`; the consumer configured both keys",
            &[ed_new, ed_a],
            &[ed_new, ed_a],
            "valid",
        );
        self.simple(
            "rotation_v1a_verifier_has_old_key_only",
            "rotation overlap, consumer not yet updated: the old key's signature (second entry) verifies",
            &[ed_new, ed_a],
            &[ed_a],
            "valid",
        );
        self.simple(
            "rotation_v1a_verifier_has_new_key_only",
            "rotation overlap, consumer already switched: the new key's signature (first entry) verifies",
            &[ed_new, ed_a],
            &[ed_new],
            "valid",
        );
        self.simple(
            "rotation_v1_verifier_has_both_secrets",
            "v1 rotation overlap: `v1,<new> v1,<old>`",
            &[hmac_b, hmac_a],
            &[hmac_a, hmac_b],
            "valid",
        );
        self.simple(
            "rotation_v1_to_v1a_verifier_has_v1_only",
            "scheme switch during the overlap: `v1a,<new> v1,<old>`, consumer still on the HMAC secret",
            &[ed_new, hmac_a],
            &[hmac_a],
            "valid",
        );
        self.simple(
            "rotation_v1_to_v1a_verifier_has_v1a_only",
            "scheme switch during the overlap: `v1a,<new> v1,<old>`, consumer already on the public key",
            &[ed_new, hmac_a],
            &[ed_new],
            "valid",
        );
        self.simple(
            "several_keys_both_schemes",
            "a verifier with four keys of both schemes; one of them signed",
            &[ed_a],
            &[hmac_b, ed_b, ed_a, hmac_a],
            "valid",
        );
        for (name, offset, description) in [
            (
                "timestamp_at_past_edge",
                -TOLERANCE,
                "exactly 300 s old: the tolerance is inclusive",
            ),
            (
                "timestamp_at_future_edge",
                TOLERANCE,
                "exactly 300 s ahead: the tolerance is inclusive",
            ),
        ] {
            let ts = (NOW + offset).to_string();
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                name,
                description,
                &[ed_a],
                headers(&id, &ts, &sig),
                &body,
                NOW,
                None,
                "valid",
            );
        }
        {
            let ts = (NOW - 500).to_string();
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                "tolerance_600_accepts_500_seconds_old",
                "a verifier configured with a 600 s tolerance",
                &[ed_a],
                headers(&id, &ts, &sig),
                &body,
                NOW,
                Some(600),
                "valid",
            );
            let ts = (NOW - 61).to_string();
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                "tolerance_60_rejects_61_seconds_old",
                "a verifier configured with a 60 s tolerance",
                &[ed_a],
                headers(&id, &ts, &sig),
                &body,
                NOW,
                Some(60),
                "timestamp_too_old",
            );
        }
        let fake64 = BASE64.encode([0x5a; 64]);
        let fake32 = BASE64.encode([0x5a; 32]);
        self.with_signature(
            "unknown_versions_before_valid",
            "entries of unknown versions are skipped",
            ed_a,
            &[ed_a],
            |good| format!("v2,{fake64} v1b,{fake32} {good}"),
            "valid",
        );
        self.with_signature(
            "garbage_entries_around_valid",
            "malformed entries are skipped",
            hmac_a,
            &[hmac_a],
            |good| format!("garbage v1 v1, ,{fake32} v1,!!!! {good} v1a,"),
            "valid",
        );
        self.with_signature(
            "double_space_between_entries",
            "an empty entry between two spaces is skipped",
            ed_a,
            &[ed_a],
            |good| format!("v2,{fake64}  {good}"),
            "valid",
        );
        self.with_signature(
            "wrong_signature_then_valid",
            "a v1a entry that does not verify, then one that does",
            ed_a,
            &[ed_a],
            |good| format!("v1a,{fake64} {good}"),
            "valid",
        );
        for (name, description, b) in [
            ("empty_body", "an empty body", Vec::new()),
            (
                "unicode_body",
                "a body with non-ASCII UTF-8 and a newline, signed as raw bytes",
                "{\"name\":\"Zoë ✓ 😀\",\n\"city\":\"Kraków\"}"
                    .as_bytes()
                    .to_vec(),
            ),
            (
                "binary_body",
                "a body that is not UTF-8 (given as body_base64)",
                vec![0x00, 0xff, 0xfe, 0x80, b'{', b'}', 0x0a, 0xc3],
            ),
        ] {
            let sig = sign_at(&[ed_a], &id, &now_s, &b);
            self.push(
                name,
                description,
                &[ed_a],
                headers(&id, &now_s, &sig),
                &b,
                NOW,
                None,
                "valid",
            );
        }
        {
            let sig = sign_at(&[hmac_a], &id, &now_s, &body);
            self.push(
                "header_names_mixed_case",
                "header names are case-insensitive",
                &[hmac_a],
                vec![
                    ("Webhook-Id".into(), id.clone()),
                    ("WEBHOOK-TIMESTAMP".into(), now_s.clone()),
                    ("Webhook-Signature".into(), sig),
                ],
                &body,
                NOW,
                None,
                "valid",
            );
            let dotted = "msg.with.dots";
            let sig = sign_at(&[ed_a], dotted, &now_s, &body);
            self.push(
                "webhook_id_with_dots",
                "the id is signed as given, dots included",
                &[ed_a],
                headers(dotted, &now_s, &sig),
                &body,
                NOW,
                None,
                "valid",
            );
            let padded_ts = format!("0{now_s}");
            let sig = sign_at(&[ed_a], &id, &padded_ts, &body);
            self.push(
                "timestamp_with_leading_zero",
                "the timestamp string is signed exactly as sent; its value is what is compared with now",
                &[ed_a],
                headers(&id, &padded_ts, &sig),
                &body,
                NOW,
                None,
                "valid",
            );
        }

        // --- Tampering and wrong keys.
        let mut tampered = body.clone();
        if let Some(pos) = tampered.iter().position(|&b| b == b'7') {
            tampered[pos] = b'8';
        }
        let mut reserialized = Vec::new();
        if let Ok(v) = serde_json::from_slice::<Value>(&body) {
            reserialized = serde_json::to_vec_pretty(&v).unwrap_or_default();
        }
        let mut newline = body.clone();
        newline.push(b'\n');
        for (signer, scheme) in [(ed_a, "v1a"), (hmac_a, "v1")] {
            let sig = sign_at(&[signer], &id, &now_s, &body);
            for (what, description, b) in [
                ("tampered_body", "one byte of the body changed", &tampered),
                (
                    "reserialized_body",
                    "the body parsed and serialized again: same JSON, different bytes",
                    &reserialized,
                ),
                (
                    "body_with_trailing_newline",
                    "a newline appended to the body",
                    &newline,
                ),
            ] {
                self.push(
                    &format!("{scheme}_{what}"),
                    description,
                    &[signer],
                    headers(&id, &now_s, &sig),
                    b,
                    NOW,
                    None,
                    "no_matching_signature",
                );
            }
            self.push(
                &format!("{scheme}_tampered_webhook_id"),
                "webhook-id changed after signing",
                &[signer],
                headers("evt_01KAAAAAAAAAAAAAAAAAAAAAAA", &now_s, &sig),
                &body,
                NOW,
                None,
                "no_matching_signature",
            );
            let later = (NOW + 1).to_string();
            self.push(
                &format!("{scheme}_tampered_timestamp"),
                "webhook-timestamp changed after signing (still within the tolerance)",
                &[signer],
                headers(&id, &later, &sig),
                &body,
                NOW,
                None,
                "no_matching_signature",
            );
        }
        self.simple(
            "v1a_wrong_key",
            "signed by another Ed25519 key",
            &[ed_a],
            &[ed_b],
            "no_matching_signature",
        );
        self.simple(
            "v1_wrong_secret",
            "signed with another HMAC secret",
            &[hmac_a],
            &[hmac_b],
            "no_matching_signature",
        );
        self.simple(
            "v1a_header_v1_key",
            "only a v1a entry, the consumer has only an HMAC secret",
            &[ed_a],
            &[hmac_a],
            "no_matching_signature",
        );
        self.simple(
            "v1_header_v1a_key",
            "only a v1 entry, the consumer has only a public key",
            &[hmac_a],
            &[ed_a],
            "no_matching_signature",
        );
        self.simple(
            "rotation_verifier_has_neither_key",
            "two signatures, neither by a key the consumer has",
            &[ed_new, ed_a],
            &[ed_b],
            "no_matching_signature",
        );
        self.with_signature(
            "v1_signature_labelled_v1a",
            "a genuine v1 signature under the v1a label",
            hmac_a,
            &[hmac_a, ed_a],
            |good| good.replacen("v1,", "v1a,", 1),
            "no_matching_signature",
        );
        self.with_signature(
            "v1a_signature_labelled_v1",
            "a genuine v1a signature under the v1 label",
            ed_a,
            &[hmac_a, ed_a],
            |good| good.replacen("v1a,", "v1,", 1),
            "no_matching_signature",
        );

        // --- Malformed signature headers.
        self.with_signature(
            "unknown_versions_only",
            "the genuine signature under unknown version labels only",
            ed_a,
            &[ed_a],
            |good| {
                let sig = good.trim_start_matches("v1a,");
                format!("v2,{sig} v1b,{sig} V1A,{sig}")
            },
            "no_matching_signature",
        );
        for (name, description, header) in [
            (
                "garbage_only",
                "one entry without a comma",
                "garbage".to_owned(),
            ),
            (
                "version_without_signature",
                "`v1a,` with nothing after the comma",
                "v1a,".to_owned(),
            ),
            (
                "signature_not_base64",
                "the signature is not base64",
                "v1a,!!!!not-base64!!!!".to_owned(),
            ),
            (
                "signature_header_only_spaces",
                "a signature header of spaces: no entries",
                "   ".to_owned(),
            ),
            (
                "signature_without_version",
                "`,<base64>` without a version",
                format!(",{fake64}"),
            ),
        ] {
            self.with_signature(
                name,
                description,
                ed_a,
                &[ed_a],
                |_| header.clone(),
                "no_matching_signature",
            );
        }
        for (signer, scheme) in [(ed_a, "v1a"), (hmac_a, "v1")] {
            self.with_signature(
                &format!("{scheme}_signature_unpadded"),
                "the genuine signature without its base64 padding (only padded base64 is accepted)",
                signer,
                &[signer],
                |good| good.trim_end_matches('=').to_owned(),
                "no_matching_signature",
            );
            self.with_signature(
                &format!("{scheme}_signature_non_canonical_base64"),
                "the genuine signature with non-zero unused bits in its last base64 character (same bytes to a lenient decoder; only canonical base64 is accepted)",
                signer,
                &[signer],
                |good| {
                    let (version, sig) = good.split_once(',').unwrap_or(("", good));
                    format!("{version},{}", non_canonical(sig))
                },
                "no_matching_signature",
            );
            self.with_signature(
                &format!("{scheme}_signature_truncated"),
                "the first 16 bytes of the genuine signature",
                signer,
                &[signer],
                |good| {
                    let (version, sig) = good.split_once(',').unwrap_or(("", good));
                    let raw = BASE64.decode(sig).unwrap_or_default();
                    format!("{version},{}", BASE64.encode(&raw[..16.min(raw.len())]))
                },
                "no_matching_signature",
            );
        }

        // --- Timestamps.
        for (name, offset, description, expected) in [
            (
                "timestamp_301_seconds_old",
                -TOLERANCE - 1,
                "one second past the tolerance",
                "timestamp_too_old",
            ),
            (
                "timestamp_one_day_old",
                -86_400,
                "a replay of a day-old request",
                "timestamp_too_old",
            ),
            (
                "timestamp_301_seconds_ahead",
                TOLERANCE + 1,
                "one second beyond the tolerance",
                "timestamp_too_new",
            ),
            (
                "timestamp_one_hour_ahead",
                3_600,
                "an hour in the future",
                "timestamp_too_new",
            ),
        ] {
            let ts = (NOW + offset).to_string();
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                name,
                description,
                &[ed_a],
                headers(&id, &ts, &sig),
                &body,
                NOW,
                None,
                expected,
            );
        }
        {
            let ts = (NOW - 3_600).to_string();
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                "stale_and_tampered",
                "a stale timestamp is reported before the signature is checked",
                &[ed_a],
                headers(&id, &ts, &sig),
                &tampered,
                NOW,
                None,
                "timestamp_too_old",
            );
            let ms = (NOW * 1000).to_string();
            let sig = sign_at(&[ed_a], &id, &ms, &body);
            self.push(
                "timestamp_in_milliseconds",
                "milliseconds instead of seconds",
                &[ed_a],
                headers(&id, &ms, &sig),
                &body,
                NOW,
                None,
                "timestamp_too_new",
            );
            let max = i64::MAX.to_string();
            let sig = sign_at(&[ed_a], &id, &max, &body);
            self.push(
                "timestamp_i64_max",
                "the largest accepted timestamp value",
                &[ed_a],
                headers(&id, &max, &sig),
                &body,
                NOW,
                None,
                "timestamp_too_new",
            );
        }
        for (name, ts) in [
            ("timestamp_not_a_number", "abc".to_owned()),
            ("timestamp_negative", format!("-{NOW}")),
            ("timestamp_plus_sign", format!("+{NOW}")),
            ("timestamp_with_fraction", format!("{NOW}.0")),
            ("timestamp_exponent", "1.7672256e9".to_owned()),
            ("timestamp_leading_space", format!(" {NOW}")),
            ("timestamp_trailing_space", format!("{NOW} ")),
            ("timestamp_hex", "0x6955B900".to_owned()),
            ("timestamp_overflows_i64", "9223372036854775808".to_owned()),
            ("timestamp_non_ascii_digits", "١٧٦٧٢٢٥٦٠٠".to_owned()),
        ] {
            // Signed over the bad string, so only the timestamp rule can reject it.
            let sig = sign_at(&[ed_a], &id, &ts, &body);
            self.push(
                name,
                "webhook-timestamp must be ASCII digits only, at most 2^63-1",
                &[ed_a],
                headers(&id, &ts, &sig),
                &body,
                NOW,
                None,
                "invalid_timestamp",
            );
        }

        // --- Missing headers.
        let sig = sign_at(&[ed_a], &id, &now_s, &body);
        let full = headers(&id, &now_s, &sig);
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let without: Vec<(String, String)> =
                full.iter().filter(|(k, _)| k != name).cloned().collect();
            self.push(
                &format!("missing_{}", name.replace('-', "_")),
                &format!("no {name} header"),
                &[ed_a],
                without,
                &body,
                NOW,
                None,
                "missing_header",
            );
            let empty: Vec<(String, String)> = full
                .iter()
                .map(|(k, v)| (k.clone(), if k == name { String::new() } else { v.clone() }))
                .collect();
            self.push(
                &format!("empty_{}", name.replace('-', "_")),
                &format!("{name} present but empty (counts as missing)"),
                &[ed_a],
                empty,
                &body,
                NOW,
                None,
                "missing_header",
            );
        }
        self.push(
            "no_headers",
            "none of the three headers",
            &[ed_a],
            Vec::new(),
            &body,
            NOW,
            None,
            "missing_header",
        );
        self.push(
            "missing_header_and_stale",
            "a missing header is reported before the timestamp",
            &[ed_a],
            vec![
                ("webhook-timestamp".into(), (NOW - 86_400).to_string()),
                ("webhook-signature".into(), sig.clone()),
            ],
            &body,
            NOW,
            None,
            "missing_header",
        );
    }
}

pub(crate) fn key_cases(k: &Keys) -> Vec<KeyCase> {
    let pk = public(&k.ed_a);
    let pk_raw = BASE64
        .decode(pk.trim_start_matches("whpk_"))
        .unwrap_or_default();
    let cases = vec![
        ("whsec_32_bytes", public(&k.hmac_a), "valid"),
        ("whsec_24_bytes", public(&k.hmac_24), "valid"),
        ("whsec_64_bytes", public(&k.hmac_64), "valid"),
        ("whpk", pk.clone(), "valid"),
        ("surrounding_whitespace", format!("  {pk}\n"), "valid"),
        ("empty", String::new(), "invalid_key"),
        ("unknown_prefix", "sk_live_abcdef".to_owned(), "invalid_key"),
        (
            "uppercase_prefix",
            public(&k.hmac_a).replacen("whsec_", "WHSEC_", 1),
            "invalid_key",
        ),
        (
            "no_prefix",
            public(&k.hmac_a).trim_start_matches("whsec_").to_owned(),
            "invalid_key",
        ),
        ("whsk_signing_key_refused", signing(&k.ed_a), "invalid_key"),
        (
            "whsk_seed_form_refused",
            format!("whsk_{}", BASE64.encode(derive("ed_a"))),
            "invalid_key",
        ),
        (
            "whsec_not_base64",
            "whsec_!!!!not-base64!!!!".to_owned(),
            "invalid_key",
        ),
        (
            "whsec_unpadded",
            public(&k.hmac_a).trim_end_matches('=').to_owned(),
            "invalid_key",
        ),
        (
            "whsec_23_bytes",
            format!("whsec_{}", BASE64.encode([1u8; 23])),
            "invalid_key",
        ),
        (
            "whsec_65_bytes",
            format!("whsec_{}", BASE64.encode([1u8; 65])),
            "invalid_key",
        ),
        ("whsec_empty", "whsec_".to_owned(), "invalid_key"),
        (
            "whpk_31_bytes",
            format!("whpk_{}", BASE64.encode(&pk_raw[..31])),
            "invalid_key",
        ),
        (
            "whpk_33_bytes",
            format!("whpk_{}", BASE64.encode([pk_raw.as_slice(), &[0]].concat())),
            "invalid_key",
        ),
        ("whpk_empty", "whpk_".to_owned(), "invalid_key"),
    ];
    cases
        .into_iter()
        .map(|(name, key, expected)| KeyCase {
            name,
            key,
            expected,
        })
        .collect()
}
