//! The environment of a run: a Relay started through the binary's
//! [`Launch`](crate::Launch), its tenant and endpoints, and the receiver.

use super::*;

impl Env {
    /// A counter of Relay's `/metrics` (0 when absent), summed over the
    /// nodes.
    pub(crate) fn counter(&self, name: &str) -> u64 {
        self.counter_by_node(name).iter().sum()
    }

    /// A counter of each node's `/metrics` (0 when absent), the first node
    /// first.
    pub(crate) fn counter_by_node(&self, name: &str) -> Vec<u64> {
        std::iter::once(&self.metrics)
            .chain(self.others.iter().map(|n| &n.metrics))
            .map(|metrics| {
                metrics()
                    .lines()
                    .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
                    .unwrap_or(0)
            })
            .collect()
    }

    /// `f` as one read of the store (`ExecutorExt::read`), run on Relay's
    /// runtime.
    pub(crate) async fn read<T, F>(&self, f: F) -> anyhow::Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(
                relay_store::Rx<'a>,
            ) -> std::pin::Pin<
                Box<dyn std::future::Future<Output = relay_store::Result<T>> + Send + 'a>,
            > + Send
            + 'static,
    {
        use relay_store::ExecutorExt as _;
        let store = self.store.clone();
        Ok(self
            .relay
            .spawn(async move { store.read(f).await })
            .await??)
    }
}

impl Env {
    /// Starts Relay on the `relay` runtime, creates the tenant and the
    /// endpoints, then starts the receiver (knowing the endpoints' keys).
    pub(crate) async fn start(
        args: &BenchArgs,
        relay: Host,
        endpoints: &[EndpointSpec],
    ) -> anyhow::Result<Env> {
        Env::start_with(args, relay, endpoints, &[]).await
    }

    /// As [`Env::start`], Relay's guard also allowing `ports` (a broker's)
    /// on 127.0.0.1.
    pub(crate) async fn start_with(
        args: &BenchArgs,
        relay: Host,
        endpoints: &[EndpointSpec],
        ports: &[u16],
    ) -> anyhow::Result<Env> {
        Env::start_opts(args, relay, endpoints, ports, &[]).await
    }

    /// As [`Env::start_with`] with no endpoints, Relay's guard also
    /// trusting the CAs `cas` (an S3 server's).
    pub(crate) async fn start_trusting(
        args: &BenchArgs,
        relay: Host,
        ports: &[u16],
        cas: &[std::path::PathBuf],
    ) -> anyhow::Result<Env> {
        Env::start_opts(args, relay, &[], ports, cas).await
    }

    async fn start_opts(
        args: &BenchArgs,
        relay: Host,
        endpoints: &[EndpointSpec],
        ports: &[u16],
        cas: &[std::path::PathBuf],
    ) -> anyhow::Result<Env> {
        let dir = tempfile::Builder::new().prefix("relay-bench-").tempdir()?;
        let ca = Arc::new(TestCa::generate());
        let ca_pem = ca.write_ca_pem(dir.path())?;
        // The receiver starts after the endpoints exist (to know their keys),
        // on a port bound now and held until then (another process could
        // take a port that was only chosen).
        let socket = std::net::TcpListener::bind("127.0.0.1:0")?;
        let port = socket.local_addr()?.port();
        let (database_url, pg_drop) = match &args.database_url {
            Some(url) => {
                let name = format!("relay_bench_{}", hex::encode(random_bytes::<6>()));
                let fresh = relay_store::seed::create_database(url, &name)
                    .await
                    .context("cannot create the bench database on PostgreSQL (--database-url)")?;
                (Some(fresh), Some((url.clone(), name)))
            }
            None => (None, None),
        };
        let operator_token = format!("rop_bench{}", hex::encode(random_bytes::<16>()));
        let mut toml = toml::Table::new();
        toml.insert("data_dir".into(), dir.path().display().to_string().into());
        if let Some(url) = &database_url {
            toml.insert("database_url".into(), url.clone().into());
        }
        toml.insert("operator_token".into(), operator_token.clone().into());
        toml.insert(
            "master_key".into(),
            hex::encode(random_bytes::<32>()).into(),
        );
        toml.insert("log_level".into(), "warn".into());
        let mut outbound = toml::Table::new();
        outbound.insert(
            "allow_ports".into(),
            toml::Value::Array(
                std::iter::once(port)
                    .chain(ports.iter().copied())
                    .map(|p| i64::from(p).into())
                    .collect(),
            ),
        );
        outbound.insert(
            "allow_cidrs".into(),
            toml::Value::Array(vec!["127.0.0.1/32".into()]),
        );
        outbound.insert(
            "extra_ca_certs".into(),
            toml::Value::Array(
                std::iter::once(&ca_pem)
                    .chain(cas)
                    .map(|p| p.display().to_string().into())
                    .collect(),
            ),
        );
        toml.insert("outbound".into(), outbound.into());
        let mut limits = toml::Table::new();
        limits.insert("endpoints_per_tenant".into(), 100_000.into());
        limits.insert("endpoints_per_consumer".into(), 100_000.into());
        toml.insert("limits".into(), limits.into());
        // Attempts that hang (`isolation`) are abandoned at the end of a run
        // within the time `finish` waits, so the dispatcher releases their
        // leases and stops before the run's store is dropped.
        let mut delivery = toml::Table::new();
        delivery.insert(
            "shutdown_grace_seconds".into(),
            i64::try_from(FINISH_GRACE.as_secs()).unwrap_or(1).into(),
        );
        toml.insert("delivery".into(), delivery.into());
        // Every publisher connection is served, however many are asked for.
        let mut server = toml::Table::new();
        let connections = args.concurrency.saturating_add(64).max(1024);
        server.insert(
            "max_connections".into(),
            i64::try_from(connections)
                .unwrap_or(1_000_000)
                .min(1_000_000)
                .into(),
        );
        toml.insert("server".into(), server.into());
        let config_path = dir.path().join("relay.toml");
        std::fs::write(&config_path, toml::to_string(&toml)?)?;
        let launched = relay.spawn((relay.launch)(config_path)).await??;
        let (api_addr, store) = (launched.api_addr, launched.store);
        let (stop, engine, metrics) = (launched.stop, launched.engine, launched.metrics);
        let backend = store.backend();
        // The other nodes, after the first has migrated the database: the
        // same settings, each its own data directory.
        let mut api_addrs = vec![api_addr];
        let mut others = Vec::new();
        for i in 1..args.nodes.max(1) {
            let node_dir = dir.path().join(format!("node{i}"));
            std::fs::create_dir_all(&node_dir)?;
            let mut node_toml = toml.clone();
            node_toml.insert("data_dir".into(), node_dir.display().to_string().into());
            let node_config = node_dir.join("relay.toml");
            std::fs::write(&node_config, toml::to_string(&node_toml)?)?;
            let node = relay.spawn((relay.launch)(node_config)).await??;
            api_addrs.push(node.api_addr);
            others.push(Node {
                stop: node.stop,
                engine: node.engine,
                metrics: node.metrics,
            });
        }

        let mut tenant = Tenant::create(
            api_addr,
            &operator_token,
            "bench",
            &[
                "bench.published",
                "fresh.published",
                "backlog.scheduled",
                "bad.queued",
                "recovery.retried",
            ],
        )
        .await?;
        let (tenant_id, api_key) = (tenant.id.clone(), tenant.api.token.clone());
        let mut endpoint_ids = Vec::with_capacity(endpoints.len());
        let mut keys = Vec::new();
        for spec in endpoints {
            let url = format!("https://127.0.0.1:{port}{}", spec.path);
            let id = tenant
                .endpoint(&url, spec.event_type, args.endpoint_concurrency)
                .await?;
            if args.verify {
                let k = tenant
                    .api
                    .call(
                        Method::GET,
                        &format!("/v1/endpoints/{id}/signing-keys"),
                        None,
                    )
                    .await?;
                for key in k["data"].as_array().into_iter().flatten() {
                    if let Some(pk) = key["public_key"].as_str() {
                        keys.push(VerificationKey::parse(pk)?);
                    }
                }
            }
            endpoint_ids.push(id);
        }
        let limit_key = SigningKey::generate(SignatureScheme::V1a, random_bytes::<32>());
        keys.push(limit_key.verification_key());
        let receiver = Receiver::start_on(
            ReceiverConfig {
                ca: Some(ca),
                record_bodies: false,
                verify: args.verify.then_some(keys),
                ..ReceiverConfig::default()
            },
            socket,
        )
        .await?;
        let tracker = Arc::new(Tracker::default());
        let t = tracker.clone();
        receiver.set_arrival_hook(Some(Arc::new(move |a| t.arrival(a))));
        Ok(Env {
            api_addr,
            api_addrs,
            others,
            operator_token,
            port,
            api_key,
            tenant_id,
            endpoint_ids,
            receiver,
            tracker,
            backend,
            store,
            relay,
            stop,
            engine,
            pg_drop,
            limit_key,
            metrics,
            _dir: dir,
        })
    }

    /// Stops this Relay (one node) and starts it again on the same data
    /// directory and database, its configuration file changed by `edit`
    /// first (`scale`: the retention period, so the purge starts at once
    /// with the new one). The tenant, its key, its endpoints and the
    /// receiver stay; the API's address is the new one.
    pub(crate) async fn relaunch(
        &mut self,
        edit: impl FnOnce(&mut toml::Table),
    ) -> anyhow::Result<()> {
        anyhow::ensure!(self.others.is_empty(), "relaunch is for one node");
        let _ = self.stop.send(true);
        let engine = std::mem::replace(&mut self.engine, tokio::spawn(async {}));
        let _ = tokio::time::timeout(FINISH_GRACE + Duration::from_secs(2), engine).await;
        let path = self._dir.path().join("relay.toml");
        let mut config: toml::Table = std::fs::read_to_string(&path)?.parse()?;
        edit(&mut config);
        std::fs::write(&path, toml::to_string(&config)?)?;
        let launched = self.relay.spawn((self.relay.launch)(path)).await??;
        self.api_addr = launched.api_addr;
        self.api_addrs = vec![launched.api_addr];
        self.store = launched.store;
        self.stop = launched.stop;
        self.engine = launched.engine;
        self.metrics = launched.metrics;
        Ok(())
    }

    pub(crate) async fn finish(self) {
        let _ = self.stop.send(true);
        for node in &self.others {
            let _ = node.stop.send(true);
        }
        // Let the dispatchers finish: attempts that hang, as in `isolation`,
        // are abandoned after `FINISH_GRACE`, and their leases released.
        let _ = tokio::time::timeout(FINISH_GRACE + Duration::from_secs(2), self.engine).await;
        for node in self.others {
            let _ = tokio::time::timeout(FINISH_GRACE + Duration::from_secs(2), node.engine).await;
        }
        if let Some((url, name)) = &self.pg_drop {
            let _ = relay_store::seed::drop_database(url, name).await;
        }
    }
}
