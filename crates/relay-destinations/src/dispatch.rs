//! The dispatch over the kinds, generated from the one list of them in
//! `lib.rs` (`kinds! { Https => https::Https, … }`): each line names a
//! variant of [`crate::Config`] (and of [`crate::Client`] and
//! [`crate::Delivery`]) and the type implementing [`crate::Kind`] for it.
//! [`crate::Config`] is read from a [`Destination`] (the generic JSON form
//! the API and the store hold) by the kind its `kind` names.
//! A line ending in `[batching]` marks a kind that also implements
//! [`crate::Batching`]: the batching dispatch ([`crate::batching`],
//! `Client::batch_line`, `seal`, `write_batch`) asks it, and answers `None`
//! for every other kind.
//! Every function here is a `match` with one arm per line.
//!
//! [`Destination`]: relay_core::model::Destination

/// Generates [`crate::Config`], [`crate::Client`], [`crate::Delivery`] and
/// the functions that dispatch a configuration, a client or a result to its
/// kind.
macro_rules! kinds {
    ($($(#[$meta:meta])* $variant:ident => $kind:ty $([$cap:ident])?),+ $(,)?) => {
        /// An endpoint's destination read by its kind: the kind's own
        /// configuration type. Read from a [`Destination`] with
        /// `Config::try_from` (once per endpoint version in the engine),
        /// written back with `Destination::from`.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Config {
            $($(#[$meta])* $variant(<$kind as $crate::Kind>::Config),)+
        }

        impl Config {
            /// Every kind's name ([`Kind::NAME`]), in the list's order.
            pub const KINDS: &'static [&'static str] = &[$($(#[$meta])* <$kind as Kind>::NAME,)+];

            /// The listed kind named `name`, as a `'static` name (a metric's
            /// label); `None` when no kind is.
            pub fn kind_named(name: &str) -> Option<&'static str> {
                Config::KINDS.iter().copied().find(|k| *k == name)
            }

            /// The configuration of kind `kind` from the object's members
            /// other than `kind`: an unknown kind, or members that kind does
            /// not take, are serde's errors (the API's `422`).
            pub fn parse(
                kind: &str,
                members: serde_json::Map<String, serde_json::Value>,
            ) -> Result<Config, serde_json::Error> {
                $($(#[$meta])*
                if kind == <$kind as Kind>::NAME {
                    return serde_json::from_value(serde_json::Value::Object(members))
                        .map(Config::$variant);
                })+
                Err(serde::de::Error::unknown_variant(kind, Config::KINDS))
            }

            /// The kind's name, the destination's `kind`.
            pub const fn kind(&self) -> &'static str {
                match self {
                    $($(#[$meta])* Config::$variant(_) => <$kind as Kind>::NAME,)+
                }
            }

            /// Every secret reference of the configuration, with the JSON
            /// pointer of its field in the endpoint (for the API's `422`)
            /// ([`Kind::secret_refs`]). A client is built from their
            /// resolved values ([`build`]).
            pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
                match self {
                    $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::secret_refs(c),)+
                }
            }

            /// The hosts the configuration's credentials would travel to in
            /// clear: a destination with secret references whose kind
            /// connects without TLS ([`Kind::hosts_in_clear`]). `None` when
            /// nothing would. The rule behind "credentials never travel in
            /// clear" (docs/destinations.md), checked by
            /// [`credentials_in_clear`].
            pub fn credentials_in_clear(&self) -> Option<Vec<&str>> {
                let hosts = match self {
                    $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::hosts_in_clear(c),)+
                }?;
                (!self.secret_refs().is_empty()).then_some(hosts)
            }

            /// How its messages carry the CloudEvent ([`Kind::content_mode`]).
            pub fn content_mode(&self) -> ContentMode {
                match self {
                    $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::content_mode(c),)+
                }
            }

            /// What its deliveries are ([`Kind::profile`]).
            pub fn profile(&self) -> Profile {
                match self {
                    $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::profile(c),)+
                }
            }

            /// The same configuration in content mode `mode`, or `None` when
            /// the kind has no such mode ([`Kind::set_content_mode`]).
            pub fn with_content_mode(mut self, mode: ContentMode) -> Option<Config> {
                let set = match &mut self {
                    $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::set_content_mode(c, mode),)+
                };
                set.then_some(self)
            }

            /// The generic form: the JSON object, `kind` first, then the
            /// configuration's fields in its type's order.
            pub fn to_destination(&self) -> Destination {
                match self {
                    $($(#[$meta])* Config::$variant(c) => $crate::config::tagged(<$kind as Kind>::NAME, c),)+
                }
            }
        }

        /// Every kind's name, its configuration's name as a component of
        /// the API's document (`<Variant>Destination`) and its derived
        /// OpenAPI schema, in the list's order; a test-only kind has none.
        pub(crate) fn schemas() -> Vec<(&'static str, &'static str, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)> {
            let all = [$($(#[$meta])* (<$kind as Kind>::NAME, concat!(stringify!($variant), "Destination"), <$kind as Kind>::schema()),)+];
            all.into_iter().filter_map(|(name, component, schema)| Some((name, component, schema?))).collect()
        }

        /// An endpoint's built client, of its kind.
        #[derive(Clone)]
        pub enum Client {
            $($(#[$meta])* $variant(<$kind as $crate::Kind>::Client),)+
        }

        /// The result of one attempt, of its kind.
        pub enum Delivery {
            $($(#[$meta])* $variant(<$kind as $crate::Kind>::Result),)+
        }

        /// Whether `message` can be carried by `destination`'s kind,
        /// checked before any attempt: `Err` dead-letters it unsent
        /// ([`Unfit::reason`]).
        pub fn admit(config: &Config, message: &Prepared) -> Result<(), Unfit> {
            fn check<K: Kind>(c: &K::Config, m: &Prepared) -> Result<(), Unfit> {
                fits(&K::capacity(c), K::message_bytes(c, m), K::address_len(c, m))?;
                K::admits(c, m)
            }
            match config {
                $($(#[$meta])* Config::$variant(c) => check::<$kind>(c, message),)+
            }
        }

        /// What `destination`'s kind, as configured, can carry.
        pub fn capacity(config: &Config) -> Capacity {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::capacity(c),)+
            }
        }

        /// Checks an endpoint's destination at registration: the kind's
        /// checks, then that no credentials would travel in clear
        /// ([`credentials_in_clear`]).
        pub async fn validate(config: &Config, guard: &Guard) -> Result<(), Invalid> {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::validate(c, guard).await,)+
            }?;
            credentials_in_clear(config, guard).await
        }

        /// Checks the resolved values of an endpoint's secret references
        /// at registration ([`Kind::check_values`]). `secrets` holds the
        /// value of every reference of [`Config::secret_refs`].
        pub fn check_values(config: &Config, secrets: &Secrets) -> Result<(), Invalid> {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::check_values(c, secrets),)+
            }
        }

        /// Builds an endpoint's client. `secrets` holds the resolved value
        /// of every reference of [`Config::secret_refs`]; a missing
        /// one is [`Unresolved`].
        pub fn build(
            config: &Config,
            shared: &Shared,
            secrets: &Secrets,
        ) -> Result<Client, Unresolved> {
            build_for(config, shared, secrets, Tenancy::default())
        }

        /// [`build`] for an endpoint of `tenancy`'s tenant
        /// ([`Kind::build_for`]): what the engine builds with.
        pub fn build_for(
            config: &Config,
            shared: &Shared,
            secrets: &Secrets,
            tenancy: Tenancy<'_>,
        ) -> Result<Client, Unresolved> {
            Ok(match config {
                $($(#[$meta])* Config::$variant(c) => {
                    Client::$variant(<$kind as Kind>::build_for(c, shared, secrets, tenancy)?)
                })+
            })
        }

        /// [`Kind::check_access`] of an endpoint of `tenancy`'s tenant, at
        /// registration.
        pub async fn check_access(
            config: &Config,
            shared: &Shared,
            tenancy: Tenancy<'_>,
        ) -> Result<(), Invalid> {
            match config {
                $($(#[$meta])* Config::$variant(c) => {
                    <$kind as Kind>::check_access(c, shared, tenancy).await
                })+
            }
        }

        /// The hosts (with their ports) `destination`'s credentials are
        /// sent to ([`Kind::credential_hosts`]): a change of them drops
        /// the credentials a change does not restate.
        pub fn credential_hosts(config: &Config, guard: &Guard) -> BTreeSet<String> {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::credential_hosts(c, guard),)+
            }
        }

        /// Where `destination`'s messages go, in one line for the audit log
        /// ([`Kind::describe`]).
        pub fn describe(config: &Config) -> String {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::describe(c),)+
            }
        }

        /// The literal credentials `destination` still stores in clear
        /// ([`Kind::literal_credentials`]): the pointer of each and its
        /// name, never its value.
        pub fn literal_credentials(config: &Config) -> Vec<(&'static str, &str)> {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::literal_credentials(c),)+
            }
        }

        /// `destination` as shown in a read: its literal credentials
        /// redacted ([`Kind::redact`]).
        pub fn redact(config: &mut Config) {
            match config {
                $($(#[$meta])* Config::$variant(c) => <$kind as Kind>::redact(c),)+
            }
        }

        /// How `destination`'s kind batches its messages
        /// ([`crate::Batching::policy`]); `None`: one message, one delivery.
        pub fn batching(config: &Config) -> Option<$crate::BatchPolicy> {
            match config {
                $($(#[$meta])* Config::$variant(_c) => $crate::dispatch::if_batching!(
                    $($cap)? { Some(<$kind as $crate::Batching>::policy(_c)) } else { None }
                ),)+
            }
        }

        impl Client {
            /// The line `message` adds to its batch
            /// ([`crate::Batching::line`]); `None`: the kind does not batch.
            pub fn batch_line(&self, message: &Prepared) -> Option<bytes::Bytes> {
                match self {
                    $($(#[$meta])* Client::$variant(_c) => $crate::dispatch::if_batching!(
                        $($cap)? { Some(<$kind as $crate::Batching>::line(_c, message)) } else { None }
                    ),)+
                }
            }

            /// The object of the batch `closing` ([`crate::Batching::seal`]);
            /// `None`: the kind does not batch.
            pub fn seal(&self, closing: &$crate::Closing<'_>) -> Option<$crate::BatchObject> {
                match self {
                    $($(#[$meta])* Client::$variant(_c) => $crate::dispatch::if_batching!(
                        $($cap)? { Some(<$kind as $crate::Batching>::seal(_c, closing)) } else { None }
                    ),)+
                }
            }

            /// Writes a batch's object ([`crate::Batching::write`]); `None`:
            /// the kind does not batch (nothing was written).
            pub async fn write_batch(
                &self,
                object: &$crate::BatchObject,
                limits: Limits,
            ) -> Option<Delivery> {
                match self {
                    $($(#[$meta])* Client::$variant(_c) => $crate::dispatch::if_batching!(
                        $($cap)? {
                            Some(Delivery::$variant(
                                <$kind as $crate::Batching>::write(_c, object, limits).await,
                            ))
                        } else { None }
                    ),)+
                }
            }
        }

        impl Client {
            /// Makes one attempt.
            pub async fn deliver(&self, message: &Prepared, limits: Limits) -> Delivery {
                match self {
                    $($(#[$meta])* Client::$variant(c) => {
                        Delivery::$variant(<$kind as Kind>::deliver(c, message, limits).await)
                    })+
                }
            }
        }

        impl Delivery {
            /// The kind's verdict on this result.
            pub fn classify(&self, now: Timestamp) -> Verdict {
                match self {
                    $($(#[$meta])* Delivery::$variant(r) => <$kind as Kind>::classify(r, now),)+
                }
            }

            /// A health warning the result calls for beside its verdict
            /// ([`Kind::health_warning`]).
            pub fn health_warning(&self) -> Option<HealthWarning> {
                match self {
                    $($(#[$meta])* Delivery::$variant(r) => <$kind as Kind>::health_warning(r),)+
                }
            }

            /// What the attempt record keeps.
            pub fn record(&self) -> Record {
                match self {
                    $($(#[$meta])* Delivery::$variant(r) => <$kind as Kind>::record(r),)+
                }
            }
        }
    };
}

/// `then` for a kind marked `[batching]` in the list, `else` for the
/// others: the batching dispatch has an arm for every kind, and only the
/// marked ones are asked of [`crate::Batching`].
macro_rules! if_batching {
    (batching { $($then:tt)* } else { $($else:tt)* }) => { $($then)* };
    ({ $($then:tt)* } else { $($else:tt)* }) => { $($else)* };
}

pub(crate) use {if_batching, kinds};
