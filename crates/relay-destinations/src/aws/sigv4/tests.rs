//! Signature Version 4 against AWS's published cases (`testdata/sigv4/`,
//! its README says whence), and the rules the cases rely on.

use std::path::{Path, PathBuf};

use super::*;

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/sigv4")
        .join(name)
}

/// A signed request read from a `.req` file.
struct Case {
    name: String,
    method: String,
    path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    authorization: String,
}

fn read(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).expect("a case file");
    let (head, body) = text
        .split_once("\n\n")
        .expect("a blank line after the headers");
    let mut lines = head.lines();
    let line = lines.next().expect("a request line");
    let mut parts = line.split(' ');
    let method = parts.next().expect("a method").to_string();
    let target = parts.next().expect("a target");
    let (path_part, query_part) = target.split_once('?').unwrap_or((target, ""));
    let query = query_part
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect();
    let mut headers = Vec::new();
    let mut authorization = None;
    for line in lines {
        let (name, value) = line.split_once(':').expect("name:value");
        if name.eq_ignore_ascii_case("authorization") {
            authorization = Some(value.trim().to_string());
        } else {
            headers.push((name.to_string(), value.to_string()));
        }
    }
    Case {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        method,
        path: path_part.to_string(),
        query,
        headers,
        body: body.as_bytes().to_vec(),
        authorization: authorization.expect("an Authorization header"),
    }
}

fn cases(folder: &str) -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir(folder))
        .expect("the cases' folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "req"))
        .collect();
    files.sort();
    files.iter().map(|p| read(p)).collect()
}

fn sign_case(
    case: &Case,
    access_key_id: &str,
    secret: &str,
    region: &str,
    service: &str,
) -> Signed {
    let header = |n: &str| {
        case.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.trim().to_string())
    };
    let amz = header("x-amz-date").expect("x-amz-date");
    let payload = header("x-amz-content-sha256").unwrap_or_else(|| hex_sha256(&case.body));
    let query: Vec<(&str, &str)> = case
        .query
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let headers: Vec<(&str, &str)> = case
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    sign(
        &Request {
            method: &case.method,
            path: &case.path,
            query: &query,
            headers: &headers,
            payload_sha256: &payload,
        },
        &Credentials {
            access_key_id,
            secret_access_key: secret.as_bytes(),
        },
        &amz,
        region,
        service,
    )
}

/// AWS's test suite: the whole `Authorization` value.
#[test]
fn aws_test_suite() {
    let all = cases("aws-suite");
    assert!(all.len() >= 12, "the suite's cases are read");
    for case in &all {
        let signed = sign_case(
            case,
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "us-east-1",
            "service",
        );
        assert_eq!(signed.authorization, case.authorization, "{}", case.name);
    }
}

/// The S3 documentation's examples: the signature (AWS prints the header
/// without spaces after the commas).
#[test]
fn s3_documentation_examples() {
    let all = cases("s3-docs");
    assert_eq!(all.len(), 3);
    for case in &all {
        let signed = sign_case(
            case,
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "us-east-1",
            "s3",
        );
        let expected = case
            .authorization
            .rsplit_once("Signature=")
            .expect("a signature")
            .1;
        assert_eq!(signed.signature, expected, "{}", case.name);
        let signed_headers = case
            .authorization
            .split("SignedHeaders=")
            .nth(1)
            .and_then(|s| s.split(',').next())
            .expect("signed headers");
        assert!(
            signed
                .authorization
                .contains(&format!("SignedHeaders={signed_headers},")),
            "{}: {}",
            case.name,
            signed.authorization
        );
    }
}

/// The PUT example's intermediate values, as the documentation prints them.
#[test]
fn s3_put_example_canonical_request_and_string_to_sign() {
    let case = read(&dir("s3-docs").join("put-object.req"));
    assert_eq!(
        hex_sha256(&case.body),
        "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
    );
    let signed = sign_case(
        &case,
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "us-east-1",
        "s3",
    );
    assert_eq!(
        signed.canonical_request,
        "PUT\n/test%24file.text\n\n\
         date:Fri, 24 May 2013 00:00:00 GMT\n\
         host:examplebucket.s3.amazonaws.com\n\
         x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n\
         x-amz-date:20130524T000000Z\n\
         x-amz-storage-class:REDUCED_REDUNDANCY\n\n\
         date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n\
         44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
    );
    assert_eq!(
        signed.string_to_sign,
        "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n\
         9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"
    );
}

/// The signing key example of the AWS documentation ("Examples of how to
/// derive a signing key for Signature Version 4", IAM, 20120215).
#[test]
fn signing_key_example() {
    assert_eq!(
        hex::encode(signing_key(
            b"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "20120215",
            "us-east-1",
            "iam"
        )),
        "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
    );
}

#[test]
fn uri_encoding() {
    for (input, keep_slash, expected) in [
        ("a b", true, "a%20b"),
        ("a+b", true, "a%2Bb"),
        ("100%", true, "100%25"),
        ("a/b", true, "a/b"),
        ("a/b", false, "a%2Fb"),
        ("A-z_0.9~", false, "A-z_0.9~"),
        ("=&?#", false, "%3D%26%3F%23"),
        ("ключ", true, "%D0%BA%D0%BB%D1%8E%D1%87"),
        ("a/./b", true, "a/./b"),
    ] {
        assert_eq!(uri_encode(input, keep_slash), expected, "{input}");
    }
}

#[test]
fn amz_date_of_a_timestamp() {
    assert_eq!(
        amz_date(Timestamp::from_millis(1_440_938_160_000)),
        "20150830T123600Z"
    );
    assert_eq!(
        amz_date(Timestamp::from_millis(1_369_353_600_999)),
        "20130524T000000Z"
    );
}

#[test]
fn header_values_are_trimmed_and_their_spaces_collapsed() {
    assert_eq!(canonical_value("  a   b  c "), "a b c");
    assert_eq!(canonical_value("x"), "x");
    assert_eq!(canonical_value(""), "");
}
