//! Prefixed, time-sortable identifiers.
//!
//! An id is a short type prefix (`evt`, `msg`, `ep`, …), an underscore and 26
//! characters of Crockford base32 encoding 48 bits of milliseconds followed by
//! 80 bits of randomness (the ULID layout). Ids of one kind sort by creation
//! time as strings, which is what keyset pagination relies on. The caller
//! supplies the time and the randomness, so this module stays pure.

/// The digits of ids: Crockford's base 32, five bits each.
pub const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The kinds of object that carry generated ids, with their prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Tenant,
    ApiKey,
    SigningKey,
    Consumer,
    Endpoint,
    Event,
    Message,
    Attempt,
    Job,
    Audit,
    PortalToken,
    InboundSource,
    Receipt,
    LedgerEntry,
    /// An object storage endpoint's batch (one object).
    Batch,
}

impl IdKind {
    pub const fn prefix(self) -> &'static str {
        match self {
            IdKind::Tenant => "ten",
            IdKind::ApiKey => "key",
            IdKind::SigningKey => "whk",
            IdKind::Consumer => "con",
            IdKind::Endpoint => "ep",
            IdKind::Event => "evt",
            IdKind::Message => "msg",
            IdKind::Attempt => "atm",
            IdKind::Job => "job",
            IdKind::Audit => "aud",
            IdKind::PortalToken => "ptk",
            IdKind::InboundSource => "ins",
            IdKind::Receipt => "rcp",
            IdKind::LedgerEntry => "led",
            IdKind::Batch => "bat",
        }
    }
}

/// Builds an id of `kind` from the creation time (unix milliseconds) and 80 bits of randomness.
pub fn new_id(kind: IdKind, unix_millis: i64, random: u128) -> String {
    let millis = (unix_millis.max(0) as u128) & ((1u128 << 48) - 1);
    let value = (millis << 80) | (random & ((1u128 << 80) - 1));
    let prefix = kind.prefix();
    let mut out = String::with_capacity(prefix.len() + 27);
    out.push_str(prefix);
    out.push('_');
    for i in (0..26).rev() {
        let digit = ((value >> (i * 5)) & 0x1f) as usize;
        out.push(CROCKFORD.as_bytes()[digit] as char);
    }
    out
}

/// True when `s` looks like an id of `kind` (prefix and 26 base32 characters).
pub fn is_id_of(kind: IdKind, s: &str) -> bool {
    let Some(rest) = s
        .strip_prefix(kind.prefix())
        .and_then(|r| r.strip_prefix('_'))
    else {
        return false;
    };
    rest.len() == 26 && rest.bytes().all(|b| CROCKFORD.as_bytes().contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_carry_their_prefix() {
        let a = new_id(IdKind::Message, 1_700_000_000_000, u128::MAX);
        let b = new_id(IdKind::Message, 1_700_000_000_001, 0);
        assert!(a < b, "{a} should sort before {b}");
        assert!(a.starts_with("msg_"));
        assert_eq!(a.len(), 4 + 26);
        assert!(is_id_of(IdKind::Message, &a));
        assert!(!is_id_of(IdKind::Event, &a));
        assert!(!is_id_of(IdKind::Message, "msg_short"));
    }

    #[test]
    fn randomness_distinguishes_ids_of_the_same_millisecond() {
        assert_ne!(new_id(IdKind::Event, 5, 1), new_id(IdKind::Event, 5, 2));
    }
}
