//! Relay's API client for Rust, with the webhook verifier beside it.
//!
//! ```no_run
//! # async fn run() -> Result<(), relay_sdk::Error> {
//! use relay_sdk::{Client, types::PublishEvent};
//!
//! let relay = Client::builder("https://relay.example", "rk_live_…").build()?;
//! let event = relay
//!     .events()
//!     .publish(PublishEvent {
//!         r#type: "order.paid".into(),
//!         data: serde_json::json!({ "id": "o_1042", "total": 4200 }),
//!         ..Default::default()
//!     })
//!     .await?;
//! println!("{}", event.id);
//! # Ok(()) }
//! ```
//!
//! Two layers, as in the Python and TypeScript SDKs:
//!
//! - **generated** from Relay's OpenAPI document (`docs/openapi.json`, by
//!   `scripts/generate-sdks`), never edited: [`types`] (a serde type per
//!   schema), [`api`] (a request builder per operation) and an async method
//!   of [`Client`] per operation (`relay.endpoints_pause(id)`; a list's is a
//!   [`Pager`]);
//! - **hand-written** over it: [`Client`] (retries with backoff on `429` and
//!   `503` honouring `Retry-After`, a timeout per attempt, a request id per
//!   attempt, `User-Agent: relay-sdk-rust/<version>`), the resources
//!   (`relay.events().publish(…)` chooses the event id, the idempotency key,
//!   and keeps it across retries), [`Pager`] (pagination as an async
//!   iterator or a `Stream`) and [`Error`] (problem+json answers as
//!   [`Error::Problem`] with `status`, `code`, `errors` and `request_id`).
//!
//! The verifier is [`verify`] (the `relay-verify` crate): `relay_sdk::verify::Verifier`.

mod client;
mod error;
mod operation;
mod pager;
mod resources;
pub mod retry;
mod secret;
mod transport;

/// The API's types, one per schema of Relay's OpenAPI document (generated).
#[path = "generated/types.rs"]
pub mod types;

/// A request builder per operation of Relay's OpenAPI document (generated).
#[path = "generated/api.rs"]
pub mod api;

#[path = "generated/methods.rs"]
mod methods;

/// The webhook verifier: the `relay-verify` crate, in the same package.
pub use relay_verify as verify;

pub use client::{Client, ClientBuilder, USER_AGENT};
pub use error::{Error, FieldError, Problem};
pub use operation::{Method, Operation, Page};
pub use pager::Pager;
pub use resources::{
    Consumers, Endpoints, EventTypes, Events, Messages, PortalTokens, new_event_id,
};
pub use retry::{SystemTimer, Timer};
pub use secret::Secret;
