//! `relay config check`: the effective configuration as TOML, secrets
//! redacted, each value followed by where it came from (`# default`,
//! `# file relay.toml`, `# env RELAY_LISTEN`, `# flag --listen`).

use super::{Config, LogFormat, Secret};

impl Config {
    /// The effective configuration as TOML, secrets redacted.
    pub fn render_redacted(&self) -> String {
        let redacted = |s: &Option<Secret>| match s {
            Some(_) => toml::Value::String("<redacted>".into()),
            None => toml::Value::String("<unset>".into()),
        };
        let mut t = toml::Table::new();
        t.insert("listen".into(), self.listen.clone().into());
        t.insert(
            "data_dir".into(),
            self.data_dir.display().to_string().into(),
        );
        t.insert(
            "database_url".into(),
            redact_url(&self.database_url()).into(),
        );
        t.insert("operator_token".into(), redacted(&self.operator_token));
        t.insert("master_key".into(), redacted(&self.master_key));
        let path = |p: &Option<std::path::PathBuf>| {
            p.as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "<unset>".into())
        };
        t.insert("master_key_file".into(), path(&self.master_key_file).into());
        t.insert(
            "master_key_previous".into(),
            redacted(&self.master_key_previous),
        );
        t.insert(
            "master_key_previous_file".into(),
            path(&self.master_key_previous_file).into(),
        );
        t.insert(
            "log_format".into(),
            match self.log_format {
                LogFormat::Text => "text",
                LogFormat::Json => "json",
            }
            .into(),
        );
        t.insert("log_level".into(), self.log_level.clone().into());
        let mut outbound = toml::Table::new();
        let ints = |v: &[u16]| toml::Value::Array(v.iter().map(|p| i64::from(*p).into()).collect());
        let strs = |v: &[String]| toml::Value::Array(v.iter().map(|s| s.clone().into()).collect());
        outbound.insert("allow_ports".into(), ints(&self.outbound.allow_ports));
        outbound.insert("allow_cidrs".into(), strs(&self.outbound.allow_cidrs));
        outbound.insert("block_cidrs".into(), strs(&self.outbound.block_cidrs));
        let cas: Vec<String> = self
            .outbound
            .extra_ca_certs
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        outbound.insert("extra_ca_certs".into(), strs(&cas));
        outbound.insert(
            "allow_plaintext_credentials_to_loopback".into(),
            self.outbound.allow_plaintext_credentials_to_loopback.into(),
        );
        t.insert("outbound".into(), outbound.into());
        let mut limits = toml::Table::new();
        let l = &self.limits;
        limits.insert(
            "max_request_bytes".into(),
            (l.max_request_bytes as i64).into(),
        );
        limits.insert(
            "endpoints_per_tenant".into(),
            i64::from(l.endpoints_per_tenant).into(),
        );
        limits.insert(
            "endpoints_per_consumer".into(),
            i64::from(l.endpoints_per_consumer).into(),
        );
        limits.insert(
            "max_event_ttl_seconds".into(),
            (l.max_event_ttl_seconds as i64).into(),
        );
        limits.insert(
            "max_endpoint_concurrency".into(),
            i64::from(l.max_endpoint_concurrency).into(),
        );
        t.insert("limits".into(), limits.into());
        let mut retry = toml::Table::new();
        let r = &self.retry;
        retry.insert(
            "min_wait_seconds".into(),
            i64::from(r.min_wait_seconds).into(),
        );
        retry.insert(
            "max_wait_seconds".into(),
            i64::from(r.max_wait_seconds).into(),
        );
        retry.insert("max_attempts".into(), i64::from(r.max_attempts).into());
        retry.insert(
            "max_total_window_seconds".into(),
            (r.max_total_window_seconds as i64).into(),
        );
        t.insert("retry".into(), retry.into());
        let mut delivery = toml::Table::new();
        delivery.insert(
            "lease_seconds".into(),
            i64::try_from(self.delivery.lease_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "request_timeout_seconds".into(),
            i64::try_from(self.delivery.request_timeout_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "circuit_failure_threshold".into(),
            i64::from(self.delivery.circuit_failure_threshold).into(),
        );
        delivery.insert(
            "circuit_half_open_probes".into(),
            i64::from(self.delivery.circuit_half_open_probes).into(),
        );
        delivery.insert(
            "circuit_cool_down_seconds".into(),
            i64::try_from(self.delivery.circuit_cool_down_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "recovery_per_second".into(),
            i64::from(self.delivery.recovery_per_second).into(),
        );
        delivery.insert(
            "max_recovery_in_flight".into(),
            i64::from(self.delivery.max_recovery_in_flight).into(),
        );
        delivery.insert(
            "shutdown_grace_seconds".into(),
            i64::try_from(self.delivery.shutdown_grace_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "manual_pending_per_endpoint".into(),
            i64::from(self.delivery.manual_pending_per_endpoint).into(),
        );
        delivery.insert(
            "ownership_proof".into(),
            self.delivery.ownership_proof.as_str().into(),
        );
        t.insert("delivery".into(), delivery.into());
        let mut retention = toml::Table::new();
        retention.insert("days".into(), i64::from(self.retention.days).into());
        t.insert("retention".into(), retention.into());
        t.insert(
            "public_url".into(),
            self.public_url
                .clone()
                .unwrap_or_else(|| "<unset>".into())
                .into(),
        );
        let mut inbound = toml::Table::new();
        inbound.insert("processing".into(), self.inbound.processing.into());
        t.insert("inbound".into(), inbound.into());
        let mut secrets = toml::Table::new();
        let strs = |v: &[String]| toml::Value::Array(v.iter().map(|s| s.clone().into()).collect());
        let grants = self
            .secrets
            .grants
            .iter()
            .map(|g| {
                let mut t = toml::Table::new();
                t.insert("tenant".into(), g.tenant.clone().into());
                t.insert("env_prefixes".into(), strs(&g.env_prefixes));
                t.insert("file_dirs".into(), strs(&g.file_dirs));
                toml::Value::Table(t)
            })
            .collect();
        secrets.insert("grants".into(), toml::Value::Array(grants));
        secrets.insert(
            "refresh_seconds".into(),
            i64::try_from(self.secrets.refresh_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        t.insert("secrets".into(), secrets.into());
        let mut server = toml::Table::new();
        let sv = &self.server;
        let secs = |v: u64| toml::Value::Integer(i64::try_from(v).unwrap_or(i64::MAX));
        server.insert(
            "header_read_timeout_seconds".into(),
            secs(sv.header_read_timeout_seconds),
        );
        server.insert(
            "body_read_timeout_seconds".into(),
            secs(sv.body_read_timeout_seconds),
        );
        server.insert(
            "response_write_timeout_seconds".into(),
            secs(sv.response_write_timeout_seconds),
        );
        server.insert("idle_timeout_seconds".into(), secs(sv.idle_timeout_seconds));
        server.insert(
            "max_connections".into(),
            i64::from(sv.max_connections).into(),
        );
        server.insert(
            "shutdown_drain_seconds".into(),
            secs(sv.shutdown_drain_seconds),
        );
        server.insert(
            "shutdown_delay_seconds".into(),
            secs(sv.shutdown_delay_seconds),
        );
        server.insert("role".into(), sv.role.as_str().into());
        t.insert("server".into(), server.into());
        let mut metrics = toml::Table::new();
        metrics.insert(
            "listen".into(),
            self.metrics
                .listen
                .clone()
                .unwrap_or_else(|| "<unset>".into())
                .into(),
        );
        metrics.insert("token".into(), redacted(&self.metrics.token));
        metrics.insert("tenant_labels".into(), self.metrics.tenant_labels.into());
        t.insert("metrics".into(), metrics.into());
        let mut telemetry = toml::Table::new();
        telemetry.insert(
            "otlp_endpoint".into(),
            self.telemetry
                .otlp_endpoint
                .as_deref()
                .map(redact_url)
                .unwrap_or_else(|| "<unset>".into())
                .into(),
        );
        telemetry.insert(
            "service_name".into(),
            self.telemetry.service_name.clone().into(),
        );
        t.insert("telemetry".into(), telemetry.into());
        let mut aws = toml::Table::new();
        let a = &self.aws;
        aws.insert("external_id_secret".into(), redacted(&a.external_id_secret));
        aws.insert("access_key_id".into(), redacted(&a.access_key_id));
        aws.insert("secret_access_key".into(), redacted(&a.secret_access_key));
        aws.insert("session_token".into(), redacted(&a.session_token));
        aws.insert(
            "web_identity_token_file".into(),
            path(&a.web_identity_token_file).into(),
        );
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "<unset>".into());
        aws.insert("role_arn".into(), text(&a.role_arn).into());
        aws.insert(
            "credential_source".into(),
            a.credential_source.map_or("<unset>", |s| s.as_str()).into(),
        );
        aws.insert(
            "metadata_endpoint".into(),
            a.metadata_endpoint.clone().into(),
        );
        aws.insert(
            "container_credentials_url".into(),
            text(&a.container_credentials_url).into(),
        );
        aws.insert(
            "container_token_file".into(),
            path(&a.container_token_file).into(),
        );
        aws.insert("sts_endpoint".into(), text(&a.sts_endpoint).into());
        aws.insert("region".into(), a.region.clone().into());
        t.insert("aws".into(), aws.into());
        let mut gcp = toml::Table::new();
        gcp.insert(
            "workload_identity".into(),
            self.gcp.workload_identity.into(),
        );
        gcp.insert(
            "metadata_endpoint".into(),
            self.gcp.metadata_endpoint.clone().into(),
        );
        gcp.insert(
            "projects".into(),
            toml::Value::Array(self.gcp.projects.iter().map(|p| p.clone().into()).collect()),
        );
        t.insert("gcp".into(), gcp.into());
        t.insert("store".into(), self.store.render());
        annotate(&toml::to_string(&t).unwrap_or_default(), &self.sources)
    }
}

/// Each `key = value` line of `text` with `# <source>` after it: the source
/// `sources` names for its dotted key (or for its array of tables, such as
/// `secrets.grants`), else `default`.
fn annotate(text: &str, sources: &std::collections::BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut section = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed
            .strip_prefix("[[")
            .and_then(|r| r.strip_suffix("]]"))
            .or_else(|| trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']')))
        {
            section = name.to_string();
            out.push_str(line);
            out.push('\n');
            continue;
        }
        match line.split_once(" = ") {
            Some((key, _)) if !key.starts_with(' ') && !key.is_empty() => {
                let path = if section.is_empty() {
                    key.to_string()
                } else {
                    format!("{section}.{key}")
                };
                let from = sources
                    .get(&path)
                    .or_else(|| sources.get(&section))
                    .map_or("default", String::as_str);
                out.push_str(line);
                out.push_str("  # ");
                out.push_str(from);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Hides what a URL may carry of a secret: the password of its user
/// information (`postgres://relay:<redacted>@db/relay`), and the value of
/// every query parameter whose name speaks of one (`?password=`,
/// `sslpassword=`, `…token=`, `…secret=`, `…key=`). Conservative: the user
/// information runs to the last `@`, so a password holding an unescaped
/// `@`, `/`, `?` or `#` is hidden whole (and, at worst, more than the
/// password).
pub(super) fn redact_url(url: &str) -> String {
    const REDACTED: &str = "<redacted>";
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let mut out = String::from(scheme);
    let remainder = match rest.rfind('@') {
        Some(at) => {
            let userinfo = &rest[..at];
            let user = userinfo
                .find([':', '/', '?', '#'])
                .map_or(userinfo, |end| &userinfo[..end]);
            out.push_str(user);
            if user.len() < userinfo.len() {
                out.push(':');
                out.push_str(REDACTED);
            }
            &rest[at..]
        }
        None => rest,
    };
    let (before_fragment, fragment) = match remainder.find('#') {
        Some(i) => remainder.split_at(i),
        None => (remainder, ""),
    };
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if names_a_secret(name) => format!("{name}={REDACTED}"),
                    _ => pair.to_string(),
                })
                .collect();
            out.push_str(&pairs.join("&"));
        }
        None => out.push_str(before_fragment),
    }
    out.push_str(fragment);
    out
}

fn names_a_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["pass", "pwd", "secret", "token", "key", "credential"]
        .iter()
        .any(|w| name.contains(w))
}
