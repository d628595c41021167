//! Compiled JSON Schemas for the event catalog.
//!
//! Compiling a schema costs far more than validating with it, so validators
//! are cached by (tenant, environment, event type, version). A version's
//! schema never changes once written, so entries never go stale; the cache is
//! simply cleared when it grows past a bound.
//!
//! `jsonschema` is built without its default features: a `$ref` to a remote
//! URL is an error, never a fetch (that would be an SSRF path).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::error::{ApiError, FieldError};

const MAX_CACHED: usize = 10_000;

type Key = (String, &'static str, String, i64);

#[derive(Default)]
pub struct SchemaCache {
    validators: RwLock<HashMap<Key, Arc<jsonschema::Validator>>>,
}

/// Compiles `schema`, or explains why it is not a usable JSON Schema.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, ApiError> {
    jsonschema::validator_for(schema)
        .map_err(|e| ApiError::invalid("invalid_schema", "/schema", e.to_string()))
}

/// Validates `instance`; failures are `422 schema_violation` listing each
/// failing JSON path. Messages never echo the payload's values.
pub fn check(
    validator: &jsonschema::Validator,
    instance: &Value,
    path_prefix: &str,
) -> Result<(), ApiError> {
    let errors: Vec<FieldError> = validator
        .iter_errors(instance)
        .take(50)
        .map(|e| FieldError {
            field: format!("{path_prefix}{}", e.instance_path()),
            message: e.masked().to_string(),
        })
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    let mut err = ApiError::fields(errors);
    err.code = "schema_violation";
    err.detail = format!(
        "the payload does not match the event type's schema: {}",
        err.detail
    );
    Err(err)
}

impl SchemaCache {
    /// The validator for one version of an event type, compiled on first use.
    pub fn get(
        &self,
        tenant_id: &str,
        environment: &'static str,
        name: &str,
        version: i64,
        schema: &Value,
    ) -> Result<Arc<jsonschema::Validator>, ApiError> {
        let key = (
            tenant_id.to_string(),
            environment,
            name.to_string(),
            version,
        );
        if let Some(v) = self
            .validators
            .read()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(v);
        }
        let v = Arc::new(compile(schema)?);
        if let Ok(mut map) = self.validators.write() {
            if map.len() >= MAX_CACHED {
                map.clear();
            }
            map.insert(key, v.clone());
        }
        Ok(v)
    }
}
