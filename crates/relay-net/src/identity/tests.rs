use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};

use super::*;

struct Made {
    chain: String,
    key: String,
    key_der: Vec<u8>,
}

/// A CA and a client certificate signed by it: the chain (leaf, CA) and
/// the leaf's PKCS#8 key, as PEM.
fn made() -> Made {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["relay-client".to_string()]).unwrap();
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let leaf = params.signed_by(&key, &ca).unwrap();
    Made {
        chain: format!("{}{}", leaf.pem(), ca.pem()),
        key: key.serialize_pem(),
        key_der: key.serialize_der(),
    }
}

/// The SEC1 `ECPrivateKey` inside a PKCS#8 EC key (its `privateKey`
/// octet string), as PEM.
fn sec1_pem(pkcs8: &[u8]) -> String {
    // SEQUENCE { INTEGER, SEQUENCE { … }, OCTET STRING { ECPrivateKey } }
    fn header(der: &[u8]) -> (usize, usize) {
        let first = der[1];
        if first < 0x80 {
            (2, first as usize)
        } else {
            let n = (first & 0x7f) as usize;
            let len = der[2..2 + n]
                .iter()
                .fold(0usize, |l, b| (l << 8) | *b as usize);
            (2 + n, len)
        }
    }
    let (h, _) = header(pkcs8);
    let mut rest = &pkcs8[h..];
    for _ in 0..2 {
        let (h, len) = header(rest);
        rest = &rest[h + len..];
    }
    assert_eq!(rest[0], 0x04, "the private key octet string");
    let (h, len) = header(rest);
    let sec1 = &rest[h..h + len];
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(sec1);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    format!(
        "-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----\n",
        lines.join("\n")
    )
}

#[test]
fn a_chain_and_its_key_make_an_identity() {
    let m = made();
    let id = ClientIdentity::from_pem(m.chain.as_bytes(), m.key.as_bytes()).expect("identity");
    assert_eq!(id.fingerprint_hex().len(), 64);
    // The same values, the same fingerprint; the key is not part of it.
    let again = ClientIdentity::from_pem(m.chain.as_bytes(), m.key.as_bytes()).unwrap();
    assert_eq!(id.fingerprint(), again.fingerprint());
    let leaf_only: String = m
        .chain
        .split_inclusive("-----END CERTIFICATE-----\n")
        .next()
        .unwrap()
        .to_string();
    let short = ClientIdentity::from_pem(leaf_only.as_bytes(), m.key.as_bytes()).unwrap();
    assert_ne!(
        short.fingerprint(),
        id.fingerprint(),
        "the whole chain counts"
    );
    assert_eq!(short.leaf(), id.leaf());
}

#[test]
fn a_sec1_ec_key_is_taken_too() {
    let m = made();
    let sec1 = sec1_pem(&m.key_der);
    ClientIdentity::from_pem(m.chain.as_bytes(), sec1.as_bytes()).expect("SEC1 key");
}

#[test]
fn bad_values_are_refused_with_codes_and_never_quoted() {
    let m = made();
    let other = made();
    let encrypted = m
        .key
        .replace("BEGIN PRIVATE KEY", "BEGIN ENCRYPTED PRIVATE KEY")
        .replace("END PRIVATE KEY", "END ENCRYPTED PRIVATE KEY");
    let garbage_cert = "-----BEGIN CERTIFICATE-----\nMIIBfAKE=\n-----END CERTIFICATE-----\n";
    let broken_pem = "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
    let cases: Vec<(&str, &str, &str, IdentityPart)> = vec![
        (
            "",
            &m.key,
            "invalid_client_certificate",
            IdentityPart::Chain,
        ),
        (
            "not pem at all",
            &m.key,
            "invalid_client_certificate",
            IdentityPart::Chain,
        ),
        (
            &m.key,
            &m.key,
            "invalid_client_certificate",
            IdentityPart::Chain,
        ),
        (
            broken_pem,
            &m.key,
            "invalid_client_certificate",
            IdentityPart::Chain,
        ),
        (
            garbage_cert,
            &m.key,
            "invalid_client_certificate",
            IdentityPart::Chain,
        ),
        (&m.chain, "", "invalid_client_key", IdentityPart::Key),
        (&m.chain, &m.chain, "invalid_client_key", IdentityPart::Key),
        (
            &m.chain,
            &encrypted,
            "invalid_client_key",
            IdentityPart::Key,
        ),
        (
            &m.chain,
            &other.key,
            "client_key_mismatch",
            IdentityPart::Key,
        ),
        (
            &other.chain,
            &m.key,
            "client_key_mismatch",
            IdentityPart::Key,
        ),
    ];
    for (i, (chain, key, code, part)) in cases.into_iter().enumerate() {
        let err = ClientIdentity::from_pem(chain.as_bytes(), key.as_bytes())
            .expect_err(&format!("case {i}"));
        assert_eq!(err.code(), code, "case {i}: {err}");
        assert_eq!(err.part(), part, "case {i}");
        let text = format!("{err} {err:?}");
        for line in chain.lines().chain(key.lines()) {
            if line.len() > 8 && !line.starts_with("-----") {
                assert!(!text.contains(line), "case {i} quotes a value: {text}");
            }
        }
        assert!(!text.contains("-----BEGIN"), "case {i}: {text}");
    }
}
