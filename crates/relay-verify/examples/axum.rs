//! Receiving Relay webhooks in axum, verified over the raw body.
//!
//! RELAY_WEBHOOK_KEYS="whpk_…" cargo run -p relay-verify --example axum
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use relay_verify::{MemorySeenStore, Verifier, VerifyError};

#[derive(Clone)]
pub struct Webhooks {
    verifier: Arc<Verifier>,
    seen: Arc<MemorySeenStore>,
}

pub fn app(verifier: Verifier) -> Router {
    let state = Webhooks {
        verifier: Arc::new(verifier),
        seen: Arc::new(MemorySeenStore::new()),
    };
    Router::new()
        .route("/webhooks/relay", post(receive))
        .with_state(state)
}

// `Bytes` is the body exactly as received: never verify a re-serialized `Json<T>`.
async fn receive(State(hooks): State<Webhooks>, headers: HeaderMap, body: Bytes) -> StatusCode {
    match hooks.verifier.verify_once(&headers, &body, &*hooks.seen) {
        Ok(()) => {}
        // Already processed: say so with a 2xx, or Relay retries it.
        Err(VerifyError::Duplicate) => return StatusCode::OK,
        // 401 is retried by Relay (useful while a new key is being deployed).
        Err(_) => return StatusCode::UNAUTHORIZED,
    }
    // Authentic: now parse it.
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    println!("{} {}", event["type"], event["id"]);
    StatusCode::NO_CONTENT
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One or more keys, space-separated: during a rotation, the new and the old.
    let keys = std::env::var("RELAY_WEBHOOK_KEYS")?;
    let verifier = Verifier::new(keys.split_whitespace())?;
    let listener = tokio::net::TcpListener::bind("0.0.0.0:3000").await?;
    axum::serve(listener, app(verifier)).await?;
    Ok(())
}
