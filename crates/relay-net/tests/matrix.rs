//! The registration rules as one table: every URL with the code it must get.

mod support;

use relay_net::{Guard, OutboundConfig};
use support::{guard, table_resolver};

/// Which `[outbound]` configuration a row runs under.
#[derive(Clone, Copy, Debug)]
enum Cfg {
    /// The default: port 443, shipped ranges only.
    Strict,
    /// An operator who opened some ranges and a port and blocked others.
    Operator,
    /// A developer who opened IPv4 loopback and port 8443.
    Loopback,
}

const OK: &str = "ok";
const SCHEME: &str = "scheme_not_allowed";
const INVALID: &str = "invalid_url";
const CREDS: &str = "credentials_in_url";
const PORT: &str = "port_not_allowed";
const BLOCKED: &str = "blocked_address";
const DNS: &str = "dns";

use Cfg::{Loopback, Operator, Strict};

/// (configuration, URL, expected code, text the message must contain)
const TABLE: &[(Cfg, &str, &str, &str)] = &[
    // Scheme: https only, whatever the case.
    (Strict, "http://public.example/", SCHEME, "http://"),
    (Strict, "ftp://public.example/", SCHEME, "ftp://"),
    (Strict, "ws://public.example/", SCHEME, "ws://"),
    (Strict, "file:///etc/passwd", SCHEME, "file://"),
    (Strict, "javascript:alert(1)", SCHEME, "javascript"),
    (Strict, "gopher://127.0.0.1:6379/_INFO", SCHEME, "gopher"),
    (Strict, "HTTP://127.0.0.1/", SCHEME, "http://"),
    (Strict, "HTTPS://PUBLIC.EXAMPLE/hook", OK, ""),
    // Not a URL, or not a valid host.
    (Strict, "not a url", INVALID, ""),
    (Strict, "", INVALID, ""),
    (Strict, "https://", INVALID, ""),
    (Strict, "https://[fe80::1%25eth0]/", INVALID, ""),
    (Strict, "https://[fe80::1%eth0]/", INVALID, ""),
    (Strict, "https://[::1%25lo]:443/", INVALID, ""),
    (Strict, "https://1.2.3.4.5/", INVALID, ""),
    (Strict, "https://0x100000000/", INVALID, ""),
    (Strict, "https://256.256.256.256/", INVALID, ""),
    (Strict, "https://exa mple.com/", INVALID, ""),
    (Strict, "https://public.example:99999/", INVALID, ""),
    (
        Strict,
        "https://a..b.example/",
        INVALID,
        "not a valid DNS name",
    ),
    (Strict, "https://[::1/", INVALID, ""),
    // Credentials in the URL.
    (
        Strict,
        "https://user:pass@public.example/",
        CREDS,
        "user name or password",
    ),
    (Strict, "https://user@public.example/", CREDS, ""),
    (Strict, "https://:pass@public.example/", CREDS, ""),
    (Strict, "https://public.example@127.0.0.1/", CREDS, ""),
    // Ports.
    (Strict, "https://public.example:443/", OK, ""),
    (Strict, "https://public.example:0443/", OK, ""),
    (Strict, "https://public.example:8443/", PORT, "port 8443"),
    (Strict, "https://public.example:80/", PORT, "port 80"),
    (Strict, "https://public.example:0/", PORT, "port 0"),
    (Strict, "https://[2606:4700:4700::1111]:8443/", PORT, "8443"),
    (Operator, "https://public.example:8443/", OK, ""),
    (Operator, "https://public.example:9443/", PORT, "443, 8443"),
    // IPv4 literals in every spelling a URL parser accepts.
    (Strict, "https://127.0.0.1/", BLOCKED, "127.0.0.0/8"),
    (Strict, "https://127.1/", BLOCKED, "127.0.0.1"),
    (Strict, "https://2130706433/", BLOCKED, "127.0.0.1"),
    (Strict, "https://0x7f.1/", BLOCKED, "127.0.0.1"),
    (Strict, "https://017700000001/", BLOCKED, "127.0.0.1"),
    (Strict, "https://0x7f000001/", BLOCKED, "127.0.0.1"),
    (Strict, "https://0177.0.0.1/", BLOCKED, "127.0.0.1"),
    (Strict, "https://0x7F.0x00.0x00.0x01/", BLOCKED, "127.0.0.1"),
    (Strict, "https://127.0.0.1./", BLOCKED, "127.0.0.1"),
    (Strict, "https://%31%32%37.0.0.1/", BLOCKED, "127.0.0.1"),
    (
        Strict,
        "https://\u{ff11}\u{ff12}\u{ff17}.0.0.1/",
        BLOCKED,
        "127.0.0.1",
    ),
    (Strict, "https://0/", BLOCKED, "0.0.0.0"),
    (Strict, "https://0.0.0.0/", BLOCKED, "0.0.0.0/8"),
    (Strict, "https://10.0.0.1/", BLOCKED, "RFC 1918"),
    (Strict, "https://172.16.5.4/", BLOCKED, "172.16.0.0/12"),
    (Strict, "https://192.168.1.1/", BLOCKED, "192.168.0.0/16"),
    (Strict, "https://100.64.0.1/", BLOCKED, "RFC 6598"),
    (Strict, "https://169.254.1.1/", BLOCKED, "RFC 3927"),
    (
        Strict,
        "https://169.254.169.254/latest/meta-data/",
        BLOCKED,
        "169.254.169.254/32",
    ),
    (Strict, "https://2852039166/", BLOCKED, "169.254.169.254"),
    (Strict, "https://169.254.170.2/", BLOCKED, "ECS"),
    (Strict, "https://100.100.100.200/", BLOCKED, "Alibaba"),
    (Strict, "https://192.0.0.192/", BLOCKED, "Oracle"),
    (Strict, "https://168.63.129.16/", BLOCKED, "Azure"),
    (Strict, "https://192.0.2.1/", BLOCKED, "RFC 5737"),
    (Strict, "https://198.18.0.1/", BLOCKED, "RFC 2544"),
    (Strict, "https://198.51.100.7/", BLOCKED, "RFC 5737"),
    (Strict, "https://203.0.113.9/", BLOCKED, "RFC 5737"),
    (Strict, "https://224.0.0.1/", BLOCKED, "multicast"),
    (Strict, "https://239.255.255.250/", BLOCKED, "multicast"),
    (Strict, "https://240.0.0.1/", BLOCKED, "reserved"),
    (Strict, "https://255.255.255.255/", BLOCKED, "broadcast"),
    (Strict, "https://192.88.99.1/", BLOCKED, "6to4"),
    // Public IPv4 literals pass.
    (Strict, "https://8.8.8.8/", OK, ""),
    (Strict, "https://134744072/", OK, ""),
    (
        Strict,
        "https://\u{ff18}.\u{ff18}.\u{ff18}.\u{ff18}/",
        OK,
        "",
    ),
    (Strict, "https://1.1.1.1:443/x?y=z", OK, ""),
    // IPv6 literals: mapped, compatible, NAT64, 6to4, Teredo, the ranges.
    (Strict, "https://[::1]/", BLOCKED, "::1/128"),
    (Strict, "https://[::]/", BLOCKED, "unspecified"),
    (Strict, "https://[0:0:0:0:0:0:0:1]/", BLOCKED, "loopback"),
    (
        Strict,
        "https://[::ffff:127.0.0.1]/",
        BLOCKED,
        "IPv4-mapped 127.0.0.1",
    ),
    (Strict, "https://[::ffff:7f00:1]/", BLOCKED, "127.0.0.1"),
    (
        Strict,
        "https://[0:0:0:0:0:FFFF:7F00:0001]/",
        BLOCKED,
        "127.0.0.1",
    ),
    (
        Strict,
        "https://[::ffff:169.254.169.254]/",
        BLOCKED,
        "169.254.169.254",
    ),
    (Strict, "https://[::ffff:a00:1]/", BLOCKED, "10.0.0.1"),
    (Strict, "https://[::127.0.0.1]/", BLOCKED, "IPv4-compatible"),
    (Strict, "https://[::8.8.8.8]/", BLOCKED, "IPv4-compatible"),
    (
        Strict,
        "https://[::ffff:0:7f00:1]/",
        BLOCKED,
        "IPv4-translated",
    ),
    (
        Strict,
        "https://[64:ff9b::127.0.0.1]/",
        BLOCKED,
        "NAT64-embedded 127.0.0.1",
    ),
    (
        Strict,
        "https://[64:ff9b::a9fe:a9fe]/",
        BLOCKED,
        "169.254.169.254",
    ),
    (
        Strict,
        "https://[64:ff9b:1::a00:1]/",
        BLOCKED,
        "NAT64-embedded 10.0.0.1",
    ),
    (
        Strict,
        "https://[64:ff9b:1:a00:0:100::]/",
        BLOCKED,
        "NAT64-embedded 10.0.0.1",
    ),
    (Strict, "https://[64:ff9b:1::808:808]/", OK, ""),
    // Local-use NAT64 is ambiguous: the /48 reading is 8.8.8.8, the /96
    // reading 0.0.0.0; any blocked reading refuses the address.
    (
        Strict,
        "https://[64:ff9b:1:808:8:800::]/",
        BLOCKED,
        "NAT64-embedded 0.0.0.0",
    ),
    (
        Strict,
        "https://[2002:7f00:1::1]/",
        BLOCKED,
        "6to4-embedded 127.0.0.1",
    ),
    (
        Strict,
        "https://[2002:a9fe:a9fe::]/",
        BLOCKED,
        "169.254.169.254",
    ),
    (
        Strict,
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        BLOCKED,
        "Teredo client 127.0.0.1",
    ),
    (
        Strict,
        "https://[2001:0:a00:1::1]/",
        BLOCKED,
        "Teredo server 10.0.0.1",
    ),
    (Strict, "https://[fe80::1]/", BLOCKED, "link-local"),
    (Strict, "https://[fc00::1]/", BLOCKED, "unique-local"),
    (
        Strict,
        "https://[fd00:ec2::254]/",
        BLOCKED,
        "fd00:ec2::254/128",
    ),
    (Strict, "https://[fd20:ce::254]/", BLOCKED, "Google"),
    (Strict, "https://[fec0::1]/", BLOCKED, "site-local"),
    (Strict, "https://[ff02::1]/", BLOCKED, "multicast"),
    (Strict, "https://[100::1]/", BLOCKED, "discard-only"),
    (Strict, "https://[2001:db8::1]/", BLOCKED, "documentation"),
    (Strict, "https://[3fff::1]/", BLOCKED, "documentation"),
    (Strict, "https://[4000::1]/", BLOCKED, "reserved"),
    (Strict, "https://[2606:4700:4700::1111]/", OK, ""),
    (Strict, "https://[::ffff:8.8.8.8]/", OK, ""),
    (Strict, "https://[64:ff9b::8.8.8.8]/", OK, ""),
    (Strict, "https://[2002:808:808::1]/", OK, ""),
    // Host names: normalised, localhost refused unresolved, every record checked.
    (Strict, "https://localhost/", BLOCKED, "loopback name"),
    (Strict, "https://LOCALHOST./", BLOCKED, "loopback name"),
    (Strict, "https://api.localhost/", BLOCKED, "api.localhost"),
    (
        Strict,
        "https://Foo.Bar.LocalHost/",
        BLOCKED,
        "foo.bar.localhost",
    ),
    (Strict, "https://public.example/", OK, ""),
    (Strict, "https://PUBLIC.Example./hook", OK, ""),
    (Strict, "https://dual.example/", OK, ""),
    (Strict, "https://mapped-public.example/", OK, ""),
    (
        Strict,
        "https://private.example/",
        BLOCKED,
        "private.example resolves to a blocked address",
    ),
    (
        Strict,
        "https://mixed.example/",
        BLOCKED,
        "mixed.example resolves to a blocked",
    ),
    (
        Strict,
        "https://mixed6.example/",
        BLOCKED,
        "mixed6.example resolves to a blocked",
    ),
    (
        Strict,
        "https://metadata.example/",
        BLOCKED,
        "metadata.example resolves to a blocked",
    ),
    (
        Strict,
        "https://mapped.example/",
        BLOCKED,
        "mapped.example resolves to a blocked",
    ),
    (
        Strict,
        "https://nat64.example/",
        BLOCKED,
        "nat64.example resolves to a blocked",
    ),
    (Strict, "https://nxdomain.example/", DNS, "nxdomain.example"),
    (Strict, "https://empty.example/", DNS, "no A or AAAA record"),
    // Operator overrides: allow wins only when at least as specific.
    (Operator, "https://10.1.2.3/", OK, ""),
    (Operator, "https://[::ffff:10.1.2.3]/", OK, ""),
    (Operator, "https://10.2.0.1/", BLOCKED, "10.0.0.0/8"),
    (Operator, "https://192.168.50.7:8443/", OK, ""),
    (Operator, "https://192.168.50.8/", BLOCKED, "192.168.0.0/16"),
    (Operator, "https://169.254.1.1/", OK, ""),
    (
        Operator,
        "https://169.254.169.254/",
        BLOCKED,
        "169.254.169.254/32",
    ),
    (
        Operator,
        "https://8.8.4.4/",
        BLOCKED,
        "operator block_cidrs",
    ),
    (
        Operator,
        "https://[64:ff9b::8.8.4.4]/",
        BLOCKED,
        "operator block_cidrs",
    ),
    (
        Operator,
        "https://[2606:4700::1]/",
        BLOCKED,
        "operator block_cidrs",
    ),
    (Operator, "https://8.8.8.8/", OK, ""),
    (Operator, "https://localhost/", BLOCKED, "loopback"),
    (Loopback, "https://localhost:8443/", OK, ""),
    (Loopback, "https://127.0.0.1:8443/", OK, ""),
    (Loopback, "https://0x7f.1:8443/", OK, ""),
    (Loopback, "https://[::1]:8443/", BLOCKED, "::1"),
    (Loopback, "https://localhost:8444/", PORT, "8444"),
];

fn config(cfg: Cfg) -> OutboundConfig {
    match cfg {
        Strict => OutboundConfig::default(),
        Operator => OutboundConfig {
            allow_ports: vec![8443],
            allow_cidrs: vec![
                "10.1.0.0/16".into(),
                "192.168.50.7".into(),
                "169.254.0.0/16".into(),
            ],
            block_cidrs: vec!["8.8.4.0/24".into(), "2606:4700::/32".into()],
            ..OutboundConfig::default()
        },
        Loopback => OutboundConfig {
            allow_ports: vec![8443],
            allow_cidrs: vec!["127.0.0.0/8".into()],
            ..OutboundConfig::default()
        },
    }
}

fn guards() -> [(Cfg, Guard); 3] {
    [Strict, Operator, Loopback].map(|cfg| (cfg, guard(&config(cfg), table_resolver())))
}

#[tokio::test]
async fn every_url_gets_its_code() {
    assert!(TABLE.len() >= 60, "the table has {} rows", TABLE.len());
    let guards = guards();
    let mut failures = Vec::new();
    for &(cfg, url, expected, needle) in TABLE {
        let guard = &guards[cfg as usize].1;
        let (code, message) = match guard.check_url(url).await {
            Ok(checked) => ("ok", checked.to_string()),
            Err(rejection) => (rejection.code(), rejection.to_string()),
        };
        if code != expected || !message.contains(needle) {
            failures.push(format!(
                "{cfg:?} {url:?}: expected {expected} containing {needle:?}, got {code}: {message}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The connect-time path applies the same rules to bare host names.
#[tokio::test]
async fn hosts_for_connect_get_the_same_codes() {
    let guards = guards();
    let strict = &guards[0].1;
    let rows: &[(&str, u16, &str)] = &[
        ("127.0.0.1", 443, BLOCKED),
        ("0x7f.1", 443, BLOCKED),
        ("2130706433", 443, BLOCKED),
        ("[::1]", 443, BLOCKED),
        ("::1", 443, BLOCKED),
        ("::ffff:127.0.0.1", 443, BLOCKED),
        ("fe80::1%eth0", 443, INVALID),
        ("[fe80::1%25eth0]", 443, INVALID),
        ("localhost", 443, BLOCKED),
        ("LocalHost.", 443, BLOCKED),
        ("mixed.example", 443, BLOCKED),
        ("nxdomain.example", 443, DNS),
        ("public.example", 8443, PORT),
        ("", 443, INVALID),
        ("public.example", 443, OK),
        ("PUBLIC.EXAMPLE.", 443, OK),
        ("8.8.8.8", 443, OK),
    ];
    let mut failures = Vec::new();
    for &(host, port, expected) in rows {
        let code = match strict.resolve_checked(host, port).await {
            Ok(_) => "ok",
            Err(error) => error.kind().as_str(),
        };
        if code != expected {
            failures.push(format!("{host:?}:{port}: expected {expected}, got {code}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[tokio::test]
async fn resolve_checked_returns_canonical_addresses() {
    let guards = guards();
    let strict = &guards[0].1;
    let addrs = strict
        .resolve_checked("mapped-public.example", 443)
        .await
        .expect("public name");
    assert_eq!(addrs, vec!["93.184.215.14:443".parse().expect("addr")]);
    let addrs = strict
        .resolve_checked("dual.example", 443)
        .await
        .expect("public name");
    assert_eq!(addrs.len(), 2);
}

#[tokio::test]
async fn checked_url_exposes_what_the_client_needs() {
    let guards = guards();
    let operator = &guards[1].1;
    let checked = operator
        .check_url("https://Public.Example.:8443/a/b?c=d#frag")
        .await
        .expect("allowed");
    assert_eq!(checked.host_str(), "public.example");
    assert_eq!(checked.port(), 8443);
    assert_eq!(checked.path_and_query(), "/a/b?c=d");
    assert_eq!(checked.host_header(), "public.example:8443");
    assert_eq!(checked.addresses(), &[support::ip("93.184.215.14")]);
    let v6 = operator
        .check_url("https://[2a00:1450:4001::1]/")
        .await
        .expect("public v6");
    assert_eq!(v6.host_header(), "[2a00:1450:4001::1]");
    assert_eq!(v6.path_and_query(), "/");
}

/// A refusal of a name that resolves to a blocked address says that the
/// target is blocked, never what it resolved to nor the range it is in:
/// a tenant must not be able to map the operator's internal network by
/// registering names and reading the refusals (issue #39, section 6).
/// Checked at registration (`check_url`) and at connect time
/// (`resolve_checked`, whose text the attempt record keeps).
#[tokio::test]
async fn a_blocked_name_never_says_what_it_resolved_to() {
    let guards = guards();
    let strict = &guards[0].1;
    let names: &[(&str, &[&str])] = &[
        (
            "private.example",
            &["10.0.0.5", "10.0.0.0", "RFC 1918", "private-use"],
        ),
        (
            "mixed.example",
            &["127.0.0.1", "127.0.0.0", "93.184.215.14"],
        ),
        ("mixed6.example", &["::1", "2606:2800"]),
        ("metadata.example", &["169.254", "instance metadata", "AWS"]),
        ("mapped.example", &["127.0.0.1", "::ffff"]),
        ("nat64.example", &["169.254", "64:ff9b", "a9fe"]),
    ];
    let mut failures = Vec::new();
    for &(name, never) in names {
        let at_registration = strict
            .check_url(&format!("https://{name}/hook"))
            .await
            .expect_err("blocked");
        let at_connect = strict
            .resolve_checked(name, 443)
            .await
            .expect_err("blocked");
        assert_eq!(at_registration.code(), BLOCKED);
        assert_eq!(at_connect.kind().as_str(), BLOCKED);
        for text in [at_registration.to_string(), at_connect.to_string()] {
            if !text.contains(name) || !text.contains("blocked") {
                failures.push(format!(
                    "{name}: {text:?} should name the host and say it is blocked"
                ));
            }
            for secret in never {
                if text.contains(secret) {
                    failures.push(format!("{name}: {text:?} reveals {secret:?}"));
                }
            }
        }
    }
    // An address the tenant wrote itself may be named, with its rule.
    let literal = strict
        .check_url("https://10.0.0.5/")
        .await
        .expect_err("blocked");
    assert!(literal.to_string().contains("10.0.0.0/8"), "{literal}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
