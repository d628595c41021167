//! The dispatch over the kinds, generated from the one list of them in
//! `lib.rs` (`kinds! { Https => https::Https, … }`): each line names a
//! variant of [`Destination`] (and of [`crate::Client`] and
//! [`crate::Delivery`]) and the type implementing [`crate::Kind`] for it.
//! A line ending in `[batching]` marks a kind that also implements
//! [`crate::Batching`]: the batching dispatch ([`crate::batching`],
//! `Client::batch_line`, `seal`, `write_batch`) asks it, and answers `None`
//! for every other kind.
//! Every function here is a `match` with one arm per line; a variant of
//! [`Destination`] missing from the list is a non-exhaustive `match`, so
//! the compiler names the place to add it.
//!
//! [`Destination`]: relay_core::model::Destination

/// Generates [`crate::Client`], [`crate::Delivery`] and the functions that
/// dispatch a destination, a client or a result to its kind.
macro_rules! kinds {
    ($($(#[$meta:meta])* $variant:ident => $kind:ty $([$cap:ident])?),+ $(,)?) => {
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
        pub fn admit(destination: &Destination, message: &Prepared) -> Result<(), Unfit> {
            fn check<K: Kind>(c: &K::Config, m: &Prepared) -> Result<(), Unfit> {
                fits(&K::capacity(c), K::message_bytes(c, m), K::address_len(c, m))
            }
            match destination {
                $($(#[$meta])* Destination::$variant(c) => check::<$kind>(c, message),)+
            }
        }

        /// What `destination`'s kind, as configured, can carry.
        pub fn capacity(destination: &Destination) -> Capacity {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::capacity(c),)+
            }
        }

        /// Checks an endpoint's destination at registration: the kind's
        /// checks, then that no credentials would travel in clear
        /// ([`credentials_in_clear`]).
        pub async fn validate(destination: &Destination, guard: &Guard) -> Result<(), Invalid> {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::validate(c, guard).await,)+
            }?;
            credentials_in_clear(destination, guard).await
        }

        /// Checks the resolved values of an endpoint's secret references
        /// at registration ([`Kind::check_values`]). `secrets` holds the
        /// value of every reference of [`Destination::secret_refs`].
        pub fn check_values(destination: &Destination, secrets: &Secrets) -> Result<(), Invalid> {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::check_values(c, secrets),)+
            }
        }

        /// Builds an endpoint's client. `secrets` holds the resolved value
        /// of every reference of [`Destination::secret_refs`]; a missing
        /// one is [`Unresolved`].
        pub fn build(
            destination: &Destination,
            shared: &Shared,
            secrets: &Secrets,
        ) -> Result<Client, Unresolved> {
            Ok(match destination {
                $($(#[$meta])* Destination::$variant(c) => {
                    Client::$variant(<$kind as Kind>::build(c, shared, secrets)?)
                })+
            })
        }

        /// The hosts (with their ports) `destination`'s credentials are
        /// sent to ([`Kind::credential_hosts`]): a change of them drops
        /// the credentials a change does not restate.
        pub fn credential_hosts(destination: &Destination, guard: &Guard) -> BTreeSet<String> {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::credential_hosts(c, guard),)+
            }
        }

        /// Where `destination`'s messages go, in one line for the audit log
        /// ([`Kind::describe`]).
        pub fn describe(destination: &Destination) -> String {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::describe(c),)+
            }
        }

        /// The literal credentials `destination` still stores in clear
        /// ([`Kind::literal_credentials`]): the pointer of each and its
        /// name, never its value.
        pub fn literal_credentials(destination: &Destination) -> Vec<(&'static str, &str)> {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::literal_credentials(c),)+
            }
        }

        /// `destination` as shown in a read: its literal credentials
        /// redacted ([`Kind::redact`]).
        pub fn redact(destination: &mut Destination) {
            match destination {
                $($(#[$meta])* Destination::$variant(c) => <$kind as Kind>::redact(c),)+
            }
        }

        /// How `destination`'s kind batches its messages
        /// ([`crate::Batching::policy`]); `None`: one message, one delivery.
        pub fn batching(destination: &Destination) -> Option<$crate::BatchPolicy> {
            match destination {
                $($(#[$meta])* Destination::$variant(_c) => $crate::dispatch::if_batching!(
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
