//! What the API may ask of this process's dispatcher, and nothing more: the
//! [`Handle`]. Manual attempts (resend, test send), an endpoint's circuit,
//! the limits a request is checked against, secret references and changes,
//! endpoint state changes, the ledger writer's wake-up, payloads as sent,
//! the tracer. The services, the claim state and the store wiring stay
//! behind it.

use std::sync::Arc;

use crate::{Dispatcher, ManualError, ManualOutcome, secrets, shapes, telemetry};

/// The API's handle on the dispatcher (cheap to clone).
#[derive(Clone)]
pub struct Handle {
    dispatcher: Arc<Dispatcher>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("owner", &self.dispatcher.config().owner)
            .finish_non_exhaustive()
    }
}

impl Handle {
    pub(crate) fn new(dispatcher: Arc<Dispatcher>) -> Handle {
        Handle { dispatcher }
    }

    /// [`Dispatcher::resend`].
    pub async fn resend(
        &self,
        scope: &relay_store::Scope,
        message_id: &str,
        actor: &str,
    ) -> Result<ManualOutcome, ManualError> {
        self.dispatcher.resend(scope, message_id, actor).await
    }

    /// [`Dispatcher::send_test`].
    pub async fn send_test(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
        event: relay_store::NewEvent,
        actor: &str,
    ) -> Result<(String, ManualOutcome), ManualError> {
        self.dispatcher
            .send_test(scope, endpoint_id, event, actor)
            .await
    }

    /// [`Dispatcher::verify_ownership`].
    pub async fn verify_ownership(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
    ) -> Result<Result<(), relay_core::ownership::Failure>, crate::ProofError> {
        self.dispatcher.verify_ownership(scope, endpoint_id).await
    }

    /// [`Dispatcher::circuit`].
    pub async fn circuit(
        &self,
        endpoint_id: &str,
    ) -> Result<relay_core::circuit::Circuit, relay_store::StoreError> {
        self.dispatcher.circuit(endpoint_id).await
    }

    /// The largest CloudEvents body the dispatcher delivers
    /// (`EngineConfig::max_payload_bytes`): larger ones are dead-lettered,
    /// so the API refuses them at once.
    pub fn max_payload_bytes(&self) -> usize {
        self.dispatcher.config().max_payload_bytes
    }

    /// Registration's check of what only the service can tell
    /// ([`relay_destinations::check_access`]: an AWS role assumed once
    /// with the tenant's `ExternalId`), through this process's guarded
    /// client.
    pub async fn check_access(
        &self,
        config: &relay_destinations::Config,
        tenant: &str,
    ) -> Result<(), relay_destinations::Invalid> {
        let a = &self.dispatcher.attempter;
        relay_destinations::check_access(
            config,
            &a.shared,
            relay_destinations::Tenancy {
                tenant,
                aws: a.config.aws.as_ref(),
                gcp: a.config.gcp.as_ref(),
            },
        )
        .await
    }

    /// The `ExternalId` of `tenant` and the principal its roles' trust
    /// policies name (when the installation knows it); `None` when the
    /// installation has no AWS identity (`[aws]`).
    pub fn aws_external_id(&self, tenant: &str) -> Option<(String, Option<String>)> {
        let aws = self.dispatcher.config().aws.as_ref()?;
        Some((aws.external_id(tenant), aws.principal().map(str::to_string)))
    }

    /// [`Dispatcher::resolver`].
    pub fn resolver(&self) -> &secrets::Resolver {
        self.dispatcher.resolver()
    }

    /// [`Dispatcher::secret_changed`].
    pub fn secret_changed(&self, scope: &relay_store::Scope, name: &str) {
        self.dispatcher.secret_changed(scope, name);
    }

    /// [`Dispatcher::endpoint_changed`].
    pub async fn endpoint_changed(
        &self,
        endpoint_id: &str,
        state: relay_core::model::EndpointState,
    ) {
        self.dispatcher.endpoint_changed(endpoint_id, state).await;
    }

    /// [`Dispatcher::wake_inbound`].
    pub fn wake_inbound(&self) {
        self.dispatcher.wake_inbound();
    }

    /// [`Dispatcher::payload_of`].
    pub async fn payload_of(
        &self,
        tenant_id: &str,
        message: &relay_core::model::Message,
        endpoint: &relay_core::model::Endpoint,
        event: &relay_core::model::Event,
    ) -> Result<Option<shapes::Payload>, shapes::ShapeError> {
        self.dispatcher
            .payload_of(tenant_id, message, endpoint, event)
            .await
    }

    /// [`Dispatcher::tracer`].
    pub fn tracer(&self) -> Option<&telemetry::Tracer> {
        self.dispatcher.tracer()
    }
}
