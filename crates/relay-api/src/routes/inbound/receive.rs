//! The receiving route, `POST /inbound/{token}` (see the parent module's
//! documentation), and each source's rate-limit bucket.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use relay_core::id::IdKind;
use relay_core::secret::SecretRef;
use relay_core::time::Timestamp;
use relay_inbound::SourceSecret;
use relay_inbound::bucket::Bucket;
use relay_inbound::model::{REJECTED_BODY_KEPT_BYTES, StoredSecret};
use relay_store::inbound::{self, NewReceipt, Received, open_secret};
use relay_store::{Commit, ExecutorExt as _, Scope, new_id};
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::error::ApiError;

/// Which of a source's two budgets a request spends: requests that verify
/// and requests that do not each have one, at the source's rate, so that
/// anyone who knows the URL cannot starve the real provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    Verified,
    Unverified,
}

/// Each source's rate-limit buckets in this process, one per [`Budget`].
#[derive(Default)]
pub struct Buckets(std::sync::Mutex<HashMap<(String, Budget), Bucket>>);

impl Buckets {
    /// Takes a token of `source_id`'s `budget` at `now`, if it has one.
    pub fn take(&self, source_id: &str, budget: Budget, rate: u32, now: Timestamp) -> bool {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.entry((source_id.to_owned(), budget))
            .or_insert_with(|| Bucket::full(rate, now))
            .take(rate, now)
    }
}

/// What the receiving route answers to a verified request.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptAccepted {
    pub receipt_id: String,
    /// Whether this provider event had been received before (then counted, not processed again).
    pub duplicate: bool,
}

/// The URL the provider addressed, as it may have signed it (Twilio).
fn addressed_url(state: &AppState, headers: &HeaderMap, uri: &Uri) -> String {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    match &state.settings.public_url {
        Some(base) => format!("{}{path}", base.trim_end_matches('/')),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("localhost");
            format!("http://{host}{path}")
        }
    }
}

/// A source's secret: its sealed value opened, or its reference resolved
/// in the source's scope (a tenant secret is read at every receipt, so a
/// replaced one verifies from the next request). The error names the
/// reference, never a value.
async fn source_secret(
    state: &AppState,
    scope: &Scope,
    source_id: &str,
    stored: &StoredSecret,
) -> Result<SourceSecret, String> {
    match stored {
        StoredSecret::Sealed(_) => {
            open_secret(&state.master_key, source_id, stored).map_err(|e| e.to_string())
        }
        StoredSecret::Reference(text) => {
            let reference = SecretRef::parse(text).map_err(|e| e.to_string())?;
            let value = state
                .engine
                .resolver()
                .resolve_one(scope, &reference)
                .await
                .map_err(|e| e.to_string())?;
            value
                .expose_str()
                .map(SourceSecret::new)
                .ok_or_else(|| format!("{reference}: not UTF-8 text"))
        }
    }
}

fn too_many() -> Response {
    let mut r = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        "the source's rate limit is reached; retry later",
    )
    .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// `POST /inbound/{token}`: what a provider sends (see the module's
/// documentation and `docs/inbound.md`; not in the OpenAPI document, which
/// describes the API for callers with a token). Answers `200`
/// [`ReceiptAccepted`], or a problem: `401` with the refusal's code (kept as
/// a rejected receipt), `404`, `413`, `429`.
pub async fn receive(
    State(state): State<Arc<AppState>>,
    Path(token): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found("inbound source");
    if token.len() != 32 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(not_found());
    }
    let by = token.clone();
    let record = state
        .store
        .read(move |mut x| Box::pin(async move { inbound::source_by_token(&mut x, &by).await }))
        .await?
        .ok_or_else(not_found)?;
    let source = &record.source;
    let now = state.clock.now();
    let limit = source.max_body_bytes as usize;
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the body is larger than the source's limit ({limit} bytes)"),
        )
    })?;
    let scope = Scope {
        tenant_id: record.tenant_id.clone(),
        environment: source.environment,
    };
    let mut secrets = Vec::with_capacity(2);
    let previous = record
        .previous
        .iter()
        .filter(|(_, until)| *until > now)
        .map(|(s, _)| s);
    for (i, stored) in std::iter::once(&record.secret).chain(previous).enumerate() {
        match source_secret(&state, &scope, &source.id, stored).await {
            Ok(s) => secrets.push(s),
            // The secret before a rotation that no longer resolves only
            // stops verifying; the current one must.
            Err(e) if i > 0 => {
                tracing::warn!(source = %source.id, error = %e, "an inbound source's previous secret is unavailable; only the current one verifies");
            }
            Err(e) => {
                tracing::error!(source = %source.id, error = %e, "an inbound source's secret is unavailable; the request is refused for the provider to retry");
                return Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "source_secret_unavailable",
                    "the source's signing secret cannot be read now; retry later",
                ));
            }
        }
    }
    let pairs: Vec<(String, String)> = headers
        .iter()
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    let url = addressed_url(&state, &headers, &uri);
    let request = relay_inbound::Request {
        url: &url,
        headers: &pairs,
        body: &bytes,
    };
    let verdict = relay_inbound::verify(source.preset, &source.options, &secrets, &request, now);
    // The budget is the verdict's: a refused request (a wrong or missing
    // signature, a replay) never spends the provider's.
    let budget = match verdict {
        Ok(_) => Budget::Verified,
        Err(_) => Budget::Unverified,
    };
    if !state
        .inbound_buckets
        .take(&source.id, budget, source.rate_limit_per_second, now)
    {
        return Ok(too_many());
    }
    let kept: BTreeMap<String, String> = source
        .preset
        .kept_headers(&source.options)
        .into_iter()
        .filter_map(|name| {
            let value = request.header(&name)?.to_owned();
            Some((name, value))
        })
        .collect();
    let mut body = bytes.to_vec();
    if verdict.is_err() {
        body.truncate(REJECTED_BODY_KEPT_BYTES);
    }
    let receipt = NewReceipt {
        id: new_id(IdKind::Receipt, now),
        tenant_id: record.tenant_id.clone(),
        environment: source.environment,
        source_id: source.id.clone(),
        provider: source.provider.clone(),
        preset: source.preset,
        verdict: verdict
            .as_ref()
            .map(|v| v.event_id.clone())
            .map_err(|r| r.code().to_owned()),
        url,
        headers: kept,
        body,
        now,
    };
    let received = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { inbound::receive(&mut x, &receipt).await })
        })
        .await?;
    match (received, verdict) {
        (Received::New { id }, _) => {
            state.engine.wake_inbound();
            Ok(Json(ReceiptAccepted {
                receipt_id: id,
                duplicate: false,
            })
            .into_response())
        }
        (Received::Duplicate { id, received_count }, Ok(v)) => {
            tracing::debug!(source = %source.id, receipt = %id, event_id = ?v.event_id, received_count, "a provider event received again; counted");
            Ok(Json(ReceiptAccepted {
                receipt_id: id,
                duplicate: true,
            })
            .into_response())
        }
        (Received::Duplicate { .. }, Err(_)) => Err(ApiError::internal()),
        (Received::Rejected { id }, verdict) => {
            let refusal = verdict.err();
            let code = refusal.as_ref().map_or("signature_no_match", |r| r.code());
            tracing::info!(source = %source.id, receipt = %id, refusal = code, "an inbound request was refused; kept as a rejected receipt");
            let detail = refusal.map_or_else(|| "refused".to_owned(), |r| r.to_string());
            Err(ApiError::new(StatusCode::UNAUTHORIZED, code, detail))
        }
    }
}
