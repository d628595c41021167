//! The per-endpoint cache of what its attempts reuse: the destination read
//! as its kind's configuration (parsed once per endpoint version, never per
//! attempt), the built client (and its connections), the secrets it was
//! built with, and the opened signing keys; rebuilt when the endpoint's
//! version or a secret it names changes.

use super::*;
use relay_core::model::Endpoint;
use relay_store::ExecutorExt as _;

/// What one endpoint's attempts reuse: its destination's configuration, its
/// built client, the resolved secrets it was built with, and its stored
/// keys with their opened signing keys.
pub(crate) struct Built {
    pub(crate) config: Config,
    pub(crate) client: Client,
    /// Whether the configuration has secret references (resolved again
    /// once `secret_refresh` has passed).
    refs: bool,
    secrets: Secrets,
    pub(super) keys: Vec<(EndpointKeyRecord, SigningKey)>,
}

impl Built {
    /// The signing keys that sign at `now` (not retired).
    pub(crate) fn active_keys(&self, now: Timestamp) -> Vec<SigningKey> {
        active_keys(&self.keys, now)
    }
}

/// Of `keys`, those that sign at `now` (not retired).
pub(super) fn active_keys(
    keys: &[(EndpointKeyRecord, SigningKey)],
    now: Timestamp,
) -> Vec<SigningKey> {
    keys.iter()
        .filter(|(r, _)| r.retires_at.is_none_or(|t| t > now))
        .map(|(_, k)| k.clone())
        .collect()
}

/// One endpoint's cache entry: what was built for which version of the
/// endpoint, and when its secrets were last resolved (the engine's clock).
struct Entry {
    version: Timestamp,
    resolved_at: Timestamp,
    /// The endpoint's scope and its tenant secrets' names (for
    /// [`EndpointCache::secret_changed`]).
    scope: Scope,
    tenant_secrets: Vec<String>,
    built: Arc<Built>,
}

/// Built clients and signing keys by endpoint, made once. An entry is reused
/// while the endpoint's `updated_at` is unchanged: every change of the
/// endpoint (its destination, a key rotation) bumps it, so the next attempt
/// builds again. An endpoint with secret references resolves them again
/// once `secret_refresh` has passed, and builds its client again when a
/// value changed (a tenant secret replaced, a file rewritten). A tenant
/// secret replaced or deleted through this process's API is noticed at
/// once ([`EndpointCache::secret_changed`]); through another node's, within
/// `secret_refresh`.
#[derive(Default)]
pub struct EndpointCache {
    entries: Mutex<HashMap<String, Entry>>,
}

impl EndpointCache {
    /// The tenant secret `name` of `scope` changed: every endpoint naming it
    /// resolves its secrets again at its next attempt (and builds its client
    /// again if a value differs).
    pub fn secret_changed(&self, scope: &Scope, name: &str) {
        if let Ok(mut map) = self.entries.lock() {
            for e in map.values_mut() {
                if e.scope == *scope && e.tenant_secrets.iter().any(|n| n == name) {
                    e.resolved_at = Timestamp(i64::MIN);
                }
            }
        }
    }

    pub(crate) async fn get(&self, a: &Attempter, c: &Claimed) -> Result<Arc<Built>, Unbuilt> {
        self.get_for(a, &c.endpoint, &c.tenant_id).await
    }

    /// [`EndpointCache::get`] for an endpoint of tenant `tenant_id`, with
    /// no message at hand (the ownership challenge).
    pub(crate) async fn get_for(
        &self,
        a: &Attempter,
        endpoint: &Endpoint,
        tenant_id: &str,
    ) -> Result<Arc<Built>, Unbuilt> {
        let (id, version) = (&endpoint.id, endpoint.updated_at);
        let now = a.clock.now();
        let refresh_ms = i64::try_from(a.config.secret_refresh.as_millis()).unwrap_or(i64::MAX);
        let cached = self.entries.lock().ok().and_then(|map| {
            map.get(id)
                .filter(|e| e.version == version)
                .map(|e| (e.built.clone(), e.resolved_at))
        });
        if let Some((built, resolved_at)) = &cached
            && (!built.refs || now.0.saturating_sub(resolved_at.0) < refresh_ms)
        {
            return Ok(built.clone());
        }
        let keys = match &cached {
            Some((built, _)) => built.keys.clone(),
            None => load_keys(a, id).await.map_err(Unbuilt::Unavailable)?,
        };
        let config = match &cached {
            Some((built, _)) => built.config.clone(),
            None => Config::try_from(&endpoint.destination).map_err(|e| {
                Unbuilt::Invalid(format!(
                    "the destination does not read as its kind's configuration: {e}"
                ))
            })?,
        };
        let refs: Vec<SecretRef> = config
            .secret_refs()
            .into_iter()
            .map(|(_, r)| r.clone())
            .collect();
        let scope = Scope {
            tenant_id: tenant_id.to_string(),
            environment: endpoint.environment,
        };
        // An endpoint registered before credentials needed TLS (or whose
        // operator withdrew the loopback allowance) resolves none of them:
        // they would travel in clear.
        if let Err(refused) =
            relay_destinations::credentials_in_clear(&config, a.shared.https.guard()).await
        {
            return Err(Unbuilt::Secret {
                message: refused.message,
                keys,
                config: Box::new(config),
            });
        }
        let secrets = match a.resolver.resolve(&scope, &refs).await {
            Ok(s) => s,
            // The store could not be read now: not the tenant's doing.
            Err(e) if e.failure == crate::secrets::Failure::Unavailable => {
                return Err(Unbuilt::Unavailable(format!(
                    "cannot resolve a secret reference: {e}"
                )));
            }
            Err(e) => {
                return Err(Unbuilt::Secret {
                    message: e.to_string(),
                    keys,
                    config: Box::new(config),
                });
            }
        };
        if let Some((built, _)) = &cached
            && built.secrets.same(&secrets)
        {
            // Same endpoint version, same secrets: keep the client (and its connections).
            return Ok(self.insert(id, version, now, &scope, &refs, built.clone()));
        }
        let tenancy = relay_destinations::Tenancy {
            tenant: tenant_id,
            aws: a.config.aws.as_ref(),
            gcp: a.config.gcp.as_ref(),
        };
        let client = match relay_destinations::build_for(&config, &a.shared, &secrets, tenancy) {
            Ok(client) => client,
            Err(e) => {
                return Err(Unbuilt::Secret {
                    message: format!("{}: the value cannot be used by this destination", e.0),
                    keys,
                    config: Box::new(config),
                });
            }
        };
        let built = Arc::new(Built {
            refs: !refs.is_empty(),
            config,
            client,
            secrets,
            keys,
        });
        Ok(self.insert(id, version, now, &scope, &refs, built))
    }

    /// Keeps `built` for the endpoint and returns the client to use: the
    /// one already kept when concurrent attempts built the same endpoint
    /// version with the same secrets (the first one kept wins, so they all
    /// share one client: its connections, and its OAuth 2.0 token cache,
    /// whose concurrent misses then make one token request).
    fn insert(
        &self,
        id: &str,
        version: Timestamp,
        resolved_at: Timestamp,
        scope: &Scope,
        refs: &[SecretRef],
        built: Arc<Built>,
    ) -> Arc<Built> {
        let tenant_secrets = refs
            .iter()
            .filter_map(|r| match r {
                SecretRef::Secret(name) => Some(name.clone()),
                _ => None,
            })
            .collect();
        let Ok(mut map) = self.entries.lock() else {
            return built;
        };
        if map.len() > 100_000 {
            map.clear();
        }
        let built = match map.get(id) {
            Some(e) if e.version == version && e.built.secrets.same(&built.secrets) => {
                e.built.clone()
            }
            _ => built,
        };
        map.insert(
            id.to_string(),
            Entry {
                version,
                resolved_at,
                scope: scope.clone(),
                tenant_secrets,
                built: built.clone(),
            },
        );
        built
    }
}

/// Why an endpoint's client could not be built.
pub(crate) enum Unbuilt {
    /// Relay's own trouble (the store cannot be read now): the lease
    /// expires and the message is tried again, no attempt used.
    Unavailable(String),
    /// A secret reference of the destination did not resolve, or its value
    /// does not fit: the tenant's configuration, so a failed attempt is
    /// recorded and retried on the schedule, and the endpoint warned.
    /// `message` names the reference, never a value.
    Secret {
        message: String,
        keys: Vec<(EndpointKeyRecord, SigningKey)>,
        config: Box<Config>,
    },
    /// The stored destination does not read as its kind's configuration
    /// (an unknown kind, or fields it does not take): no attempt can
    /// deliver it, so the message is dead-lettered as
    /// `invalid_destination`.
    Invalid(String),
}

impl std::fmt::Display for Unbuilt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unbuilt::Unavailable(m) | Unbuilt::Secret { message: m, .. } | Unbuilt::Invalid(m) => {
                f.write_str(m)
            }
        }
    }
}

/// The endpoint's stored signing keys, opened.
async fn load_keys(
    a: &Attempter,
    id: &str,
) -> Result<Vec<(EndpointKeyRecord, SigningKey)>, String> {
    let id = id.to_string();
    let records = a
        .store
        .read(move |mut x| Box::pin(async move { relay_store::endpoints::keys(&mut x, &id).await }))
        .await
        .map_err(|e| format!("cannot load signing keys: {e}"))?;
    let mut keys = Vec::with_capacity(records.len());
    for r in records {
        keys.push((
            r.clone(),
            keys::open(&a.master, &r).map_err(|e| e.to_string())?,
        ));
    }
    Ok(keys)
}
