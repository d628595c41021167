//! The SSRF address policy: which IP addresses and ports Relay may connect to.
//!
//! Pure: no I/O, no clock. The shipped blocked ranges are data
//! (`blocked_ranges.txt`, embedded at build time), one CIDR per line with the
//! RFC or provider that defines it. Before any range is looked at an address
//! is canonicalised: IPv4-mapped IPv6 becomes the IPv4 address, and for the
//! forms that embed an IPv4 address which is what the packets really reach
//! (IPv4-compatible, NAT64, 6to4, Teredo) the embedded IPv4 address is
//! checked as well.
//!
//! Decision rule: an address is blocked when a block range contains it and no
//! operator allow range that is at least as specific (prefix at least as
//! long) contains it. So `allow_cidrs = ["127.0.0.0/8"]` opens loopback, but
//! `allow_cidrs = ["169.254.0.0/16"]` does not open the metadata address
//! 169.254.169.254/32, which only an explicit `/32` allow opens, and an
//! operator can block a single address inside a range it allows.

use std::borrow::Cow;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv6Net};

use crate::config::{ConfigError, OutboundConfig};

/// The shipped list, embedded into the binary.
pub const SHIPPED_BLOCKED_RANGES: &str = include_str!("../blocked_ranges.txt");

/// The only port allowed without operator configuration.
pub const HTTPS_PORT: u16 = 443;

/// A blocked range and why it is blocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRule {
    /// The range.
    pub net: IpNet,
    /// The reason with its source, e.g. `private-use (RFC 1918)`.
    pub reason: Cow<'static, str>,
    /// Whether the operator added it (`block_cidrs`) rather than the shipped list.
    pub operator: bool,
}

/// Why an address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Blocked {
    /// The address as it was given (before canonicalisation).
    pub address: IpAddr,
    /// The address that matched the range: the address itself, its canonical
    /// IPv4 form, or the IPv4 address embedded in it.
    pub matched: IpAddr,
    /// How `matched` was derived from `address`, when it differs.
    pub via: Option<&'static str>,
    /// The blocked range.
    pub range: IpNet,
    /// Why the range is blocked.
    pub reason: Cow<'static, str>,
}

impl Blocked {
    /// The address, with the embedded IPv4 address that matched if any:
    /// `10.0.0.5`, `::ffff:127.0.0.1 (IPv4-mapped 127.0.0.1)`.
    pub fn describe_address(&self) -> String {
        match self.via {
            Some(via) => format!("{} ({via} {})", self.address, self.matched),
            None => self.address.to_string(),
        }
    }

    /// The rule: `blocked range 10.0.0.0/8 (private-use (RFC 1918))`.
    pub fn describe_rule(&self) -> String {
        format!("blocked range {} ({})", self.range, self.reason)
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "address {} is in {}",
            self.describe_address(),
            self.describe_rule()
        )
    }
}

/// The address and port policy, built once from the shipped list and the
/// operator's `[outbound]` section.
#[derive(Debug, Clone)]
pub struct Policy {
    blocked: Vec<BlockRule>,
    allowed: Vec<IpNet>,
    allowed_ports: Vec<u16>,
}

/// The NAT64 well-known prefix (RFC 6052).
const NAT64_WKP: Ipv6Net = Ipv6Net::new_assert(Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96);
/// The NAT64 local-use prefix (RFC 8215).
const NAT64_LOCAL: Ipv6Net = Ipv6Net::new_assert(Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48);

impl Policy {
    /// The shipped ranges plus the operator's configuration.
    pub fn from_config(config: &OutboundConfig) -> Result<Policy, ConfigError> {
        config.validate()?;
        let mut blocked = shipped_rules()?;
        for net in config.block_ranges()? {
            blocked.push(BlockRule {
                net,
                reason: Cow::Borrowed("operator block_cidrs"),
                operator: true,
            });
        }
        let mut allowed_ports = vec![HTTPS_PORT];
        for &port in &config.allow_ports {
            if !allowed_ports.contains(&port) {
                allowed_ports.push(port);
            }
        }
        Ok(Policy {
            blocked,
            allowed: config.allow_ranges()?,
            allowed_ports,
        })
    }

    /// The default policy: shipped ranges, port 443 only.
    pub fn strict() -> Result<Policy, ConfigError> {
        Policy::from_config(&OutboundConfig::default())
    }

    /// Every blocked range (shipped, then operator).
    pub fn blocked(&self) -> &[BlockRule] {
        &self.blocked
    }

    /// The operator's allow ranges.
    pub fn allowed(&self) -> &[IpNet] {
        &self.allowed
    }

    /// Allowed ports: 443 and the operator's `allow_ports`.
    pub fn allowed_ports(&self) -> &[u16] {
        &self.allowed_ports
    }

    /// Whether a port may be connected to.
    pub fn port_allowed(&self, port: u16) -> bool {
        self.allowed_ports.contains(&port)
    }

    /// Checks one address: `Ok` only when neither the address nor any IPv4
    /// address embedded in it is blocked.
    pub fn check_ip(&self, address: IpAddr) -> Result<(), Blocked> {
        match address.to_canonical() {
            IpAddr::V4(v4) => {
                let via = address.is_ipv6().then_some("IPv4-mapped");
                self.check_one(address, IpAddr::V4(v4), via, 0)
            }
            IpAddr::V6(v6) => {
                let translated = if NAT64_WKP.contains(&v6) {
                    Some(NAT64_WKP.prefix_len())
                } else if NAT64_LOCAL.contains(&v6) {
                    Some(NAT64_LOCAL.prefix_len())
                } else {
                    None
                };
                // A range that strictly contains a translation prefix (the
                // reserved ::/8) says nothing about the translated address.
                self.check_one(address, address, None, translated.unwrap_or(0))?;
                for (via, v4) in embedded_ipv4(v6) {
                    self.check_one(address, IpAddr::V4(v4), Some(via), 0)?;
                }
                Ok(())
            }
        }
    }

    /// The decision for one candidate: the most specific matching block
    /// range against the most specific matching allow range.
    fn check_one(
        &self,
        address: IpAddr,
        candidate: IpAddr,
        via: Option<&'static str>,
        translation_prefix_len: u8,
    ) -> Result<(), Blocked> {
        let block = self
            .blocked
            .iter()
            .filter(|rule| {
                rule.net.contains(&candidate)
                    && (rule.operator || rule.net.prefix_len() >= translation_prefix_len)
            })
            .max_by_key(|rule| rule.net.prefix_len());
        let Some(block) = block else {
            return Ok(());
        };
        let allow = self
            .allowed
            .iter()
            .filter(|net| net.contains(&candidate))
            .map(IpNet::prefix_len)
            .max();
        match allow {
            Some(len) if len >= block.net.prefix_len() => Ok(()),
            _ => Err(Blocked {
                address,
                matched: candidate,
                via,
                range: block.net,
                reason: block.reason.clone(),
            }),
        }
    }
}

/// The shipped rules, parsed from [`SHIPPED_BLOCKED_RANGES`].
pub fn shipped_rules() -> Result<Vec<BlockRule>, ConfigError> {
    let mut rules = Vec::new();
    for (index, line) in SHIPPED_BLOCKED_RANGES.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (cidr, reason) = match line.split_once('#') {
            Some((cidr, reason)) => (cidr.trim(), reason.trim()),
            None => (line, ""),
        };
        let net = cidr
            .parse::<IpNet>()
            .ok()
            .filter(|net| net.trunc() == *net && !reason.is_empty())
            .ok_or_else(|| ConfigError::ShippedList {
                line: index + 1,
                text: line.to_owned(),
            })?;
        rules.push(BlockRule {
            net,
            reason: Cow::Borrowed(reason),
            operator: false,
        });
    }
    Ok(rules)
}

/// The IPv4 addresses an IPv6 address leads to, with the name of the form.
///
/// IPv4-mapped addresses are not listed: they are reduced to IPv4 before.
pub fn embedded_ipv4(v6: Ipv6Addr) -> Vec<(&'static str, Ipv4Addr)> {
    let bits = u128::from(v6);
    let s = v6.segments();
    let low32 = Ipv4Addr::from(bits as u32);
    let mut out = Vec::new();
    if NAT64_WKP.contains(&v6) {
        out.push(("NAT64-embedded", low32));
    } else if NAT64_LOCAL.contains(&v6) {
        // RFC 6052 2.2: the prefix length in use within the /48 is local
        // knowledge. Every format a /48, /56, /64 or /96 prefix allows is
        // considered; a format is well-formed when the "u" octet (bits
        // 64..72) and the suffix after the IPv4 address are zero. The
        // well-formed readings are checked, or all of them when none is;
        // any blocked reading refuses the address. In practice only the /96
        // format reaches a public IPv4 address: the other formats also read
        // as 0.0.0.0/8 under /96.
        let o = v6.octets();
        let u_zero = o[8] == 0;
        let readings = [
            (
                Ipv4Addr::new(o[6], o[7], o[9], o[10]),
                o[11..].iter().all(|&b| b == 0),
            ),
            (
                Ipv4Addr::new(o[7], o[9], o[10], o[11]),
                o[12..].iter().all(|&b| b == 0),
            ),
            (
                Ipv4Addr::new(o[9], o[10], o[11], o[12]),
                o[13..].iter().all(|&b| b == 0),
            ),
            (low32, true),
        ];
        let well_formed: Vec<Ipv4Addr> = readings
            .iter()
            .filter(|(_, suffix_zero)| u_zero && *suffix_zero)
            .map(|(v4, _)| *v4)
            .collect();
        let chosen = if well_formed.is_empty() {
            readings.iter().map(|(v4, _)| *v4).collect()
        } else {
            well_formed
        };
        for v4 in chosen {
            if !out.iter().any(|(_, seen)| *seen == v4) {
                out.push(("NAT64-embedded", v4));
            }
        }
    } else if s[0] == 0x2002 {
        out.push((
            "6to4-embedded",
            Ipv4Addr::from(((u32::from(s[1])) << 16) | u32::from(s[2])),
        ));
    } else if s[0] == 0x2001 && s[1] == 0 {
        out.push((
            "Teredo server",
            Ipv4Addr::from(((u32::from(s[2])) << 16) | u32::from(s[3])),
        ));
        out.push(("Teredo client", Ipv4Addr::from(!(bits as u32))));
    } else if bits >> 32 == 0 && bits > 1 {
        out.push(("IPv4-compatible", low32));
    } else if bits >> 32 == 0xffff_0000 {
        out.push(("IPv4-translated", low32));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }

    #[test]
    fn shipped_list_parses_and_is_not_empty() {
        let rules = shipped_rules();
        assert!(rules.as_ref().is_ok_and(|r| r.len() > 50), "{rules:?}");
    }

    #[test]
    fn public_addresses_pass() {
        let policy = Policy::strict().ok();
        let policy = policy.as_ref();
        for a in [
            "8.8.8.8",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(policy.map(|p| p.check_ip(ip(a))), Some(Ok(())), "{a}");
        }
    }

    #[test]
    fn embedded_forms_are_checked() {
        let Ok(policy) = Policy::strict() else {
            panic!("shipped policy")
        };
        for (a, matched) in [
            ("::ffff:127.0.0.1", "127.0.0.1"),
            ("64:ff9b::7f00:1", "127.0.0.1"),
            ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
            ("2002:7f00:1::", "127.0.0.1"),
            ("2002:a00:1::1", "10.0.0.1"),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"),
        ] {
            let err = policy.check_ip(ip(a)).err();
            assert_eq!(err.map(|b| b.matched), Some(ip(matched)), "{a}");
        }
        assert_eq!(policy.check_ip(ip("64:ff9b::808:808")), Ok(()));
        assert_eq!(policy.check_ip(ip("2002:808:808::1")), Ok(()));
    }

    #[test]
    fn most_specific_rule_wins() {
        let cfg = OutboundConfig {
            allow_cidrs: vec!["169.254.0.0/16".into(), "10.0.0.0/8".into()],
            block_cidrs: vec!["10.9.9.9".into()],
            ..Default::default()
        };
        let Ok(policy) = Policy::from_config(&cfg) else {
            panic!("policy")
        };
        assert_eq!(policy.check_ip(ip("169.254.1.1")), Ok(()));
        assert!(policy.check_ip(ip("169.254.169.254")).is_err());
        assert_eq!(policy.check_ip(ip("10.1.2.3")), Ok(()));
        assert!(policy.check_ip(ip("10.9.9.9")).is_err());
    }

    #[test]
    fn operator_block_applies_to_nat64_prefix() {
        let cfg = OutboundConfig {
            block_cidrs: vec!["64:ff9b::/96".into()],
            ..Default::default()
        };
        let Ok(policy) = Policy::from_config(&cfg) else {
            panic!("policy")
        };
        assert!(policy.check_ip(ip("64:ff9b::808:808")).is_err());
    }
}
