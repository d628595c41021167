//! Compiled JSON Schemas for the event catalog, and what a tenant's schema
//! may cost.
//!
//! A tenant's schema is a program Relay runs on every publish, so it is
//! bounded before anything walks or compiles it
//! ([`relay_core::schema_bounds`]: size, depth, references, a cost per
//! value of the payload), and compiled with a linear-time regular
//! expression engine: `pattern` and `patternProperties` run on the `regex`
//! crate (no backtracking), with a bound on each compiled expression's size.
//! What that engine cannot run (look-around, backreferences) is refused when
//! the schema is set (`422 unsupported_pattern`). A publish whose payload
//! would cost more than [`relay_core::schema_bounds::MAX_VALIDATION_COST`]
//! to validate is refused (`422 validation_too_costly`); one that costs more
//! than [`INLINE_COST`] is validated on the [`crate::cpu`] pool, never on
//! the async runtime.
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

use jsonschema::error::ValidationErrorKind;
use relay_core::schema_bounds::{self, BoundsError, Cost};
use serde_json::Value;

use crate::error::{ApiError, FieldError};

const MAX_CACHED: usize = 10_000;
/// The largest compiled form of one `pattern`, in bytes (and the lazy DFA's
/// cache): `a{1000}{1000}` is refused rather than built.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Validations that cost at most this much ([`schema_bounds::publish_cost`],
/// well under a millisecond) run inline; costlier ones on the CPU pool.
pub const INLINE_COST: u64 = 50_000;

type Key = (String, &'static str, String, i64);

/// A version's schema, bounded and compiled.
pub struct Compiled {
    pub validator: jsonschema::Validator,
    pub cost: Cost,
}

#[derive(Default)]
pub struct SchemaCache {
    validators: RwLock<HashMap<Key, Arc<Compiled>>>,
    /// One compile at a time per schema: a burst of publishes that all
    /// miss the cache (after a start) waits for the first compile instead
    /// of queueing one each on the CPU pool, where they would take the
    /// tenant's share and be answered `429 busy`.
    compiling: std::sync::Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
}

/// The longest string `format: "regex"` takes for a regular expression:
/// the syntax check's group-name bookkeeping is quadratic in the string.
pub const MAX_FORMAT_REGEX_BYTES: usize = 4096;

/// The options every tenant schema is compiled with: the linear-time
/// `regex` engine for `pattern` and `patternProperties`, and `format:
/// "regex"` (when a dialect asserts formats) only on strings of at most
/// [`MAX_FORMAT_REGEX_BYTES`].
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT),
        )
        .with_format("regex", |s: &str| {
            s.len() <= MAX_FORMAT_REGEX_BYTES && jsonschema_regex::is_valid_ecma_regex(s)
        })
}

/// Compiles a schema Relay itself defines (no bounds needed).
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, ApiError> {
    options().build(schema).map_err(compile_error)
}

/// Bounds, then compiles, a tenant's schema; a refusal is `422` with a
/// stable code and the place in the schema (`/schema/…`). Linear in the
/// schema's size, but that may be milliseconds: run it on the CPU pool.
pub fn admit(schema: &Value) -> Result<Compiled, ApiError> {
    let cost = schema_bounds::check(schema).map_err(bounds_error)?;
    let validator = compile(schema)?;
    Ok(Compiled { validator, cost })
}

/// A refused schema as a problem.
pub fn bounds_error(e: BoundsError) -> ApiError {
    ApiError::invalid(e.code(), &format!("/schema{}", e.at()), e.to_string())
}

fn compile_error(e: jsonschema::ValidationError<'_>) -> ApiError {
    if let ValidationErrorKind::Format { format } = e.kind()
        && format == "regex"
        && let Some(pattern) = e.instance().as_str()
        && let Some(why) = unsupported(pattern)
    {
        let shown: String = pattern.chars().take(100).collect();
        return ApiError::invalid(
            "unsupported_pattern",
            &format!("/schema{}", e.schema_path()),
            format!("the pattern `{shown}` {why}"),
        );
    }
    ApiError::invalid("invalid_schema", "/schema", e.to_string())
}

/// Why the linear-time engine refused a `pattern` that is a regular
/// expression; `None` when it is not one at all (`invalid_schema`).
fn unsupported(pattern: &str) -> Option<&'static str> {
    let backreference = pattern
        .as_bytes()
        .windows(2)
        .any(|w| w[0] == b'\\' && ((w[1].is_ascii_digit() && w[1] != b'0') || w[1] == b'k'));
    let lookaround = ["(?=", "(?!", "(?<=", "(?<!"]
        .iter()
        .any(|l| pattern.contains(l));
    if lookaround || backreference {
        Some(
            "uses look-around or a backreference, which Relay's linear-time regular expression engine does not run (they can take exponential time); rewrite it without them",
        )
    } else if regex_syntax::Parser::new().parse(pattern).is_ok() {
        Some("compiles to more than 1 MiB; simplify its repetitions")
    } else {
        None
    }
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

/// [`check`], refused first (`422 validation_too_costly`) when the
/// instance's values times the schema's cost per value is over
/// [`schema_bounds::MAX_VALIDATION_COST`].
pub fn check_within(
    validator: &jsonschema::Validator,
    cost: Cost,
    instance: &Value,
    path_prefix: &str,
) -> Result<(), ApiError> {
    cost_of(cost, instance, path_prefix)?;
    check(validator, instance, path_prefix)
}

fn cost_of(cost: Cost, instance: &Value, path_prefix: &str) -> Result<u64, ApiError> {
    let values = schema_bounds::count_values(instance);
    schema_bounds::publish_cost(cost, values).map_err(|total| {
        ApiError::invalid(
            "validation_too_costly",
            path_prefix,
            format!(
                "validating these {values} values against the event type's schema could cost {total} steps, over the {} accepted: send a smaller payload, or simplify the schema's `$ref`s and `allOf`/`anyOf`/`oneOf` branches",
                schema_bounds::MAX_VALIDATION_COST
            ),
        )
    })
}

/// Validates a payload of `tenant`'s against `compiled`: refused when it
/// would cost too much, inline when cheap, else on the CPU pool.
pub async fn validate(
    pool: &crate::cpu::CpuPool,
    tenant: &str,
    compiled: Arc<Compiled>,
    instance: Value,
    path_prefix: &'static str,
) -> Result<(), ApiError> {
    if cost_of(compiled.cost, &instance, path_prefix)? <= INLINE_COST {
        return check(&compiled.validator, &instance, path_prefix);
    }
    pool.run(tenant, move || {
        check(&compiled.validator, &instance, path_prefix)
    })
    .await?
}

impl SchemaCache {
    /// The compiled schema of one version of an event type, bounded and
    /// compiled (on the CPU pool) on first use. A version stored before
    /// today's bounds that exceeds them is refused here, with the same code
    /// as at `PUT`.
    pub async fn get(
        &self,
        pool: &crate::cpu::CpuPool,
        tenant_id: &str,
        environment: &'static str,
        name: &str,
        version: i64,
        schema: &Value,
    ) -> Result<Arc<Compiled>, ApiError> {
        let key = (
            tenant_id.to_string(),
            environment,
            name.to_string(),
            version,
        );
        let cached = |key: &Key| {
            self.validators
                .read()
                .ok()
                .and_then(|m| m.get(key).cloned())
        };
        if let Some(v) = cached(&key) {
            return Ok(v);
        }
        let gate = match self.compiling.lock() {
            Ok(mut m) => m.entry(key.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        };
        let _turn = gate.lock().await;
        if let Some(v) = cached(&key) {
            return Ok(v);
        }
        let schema = schema.clone();
        let compiled = pool.run(tenant_id, move || admit(&schema)).await;
        if let Ok(mut m) = self.compiling.lock() {
            m.remove(&key);
        }
        let v = Arc::new(compiled??);
        if let Ok(mut map) = self.validators.write() {
            if map.len() >= MAX_CACHED {
                map.clear();
            }
            map.insert(key, v.clone());
        }
        Ok(v)
    }
}
