//! Reading messages, their events and attempts, and cancelling a message:
//! what the API shows of the traffic.

use relay_core::model::{Attempt, Event, Message, Page};
use relay_core::time::Timestamp;

use crate::exec::{Exec, list_scoped, scoped_row};
use crate::rows::RowExt as _;
use crate::sql::{Bind, LIVE_STATES_SQL, SqlBuilder, push_message_filter};
use crate::{AuditEntry, MessageFilter, PageRequest, Result, Scope, StoreError, audit, rows};

const MESSAGE_BY_ID: &str =
    "SELECT * FROM messages WHERE tenant_id = $1 AND environment = $2 AND id = $3";

pub async fn get_event<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Event>> {
    scoped_row(
        x,
        "SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3",
        scope,
        id,
    )
    .await?
    .map(|r| rows::event(&r))
    .transpose()
}

pub async fn get<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Message>> {
    scoped_row(x, MESSAGE_BY_ID, scope, id)
        .await?
        .map(|r| rows::message(&r))
        .transpose()
}

/// How many of the tenant's messages one page of a filtered list reads at
/// most (see [`list`]).
pub const MAX_SCANNED: u32 = 10_000;

/// One page of `scope`'s messages that `filter` matches, by id.
///
/// A filter that no index serves (a state, an error code, an event type,
/// a time range) reads the tenant's messages in id order and keeps those
/// that match; one that matches few of millions would read them all in
/// one request. So such a page reads at most [`MAX_SCANNED`] messages
/// (of the endpoint, or of the event, when the filter names one: those
/// are served by an index): when the page is not full by then, it ends
/// there with `next_after` the last message read, and may hold fewer than
/// `limit` messages, or none. Paging on until `next_after` is `None`
/// still returns every match exactly once, in order.
///
/// A list from a time on (`since`) starts at that time's ids: a message's
/// id is never earlier than its creation time (each writer takes both from
/// one clock reading, and `crate::new_id` never goes back in time), so no
/// message created since then has an id before the first id of that
/// millisecond ([`since_bound`]).
///
/// A filter naming an endpoint outside `scope` answers an empty page at
/// once (its messages are not the scope's, and reading them to find that
/// out would read another tenant's whole history).
pub async fn list<X: Exec>(
    x: &mut X,
    scope: &Scope,
    filter: &MessageFilter,
    page: &PageRequest,
) -> Result<Page<Message>> {
    if let Some(endpoint_id) = &filter.endpoint_id
        && !endpoint_in_scope(x, scope, endpoint_id).await?
    {
        return Ok(Page {
            data: Vec::new(),
            next_after: None,
        });
    }
    let bound = if scans(filter) {
        scan_end(x, scope, filter, page).await?
    } else {
        None
    };
    let mut found = list_scoped(
        x,
        "messages",
        scope,
        page,
        |q| {
            push_message_filter(q, filter);
            push_since_bound(q, filter);
            if let Some(last) = &bound {
                q.push(" AND id <= ").bind(last.as_str().into());
            }
        },
        rows::message,
        |m| &m.id,
    )
    .await?;
    if found.next_after.is_none() {
        found.next_after = bound;
    }
    Ok(found)
}

/// Whether `filter` narrows by a column no index of `messages` serves in
/// id order.
fn scans(f: &MessageFilter) -> bool {
    f.state.is_some()
        || f.states.is_some()
        || f.event_type.is_some()
        || f.error_code.is_some()
        || f.since.is_some()
        || f.until.is_some()
        || f.events_since.is_some()
}

/// Whether `endpoint_id` is one of `scope`'s endpoints (deleted or not).
async fn endpoint_in_scope<X: Exec>(x: &mut X, scope: &Scope, endpoint_id: &str) -> Result<bool> {
    const IN_SCOPE: &str =
        "SELECT 1 FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3";
    Ok(scoped_row(x, IN_SCOPE, scope, endpoint_id).await?.is_some())
}

/// The first id a message created at or after `since` can have: the
/// smallest message id of that millisecond.
pub fn since_bound(since: Timestamp) -> String {
    relay_core::id::new_id(relay_core::id::IdKind::Message, since.millis(), 0)
}

/// `AND id >= ` [`since_bound`] when `filter` lists from a time on.
fn push_since_bound(q: &mut SqlBuilder, filter: &MessageFilter) {
    if let Some(since) = filter.since {
        q.push(" AND id >= ").bind(since_bound(since).into());
    }
}

/// The id of the [`MAX_SCANNED`]th message after the page's start (of the
/// endpoint or the event the filter names, from the filter's `since` on),
/// when there are that many: the page reads no further. An endpoint's
/// messages are read from its index alone: they are its scope's (checked
/// by [`list`] before), so the scope is not read from every row.
async fn scan_end<X: Exec>(
    x: &mut X,
    scope: &Scope,
    filter: &MessageFilter,
    page: &PageRequest,
) -> Result<Option<String>> {
    let mut q = match &filter.endpoint_id {
        Some(endpoint_id) => SqlBuilder::of(
            "SELECT id FROM messages WHERE endpoint_id = $1",
            [endpoint_id.as_str().into()],
        ),
        None => SqlBuilder::of(
            "SELECT id FROM messages WHERE tenant_id = $1 AND environment = $2",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
            ],
        ),
    };
    if let Some(event_id) = &filter.event_id {
        q.push(" AND event_id = ").bind(event_id.as_str().into());
    }
    push_since_bound(&mut q, filter);
    if let Some(after) = &page.after {
        q.push(" AND id > ").bind(after.as_str().into());
    }
    q.push(" ORDER BY id LIMIT 1 OFFSET ")
        .bind(Bind::Int(i64::from(MAX_SCANNED) - 1));
    x.fetch(&q).await?.first().map(|r| r.text("id")).transpose()
}

/// One page of a message's attempts, by number (then id); `after` is the
/// id of the last attempt of the previous page.
pub async fn attempts<X: Exec>(
    x: &mut X,
    scope: &Scope,
    message_id: &str,
    page: &PageRequest,
) -> Result<Page<Attempt>> {
    let mut q = SqlBuilder::of(
        "SELECT * FROM attempts WHERE tenant_id = $1 AND environment = $2 AND message_id = $3",
        [
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            message_id.into(),
        ],
    );
    if let Some(after) = &page.after {
        q.push(" AND (number, id) > (SELECT number, id FROM attempts WHERE tenant_id = ")
            .bind(scope.tenant_id.as_str().into())
            .push(" AND environment = ")
            .bind(scope.environment.as_str().into())
            .push(" AND message_id = ")
            .bind(message_id.into())
            .push(" AND id = ")
            .bind(after.into())
            .push(")");
    }
    q.push(" ORDER BY number, id LIMIT ")
        .bind(Bind::Int(i64::from(page.limit) + 1));
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(rows::attempt)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |a| &a.id))
}

/// Cancels a message's pending attempts (`cancelled`); an attempt in
/// flight finishes but cannot change the message any more. `audit` (if
/// any) is written in the same transaction.
///
/// The lease's owner goes and its version moves on (the running attempt's
/// end is stale), but its `lease_until` stays: until then the attempt may
/// still be on the wire, and no other attempt (a resend, or what a bulk
/// retry or recover would restart) may start beside it.
pub async fn cancel<X: Exec>(
    x: &mut X,
    scope: &Scope,
    message_id: &str,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<Message> {
    // Its key's row first (PostgreSQL), then the promotion of the next
    // message of its key (`crate::ordering`).
    crate::ordering::lock_keys_of(x, &[message_id.to_string()]).await?;
    let ended = x
        .fetch(&SqlBuilder::of(
            &format!(
                "UPDATE messages SET state = 'cancelled', terminal_reason = '{}', next_attempt_at = NULL, \
                 lease_owner = NULL, lease_version = lease_version + 1, updated_at = $4 \
                 WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND state IN {LIVE_STATES_SQL} \
                 RETURNING endpoint_id, ordering_key, state",
                relay_core::transition::REASON_CANCELLED,
            ),
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                message_id.into(),
                now.into(),
            ],
        ))
        .await?;
    crate::ordering::promote(x, &crate::ordering::ended_keys(&ended)?, now).await?;
    let Some(row) = scoped_row(x, MESSAGE_BY_ID, scope, message_id).await? else {
        return Err(StoreError::NotFound);
    };
    if ended.is_empty() {
        return Err(StoreError::Conflict("message_not_pending"));
    }
    audit::insert_opt(x, scope, audit).await?;
    rows::message(&row)
}
