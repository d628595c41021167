use super::*;

#[test]
fn role_arns() {
    for (arn, ok) in [
        ("arn:aws:iam::123456789012:role/relay", true),
        (
            "arn:aws:iam::123456789012:role/service-role/relay+x=y,z.w@v_u-t",
            true,
        ),
        ("arn:aws-cn:iam::123456789012:role/r", true),
        ("arn:aws-us-gov:iam::123456789012:role/r", true),
        ("arn:aws:iam::12345678901:role/r", false),
        ("arn:aws:iam::123456789012:user/r", false),
        ("arn:aws:iam::123456789012:role/", false),
        ("arn:aws:iam::123456789012:role/path/", false),
        ("arn:aws:sts::123456789012:role/r", false),
        ("arn:other:iam::123456789012:role/r", false),
        ("arn:aws:iam::123456789012:role/with space", false),
        ("arn:aws:iam::123456789012:role/ключ", false),
    ] {
        assert_eq!(valid_role_arn(arn), ok, "{arn}");
    }
    let long = format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65));
    assert!(!valid_role_arn(&long));
}

#[test]
fn keys_or_a_role() {
    let arn = Some("arn:aws:iam::123456789012:role/relay");
    let code = |r: Result<(), crate::Invalid>| r.err().map(|e| (e.code, e.pointer));
    assert_eq!(code(check_choice(true, true, false, None)), None);
    assert_eq!(code(check_choice(true, true, true, None)), None);
    assert_eq!(code(check_choice(false, false, false, arn)), None);
    for (k, s, t, r, want) in [
        (
            true,
            true,
            false,
            arn,
            ("invalid_credentials", "/destination/role_arn"),
        ),
        (
            false,
            false,
            true,
            arn,
            ("invalid_credentials", "/destination/role_arn"),
        ),
        (
            false,
            false,
            false,
            None,
            ("invalid_credentials", "/destination/access_key_id"),
        ),
        (
            false,
            true,
            false,
            None,
            ("invalid_credentials", "/destination/access_key_id"),
        ),
        (
            true,
            false,
            false,
            None,
            ("invalid_credentials", "/destination/secret_access_key"),
        ),
        (
            false,
            false,
            false,
            Some("arn:aws:iam::1:role/r"),
            ("invalid_role_arn", "/destination/role_arn"),
        ),
    ] {
        assert_eq!(
            code(check_choice(k, s, t, r)),
            Some(want),
            "{k} {s} {t} {r:?}"
        );
    }
}

#[test]
fn failures_to_get_credentials() {
    use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
    let refused = |status, code: Option<&str>| sts::Failure::Refused {
        status,
        code: code.map(str::to_string),
        message: Some("m".into()),
    };
    let retry = |code| Verdict::Retry {
        code,
        not_before: None,
    };
    let auth = FailureCode::Refused(Refusal::AuthRefused);
    for (failure, want) in [
        (
            refused(403, Some("AccessDenied")),
            Verdict::Rejected {
                reason: relay_core::transition::DeadLetterReason::RejectedByDestination,
                code: auth,
            },
        ),
        (
            refused(400, Some("Throttling")),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            refused(503, None),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            refused(429, None),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (refused(400, Some("ExpiredTokenException")), retry(auth)),
        (refused(400, Some("InvalidIdentityToken")), retry(auth)),
        (
            sts::Failure::Invalid(NO_INSTALLATION_IDENTITY.into()),
            retry(auth),
        ),
        (
            sts::Failure::Unreadable,
            retry(FailureCode::Transport(TransportError::Protocol)),
        ),
    ] {
        assert_eq!(classify_failure(&failure), want, "{failure:?}");
    }
}

#[test]
fn web_identity_request() {
    assert_eq!(
        web_identity_body("arn:aws:iam::123456789012:role/relay", "tok.en"),
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Frelay&RoleSessionName=relay&WebIdentityToken=tok.en&DurationSeconds=3600"
    );
    assert_eq!(
        regional_sts_url("eu-west-1"),
        "https://sts.eu-west-1.amazonaws.com/"
    );
    assert_eq!(
        regional_sts_url("cn-north-1"),
        "https://sts.cn-north-1.amazonaws.com.cn/"
    );
}

#[test]
fn debug_shows_no_value() {
    let secret = "the-external-id-secret";
    let keys = Keys {
        access_key_id: SecretValue::from("AKIDEXAMPLEVALUE"),
        secret_access_key: SecretValue::from("wJalrXUtnFEMIsecret"),
        session_token: Some(SecretValue::from("session-token-value")),
    };
    let clock: Arc<dyn Clock> = Arc::new(relay_core::time::ManualClock::new(
        relay_core::time::Timestamp::from_millis(0),
    ));
    let i = Installation::new(
        SecretValue::from(secret),
        Identity::Keys(keys.clone()),
        None,
        "us-east-1".into(),
        clock,
    );
    let shown = format!("{i:?} {:?}", Signer::Keys(keys));
    for value in [
        secret,
        "AKIDEXAMPLEVALUE",
        "wJalrXUtnFEMIsecret",
        "session-token-value",
    ] {
        assert!(!shown.contains(value), "{shown}");
    }
    assert!(i.external_id("ten_1").starts_with("relay-"));
    assert_ne!(i.external_id("ten_1"), i.external_id("ten_2"));
}
