//! What a tenant writes in the trust policy of an AWS role its endpoints
//! name (`role_arn` of the `sqs` kind): its `ExternalId`, which Relay
//! derives from the tenant's id under the installation's secret and sends
//! with every `AssumeRole` (the confused-deputy guard AWS asks of a third
//! party), and the principal Relay assumes roles as, when the installation
//! knows it. No tenant can choose another's `ExternalId`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};

/// The trust policy's values for the tenant's roles.
#[derive(Debug, Serialize, ToSchema)]
pub struct AwsExternalId {
    /// The `ExternalId` Relay sends when it assumes one of this tenant's
    /// roles: require it with the condition
    /// `"StringEquals": {"sts:ExternalId": "<this value>"}`. Stable for the
    /// tenant; different for every tenant.
    pub external_id: String,
    /// The AWS principal Relay assumes roles as (the role of its own web
    /// identity), for the trust policy's `Principal`; `null` when the
    /// operator configured static keys (ask the operator for their ARN).
    pub principal: Option<String>,
}

/// Get the AWS ExternalId of the tenant
///
/// The values a role's trust policy names so that Relay may assume it for
/// this tenant's endpoints (an `sqs` destination's `role_arn`): the
/// tenant's `ExternalId` and, when known, Relay's own principal. See
/// docs/destinations.md, "Credentials: keys or a role".
///
/// Tenant API key. `409` `aws_roles_unavailable`: the installation has no
/// AWS identity (the operator's `[aws]` section), so no role can be named.
#[utoipa::path(operation_id = "endpoints.get_aws_external_id", get, path = "/v1/aws/external-id", tag = "endpoints",
    responses((status = 200, description = "the tenant's ExternalId", body = AwsExternalId),
              (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn external_id(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
) -> Result<Json<AwsExternalId>, ApiError> {
    let (external_id, principal) = state
        .engine
        .aws_external_id(&auth.scope.tenant_id)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::CONFLICT,
                "aws_roles_unavailable",
                "this installation has no AWS identity to assume roles with (the operator's `[aws]` section)",
            )
        })?;
    Ok(Json(AwsExternalId {
        external_id,
        principal,
    }))
}
