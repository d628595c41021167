//! The resources, as the Python and TypeScript clients have them
//! (`relay.events().publish(…)`, `relay.consumers().list()`, …), over the
//! generated layer. Everything else in the API: the generated methods of
//! [`Client`] (`relay.endpoints_pause(id)`), or [`Client::send`] with a
//! builder of [`crate::api`].

use crate::api;
use crate::retry::random_id;
use crate::types::*;
use crate::{Client, Error, Pager};

/// An idempotency key for a publish: an event id, `evt_<uuid>`.
pub fn new_event_id() -> String {
    random_id("evt_")
}

impl Client {
    pub fn events(&self) -> Events<'_> {
        Events(self)
    }

    pub fn event_types(&self) -> EventTypes<'_> {
        EventTypes(self)
    }

    pub fn consumers(&self) -> Consumers<'_> {
        Consumers(self)
    }

    pub fn endpoints(&self) -> Endpoints<'_> {
        Endpoints(self)
    }

    pub fn messages(&self) -> Messages<'_> {
        Messages(self)
    }

    pub fn portal_tokens(&self) -> PortalTokens<'_> {
        PortalTokens(self)
    }
}

/// Publishing events.
#[derive(Debug, Clone, Copy)]
pub struct Events<'a>(&'a Client);

impl Events<'_> {
    /// Publishes an event. Without `id` one is chosen (`evt_<uuid>`) and
    /// kept across this call's retries, so a retried publish never creates a
    /// second event (Relay answers a repeated id with the existing event,
    /// `duplicate: true`); set your own `id` to make retries across
    /// processes safe too.
    pub async fn publish(&self, mut event: PublishEvent) -> Result<Published, Error> {
        if event.id.is_none() {
            event.id = Some(new_event_id());
        }
        self.0.send(api::events_publish(&event).safe(true)).await
    }

    /// Publishes each event in order (the API has no batch publish); stops
    /// at the first error.
    pub async fn publish_many(
        &self,
        events: impl IntoIterator<Item = PublishEvent>,
    ) -> Result<Vec<Published>, Error> {
        let mut out = Vec::new();
        for event in events {
            out.push(self.publish(event).await?);
        }
        Ok(out)
    }

    /// An event and its messages.
    pub async fn get(&self, id: &str) -> Result<EventWithMessages, Error> {
        self.0.events_get(id).await
    }
}

/// Event types (the catalog).
#[derive(Debug, Clone, Copy)]
pub struct EventTypes<'a>(&'a Client);

impl EventTypes<'_> {
    /// Creates or updates an event type (a new version when its schema changes).
    pub async fn put(&self, name: &str, body: &PutEventTypeBody) -> Result<EventTypeOut, Error> {
        self.0.event_types_put(name, body).await
    }

    pub async fn get(&self, name: &str) -> Result<EventType, Error> {
        self.0.event_types_get(name).await
    }

    pub fn list(&self) -> Pager<EventType> {
        self.0.event_types_list(&Default::default())
    }
}

/// Consumers (your customers).
#[derive(Debug, Clone, Copy)]
pub struct Consumers<'a>(&'a Client);

impl Consumers<'_> {
    pub async fn create(&self, body: &CreateConsumer) -> Result<Consumer, Error> {
        self.0.consumers_create(body).await
    }

    pub async fn get(&self, id: &str) -> Result<Consumer, Error> {
        self.0.consumers_get(id).await
    }

    pub fn list(&self) -> Pager<Consumer> {
        self.0.consumers_list(&Default::default())
    }

    pub async fn update(&self, id: &str, body: &UpdateConsumer) -> Result<Consumer, Error> {
        self.0.consumers_update(id, body).await
    }

    pub async fn delete(&self, id: &str) -> Result<(), Error> {
        self.0.consumers_delete(id).await
    }
}

/// Endpoints (where a consumer's messages go).
#[derive(Debug, Clone, Copy)]
pub struct Endpoints<'a>(&'a Client);

impl Endpoints<'_> {
    /// Registers an endpoint; the answer carries its `public_key` (or `secret`).
    pub async fn create(&self, body: &CreateEndpoint) -> Result<EndpointCreated, Error> {
        self.0.endpoints_create(body).await
    }

    pub async fn get(&self, id: &str) -> Result<EndpointOut, Error> {
        self.0.endpoints_get(id).await
    }

    /// Every endpoint, or a consumer's.
    pub fn list(&self, consumer_id: Option<&str>) -> Pager<EndpointOut> {
        self.0.endpoints_list(&api::EndpointsListQuery {
            consumer_id: consumer_id.map(str::to_string),
            ..Default::default()
        })
    }

    /// Changes an endpoint; with `if_match` (its `ETag`) only if nobody
    /// changed it since it was read.
    pub async fn update(
        &self,
        id: &str,
        if_match: Option<&str>,
        body: &UpdateEndpoint,
    ) -> Result<EndpointOut, Error> {
        self.0.endpoints_update(id, if_match, body).await
    }

    pub async fn delete(&self, id: &str) -> Result<(), Error> {
        self.0.endpoints_delete(id).await
    }

    pub async fn rotate_key(&self, id: &str, body: &RotateKey) -> Result<KeyRotated, Error> {
        self.0.endpoints_rotate_key(id, body).await
    }
}

/// Messages (one per event and endpoint) and their attempts.
#[derive(Debug, Clone, Copy)]
pub struct Messages<'a>(&'a Client);

impl Messages<'_> {
    /// Messages, newest first; filters: `endpoint_id`, `event_id`, `state`,
    /// `event_type`, `error_code`, `since`, `until`.
    pub fn list(&self, query: &api::MessagesListQuery) -> Pager<Message> {
        self.0.messages_list(query)
    }

    pub async fn get(&self, id: &str) -> Result<Message, Error> {
        self.0.messages_get(id).await
    }

    pub fn attempts(&self, id: &str) -> Pager<Attempt> {
        self.0.messages_attempts_list(id, &Default::default())
    }

    pub async fn resend(&self, id: &str) -> Result<Resent, Error> {
        self.0.messages_resend(id).await
    }

    /// The batch operation: retries every failed message matching the
    /// filter as one job.
    pub async fn retry(&self, filter: &BulkRetry) -> Result<Job, Error> {
        self.0.messages_retry(filter).await
    }
}

/// Portal tokens (a consumer's own view of their endpoints).
#[derive(Debug, Clone, Copy)]
pub struct PortalTokens<'a>(&'a Client);

impl PortalTokens<'_> {
    /// Mints a portal token for one consumer (`token` is shown this once).
    pub async fn create(&self, body: &MintPortalToken) -> Result<PortalTokenCreated, Error> {
        self.0.portal_tokens_create(body).await
    }

    pub async fn get(&self, id: &str) -> Result<PortalTokenOut, Error> {
        self.0.portal_tokens_get(id).await
    }

    pub async fn revoke(&self, id: &str) -> Result<(), Error> {
        self.0.portal_tokens_revoke(id).await
    }

    pub async fn revoke_all(&self, consumer_id: &str) -> Result<RevokedAll, Error> {
        self.0
            .portal_tokens_revoke_all(&RevokeAll {
                consumer_id: consumer_id.to_string(),
            })
            .await
    }
}
