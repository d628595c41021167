//! Mapping database rows to the domain types of `relay-core`.
//!
//! [`RowExt`] gives both backends' rows the same few typed getters, so each
//! mapping below is written once. A value that cannot be read back (an unknown
//! state name, broken JSON) is [`StoreError::Corrupt`], never a panic.

use relay_core::model::{
    ApiKey, Attempt, AttemptErrorKind, AttemptTrigger, Consumer, ConsumerKind, Destination,
    Endpoint, EndpointState, EndpointVersion, Environment, Event, JobKind, JobState, Message,
    MessageState, SignatureScheme, Tenant, WarningKind,
};
use relay_core::outcome::{AttemptOutcome, FailureCode};
use relay_core::time::Timestamp;
use serde_json::value::RawValue;
use sqlx::Row;

use crate::{AuditEntry, EndpointKeyRecord, EndpointWarning, Job, Result, StoreError};

/// Typed column access shared by SQLite and PostgreSQL rows.
pub trait RowExt {
    fn text(&self, col: &str) -> Result<String>;
    fn opt_text(&self, col: &str) -> Result<Option<String>>;
    fn int(&self, col: &str) -> Result<i64>;
    fn opt_int(&self, col: &str) -> Result<Option<i64>>;

    fn ts(&self, col: &str) -> Result<Timestamp> {
        self.int(col).map(Timestamp)
    }
    fn opt_ts(&self, col: &str) -> Result<Option<Timestamp>> {
        Ok(self.opt_int(col)?.map(Timestamp))
    }
    fn json<T: serde::de::DeserializeOwned>(&self, col: &str) -> Result<T> {
        let s = self.text(col)?;
        serde_json::from_str(&s).map_err(|e| StoreError::Corrupt(format!("{col}: {e}")))
    }
    fn opt_json<T: serde::de::DeserializeOwned>(&self, col: &str) -> Result<Option<T>> {
        match self.opt_text(col)? {
            None => Ok(None),
            Some(s) => serde_json::from_str(&s)
                .map(Some)
                .map_err(|e| StoreError::Corrupt(format!("{col}: {e}"))),
        }
    }
    fn environment(&self, col: &str) -> Result<Environment> {
        let s = self.text(col)?;
        Environment::parse(&s).ok_or_else(|| StoreError::Corrupt(format!("{col}: `{s}`")))
    }
}

macro_rules! impl_row_ext {
    ($row:ty) => {
        impl RowExt for $row {
            fn text(&self, col: &str) -> Result<String> {
                Ok(self.try_get::<String, _>(col)?)
            }
            fn opt_text(&self, col: &str) -> Result<Option<String>> {
                Ok(self.try_get::<Option<String>, _>(col)?)
            }
            fn int(&self, col: &str) -> Result<i64> {
                Ok(self.try_get::<i64, _>(col)?)
            }
            fn opt_int(&self, col: &str) -> Result<Option<i64>> {
                Ok(self.try_get::<Option<i64>, _>(col)?)
            }
        }
    };
}

impl_row_ext!(sqlx::sqlite::SqliteRow);
impl_row_ext!(sqlx::postgres::PgRow);

fn parse_with<T>(col: &str, s: String, parse: impl Fn(&str) -> Option<T>) -> Result<T> {
    parse(&s).ok_or_else(|| StoreError::Corrupt(format!("{col}: `{s}`")))
}

pub fn tenant(r: &impl RowExt) -> Result<Tenant> {
    Ok(Tenant {
        id: r.text("id")?,
        name: r.text("name")?,
        parent_id: r.opt_text("parent_id")?,
        created_at: r.ts("created_at")?,
    })
}

pub fn api_key(r: &impl RowExt) -> Result<ApiKey> {
    Ok(ApiKey {
        id: r.text("id")?,
        tenant_id: r.text("tenant_id")?,
        environment: r.environment("environment")?,
        name: r.opt_text("name")?,
        prefix: r.text("prefix")?,
        created_at: r.ts("created_at")?,
        revoked_at: r.opt_ts("revoked_at")?,
    })
}

pub fn consumer(r: &impl RowExt) -> Result<Consumer> {
    Ok(Consumer {
        id: r.text("id")?,
        external_id: r.text("external_id")?,
        kind: {
            let kind = r.text("kind")?;
            ConsumerKind::parse(&kind)
                .ok_or_else(|| StoreError::Corrupt(format!("consumer kind `{kind}`")))?
        },
        name: r.opt_text("name")?,
        source: r.text("source")?,
        environment: r.environment("environment")?,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
    })
}

pub fn endpoint(r: &impl RowExt) -> Result<Endpoint> {
    let destination: Destination = r.json("destination_json")?;
    let schedule: Option<Vec<u32>> = r.opt_json("retry_schedule_json")?;
    let to_u32 = |col: &str, v: i64| {
        u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{col}: {v}")))
    };
    Ok(Endpoint {
        id: r.text("id")?,
        consumer_id: r.text("consumer_id")?,
        environment: r.environment("environment")?,
        description: r.opt_text("description")?,
        destination,
        event_types: r.json("event_types_json")?,
        signature_scheme: parse_with(
            "signature_scheme",
            r.text("signature_scheme")?,
            SignatureScheme::parse,
        )?,
        retry_schedule_seconds: schedule,
        max_concurrency: to_u32("max_concurrency", r.int("max_concurrency")?)?,
        rate_limit_per_second: r
            .opt_int("rate_limit_per_second")?
            .map(|v| to_u32("rate_limit_per_second", v))
            .transpose()?,
        snapshot_fields: r.json("snapshot_fields_json")?,
        allow_personal_data: r.int("allow_personal_data")? != 0,
        event_type_versions: r.json("event_type_versions_json")?,
        version: r.int("version")?,
        version_started_at: r.ts("version_started_at")?,
        state: parse_with("state", r.text("state")?, EndpointState::parse)?,
        disabled_reason: r.opt_text("disabled_reason")?,
        auto_disable: r.int("auto_disable")? != 0,
        ordering: parse_with(
            "ordering",
            r.text("ordering")?,
            relay_core::model::DeliveryOrder::parse,
        )?,
        verify_ownership: r.int("verify_ownership")? != 0,
        ownership_origin: r.opt_text("ownership_origin")?,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
        revision: r.int("revision")?,
    })
}

pub fn endpoint_version(r: &impl RowExt) -> Result<EndpointVersion> {
    Ok(EndpointVersion {
        version: r.int("version")?,
        snapshot_fields: r.json("snapshot_fields_json")?,
        allow_personal_data: r.int("allow_personal_data")? != 0,
        event_type_versions: r.json("event_type_versions_json")?,
        started_at: r.ts("started_at")?,
    })
}

pub fn event(r: &impl RowExt) -> Result<Event> {
    let data = RawValue::from_string(r.text("data")?)
        .map_err(|e| StoreError::Corrupt(format!("data: {e}")))?;
    Ok(Event {
        id: r.text("id")?,
        event_type: r.text("event_type")?,
        type_version: r.int("type_version")?,
        environment: r.environment("environment")?,
        subject: r.opt_text("subject")?,
        data,
        consumer_id: r.opt_text("consumer_id")?,
        ordering_key: r.opt_text("ordering_key")?,
        seq: r.opt_int("seq")?,
        traceparent: r.text("traceparent")?,
        expires_at: r.opt_ts("expires_at")?,
        time: r
            .opt_ts("occurred_at")?
            .map_or_else(|| r.ts("created_at"), Ok)?,
        created_at: r.ts("created_at")?,
    })
}

pub fn message(r: &impl RowExt) -> Result<Message> {
    Ok(Message {
        id: r.text("id")?,
        event_id: r.text("event_id")?,
        endpoint_id: r.text("endpoint_id")?,
        event_type: r.text("event_type")?,
        environment: r.environment("environment")?,
        endpoint_version: r.opt_int("endpoint_version")?,
        event_type_version: r.opt_int("event_type_version")?,
        state: parse_with("state", r.text("state")?, MessageState::parse)?,
        ordering_key: r.opt_text("ordering_key")?,
        attempts_used: r.int("attempts_used")?,
        deferrals_used: r.int("deferrals_used")?,
        next_attempt_at: r.opt_ts("next_attempt_at")?,
        last_error_code: r.opt_text("last_error_code")?,
        terminal_reason: r.opt_text("terminal_reason")?,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
    })
}

pub fn attempt(r: &impl RowExt) -> Result<Attempt> {
    let detail: serde_json::Value = r.json("detail")?;
    let (status_code, response_body, response_body_encoding) =
        relay_core::model::https_fields(&detail);
    Ok(Attempt {
        id: r.text("id")?,
        message_id: r.text("message_id")?,
        endpoint_id: r.text("endpoint_id")?,
        number: r.int("number")?,
        trigger: parse_with("trigger", r.text("trigger")?, AttemptTrigger::parse)?,
        started_at: r.ts("started_at")?,
        duration_ms: r.int("duration_ms")?,
        destination_ip: r.opt_text("destination_ip")?,
        status_code,
        // Never fails: a code this build does not know is kept as `Other`.
        error_kind: r
            .opt_text("error_kind")?
            .as_deref()
            .map(AttemptErrorKind::parse),
        error_code: r
            .opt_text("error_code")?
            .map(|c| parse_with("error_code", c, FailureCode::parse))
            .transpose()?,
        body_sha256: r.text("body_sha256")?,
        signature: r.text("signature")?,
        response_body,
        response_body_encoding,
        outcome: parse_with("outcome", r.text("outcome")?, AttemptOutcome::parse)?,
        detail,
    })
}

pub fn endpoint_key(r: &impl RowExt) -> Result<EndpointKeyRecord> {
    Ok(EndpointKeyRecord {
        id: r.text("id")?,
        endpoint_id: r.text("endpoint_id")?,
        scheme: parse_with("scheme", r.text("scheme")?, SignatureScheme::parse)?,
        public_key: r.opt_text("public_key")?,
        sealed_secret: r.text("sealed_secret")?,
        created_at: r.ts("created_at")?,
        retires_at: r.opt_ts("retires_at")?,
    })
}

pub fn endpoint_warning(r: &impl RowExt) -> Result<EndpointWarning> {
    Ok(EndpointWarning {
        endpoint_id: r.text("endpoint_id")?,
        // Never fails: a kind this build does not know is kept as `Other`.
        kind: WarningKind::parse(&r.text("kind")?),
        detail: r.text("detail")?,
        at: r.ts("at")?,
    })
}

pub fn audit_entry(r: &impl RowExt) -> Result<AuditEntry> {
    Ok(AuditEntry {
        id: r.text("id")?,
        actor: r.text("actor")?,
        action: r.text("action")?,
        target: r.text("target")?,
        parameters: r.json("parameters")?,
        at: r.ts("at")?,
    })
}

pub fn job(r: &impl RowExt) -> Result<Job> {
    Ok(Job {
        id: r.text("id")?,
        kind: parse_with("kind", r.text("kind")?, JobKind::parse)?,
        parameters: r.json("parameters")?,
        state: parse_with("state", r.text("state")?, JobState::parse)?,
        processed: r.int("processed")?,
        affected: r.int("affected")?,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
        finished_at: r.opt_ts("finished_at")?,
    })
}
