//! Online serving (issue 36): everything `spec.serving` resolves to, read by the emitters
//! (`templates/serving.bicep.hbs`, `emit::arm::serving`), by the simulator (concurrency,
//! service time, model load time) and by preflight/cost/status (the frontend's names and the
//! features the subscription needs). Every Azure literal comes from [`crate::facts::serving`].
//!
//! The frontend is private only: an internal Standard Load Balancer and/or an Application
//! Gateway v2 with a static private frontend IP and no public IP. The scale set's NICs join the
//! backend pools (`plan::compute`); the NSG rules that admit only the frontend are in
//! `plan::network`; the request autoscale rules in `plan::scaling`.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use serde::Serialize;

use serde_json::{Map, Value};

use super::compute::{Compute, Extension, Health};
use super::network::{Network, Subnet};
use crate::facts::serving as f;
use crate::facts::serving::Feature;
use crate::spec::model::{ServingProtocol, UpgradeMode, WorkloadSpec};
use crate::spec::schedule::parse_duration_millis;

/// `plan.serving`. Field names are the interface the simulator and the operations commands
/// read (`/work/coord/serving-interface.md`): add fields, never rename them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Serving {
    /// `vllm`, `tgi`, `triton`, `tensorrtLlm`, `custom` (`None`: not named).
    pub server: Option<&'static str>,
    pub port: u16,
    /// The HTTP health endpoint's port (the Application Health extension and both frontends'
    /// probes).
    pub health_port: u16,
    pub health_path: String,
    /// `http` or `grpc`.
    pub protocol: &'static str,
    /// `applicationGateway`, `loadBalancer` or `both`.
    pub frontend_kind: &'static str,
    pub load_balancer: Option<LoadBalancer>,
    pub gateway: Option<Gateway>,
    pub private_link: Option<PrivateLinkService>,
    /// Who may call the frontend (CIDRs); empty in a landing zone (the platform's NSG decides).
    pub client_sources: Vec<String>,
    /// Requests one instance serves at once.
    pub concurrency: Option<u32>,
    /// Mean time of one request at that concurrency, in seconds (from `serviceTime`, or
    /// `outputTokens / (tokensPerSecond / concurrency)`).
    pub service_time_seconds: Option<f64>,
    /// Where `service_time_seconds` came from (`serviceTime 2s`, `tokensPerSecond ...`).
    pub service_time_from: Option<String>,
    /// The p95 of one request's time, seconds (`serviceTimeP95`, or `outputTokensP95` at the
    /// same tokens a second); `None`: not measured (the simulator takes the exponential's).
    pub service_time_p95_seconds: Option<f64>,
    /// Where `service_time_p95_seconds` came from.
    pub service_time_p95_from: Option<String>,
    pub latency_p95_seconds: Option<f64>,
    /// VM start to healthy: repairs' grace period, the rolling upgrade's pause, the simulated
    /// provisioning time.
    pub model_load_seconds: u64,
    pub request_timeout_seconds: u64,
    pub drain_timeout_seconds: u64,
    /// `autoscale.requests`, resolved (`None` without it).
    pub request_target: Option<RequestTarget>,
    pub health: ServingHealth,
    pub upgrade: ServingUpgrade,
    /// Subscription features the deployment needs and render cannot register (preflight
    /// checks them).
    pub required_features: Vec<Feature>,
    /// The commands that register them, `; `-joined (the templates' `prerequisites`
    /// metadata); empty when none.
    pub prerequisites: String,
    /// What is an assumption rather than a sourced fact (printed by `show`, written into the
    /// rendered files).
    pub assumptions: Vec<String>,
    /// What the user must know before and after the first deployment.
    pub notes: Vec<String>,
    /// `autoscale.gpuUtilization`: the Application Insights component, the metric and its
    /// thresholds (`plan::serving_gpu`); `None` without it.
    pub gpu_scaling: Option<super::serving_gpu::GpuScaling>,
}

/// The internal Standard Load Balancer (L4).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancer {
    pub name: String,
    pub sku: &'static str,
    pub frontend_name: String,
    pub pool_name: String,
    pub probe_name: String,
    pub rule_name: String,
    /// `1`, `2`, `3` (zone-redundant frontend) where the pool is zonal, else none.
    pub zones: Vec<String>,
    pub port: u16,
    pub probe_port: u16,
    pub probe_path: String,
    pub probe_interval: u32,
    pub probe_threshold: u32,
    pub idle_timeout_minutes: u32,
}

/// The Application Gateway v2 with a private frontend only (L7).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gateway {
    pub name: String,
    pub sku: &'static str,
    pub subnet: Subnet,
    /// Static, the subnet's last usable address (instances take addresses from the start).
    pub private_ip: String,
    pub min_capacity: u32,
    pub max_capacity: u32,
    pub zones: Vec<String>,
    pub frontend_ip_name: String,
    pub frontend_port_name: String,
    pub port: u16,
    pub listener_name: String,
    pub pool_name: String,
    pub settings_name: String,
    pub probe_name: String,
    pub rule_name: String,
    pub rule_priority: u32,
    pub backend_protocol: &'static str,
    pub request_timeout_seconds: u64,
    pub drain_timeout_seconds: u64,
    pub probe_port: u16,
    pub probe_path: String,
    pub probe_interval: u32,
    pub probe_timeout: u32,
    pub unhealthy_threshold: u32,
    pub probe_status_codes: &'static str,
    /// The predefined TLS policy (for HTTPS listeners added later; the rendered one is HTTP).
    pub ssl_policy: &'static str,
    /// `BackendSettingsPool` = `<pool>~<settings>`: the request metric's dimension value.
    pub metric_dimension: String,
    /// `frontend.delegateSubnet` (the delegation is not documented: off by default).
    pub delegate_subnet: bool,
    pub delegation_service: &'static str,
}

/// The Private Link service on the internal load balancer's frontend.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateLinkService {
    pub name: String,
    pub subnet: Subnet,
    pub nat_ip_name: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestTarget {
    /// Requests per minute per healthy instance above which autoscale adds instances.
    pub per_instance: u32,
    pub scale_in_below: u32,
    pub scale_out_step: u32,
    /// The spec wrote it (`false`: derived from concurrency and service time).
    pub written: bool,
    /// How it was derived, for messages and the rendered comment.
    pub from: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServingHealth {
    /// Rich Health States (2.0) when the server answers the `ApplicationHealthState` body,
    /// else Binary (1.0).
    pub rich: bool,
    /// Automatic repairs' grace period (ISO 8601, PT10M..PT90M).
    pub repair_grace_period: String,
    /// `modelLoadTime` fell outside Azure's range and was clamped (`validate` warns).
    pub grace_clamped: bool,
    /// The extension's own `gracePeriod` (Rich Health States only), seconds.
    pub extension_grace_seconds: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServingUpgrade {
    /// Azure's `upgradePolicy.mode`: `Manual` (the first deployment) or `Rolling`.
    pub mode: &'static str,
    pub rolling: bool,
    pub max_surge: bool,
    pub max_batch_instance_percent: u32,
    pub max_unhealthy_instance_percent: u32,
    pub max_unhealthy_upgraded_instance_percent: u32,
    /// The model's load time: the next batch starts when the previous one serves again.
    pub pause_time_between_batches: String,
}

/// Seconds of a spec duration (the rules refused the unparsable ones).
fn secs(text: &str) -> Option<f64> {
    parse_duration_millis(text).map(|ms| ms as f64 / 1000.0)
}

/// Whole minutes, rounded up.
fn minutes_up(seconds: u64) -> u64 {
    seconds.div_ceil(60)
}

/// The last usable address of a subnet (Azure reserves the broadcast address).
fn last_usable(prefix: &str) -> String {
    prefix
        .parse::<Ipv4Net>()
        .map(|n| Ipv4Addr::from(u32::from(n.broadcast()).saturating_sub(1)).to_string())
        .unwrap_or_default()
}

/// The service time in seconds and where it came from.
pub fn service_time(sv: &crate::spec::model::Serving) -> Option<(f64, String)> {
    if let Some(t) = sv.service_time.as_deref()
        && let Some(s) = secs(t)
    {
        return Some((s, format!("serviceTime {t}")));
    }
    let (tps, out, c) = (sv.tokens_per_second?, sv.output_tokens?, sv.concurrency?);
    (tps > 0.0 && c > 0).then(|| {
        let s = f64::from(out) / (tps / f64::from(c));
        (
            s,
            format!(
                "{out} output tokens at {} tokens/s shared by {c} concurrent requests",
                crate::sizing::fmt_num(tps)
            ),
        )
    })
}

/// The p95 of the service time in seconds and where it came from: `serviceTimeP95` beside
/// `serviceTime`, or `outputTokensP95` at the rate the mean's tokens give.
pub fn service_time_p95(sv: &crate::spec::model::Serving) -> Option<(f64, String)> {
    if sv.service_time.is_some() {
        let t = sv.service_time_p95.as_deref()?;
        return secs(t).map(|s| (s, format!("serviceTimeP95 {t}")));
    }
    let (mean, _) = service_time(sv)?;
    let (out, p95) = (sv.output_tokens?, sv.output_tokens_p95?);
    (out > 0).then(|| {
        (
            mean * f64::from(p95) / f64::from(out),
            format!("outputTokensP95 {p95} (of a mean {out} output tokens)"),
        )
    })
}

/// Share of an instance's capacity (`concurrency x 60 / serviceTime` requests a minute) the
/// derived scale-out threshold sits at: gpuform's policy, not an Azure fact; `simulate --tune`
/// proposes a measured one.
pub const DERIVED_TARGET_SHARE: f64 = 0.7;

/// `autoscale.requests.targetPerInstance` as written, else derived: (target, written, how).
pub fn request_target(s: &WorkloadSpec) -> Option<(u32, bool, String)> {
    let r = s.autoscale.as_ref()?.requests.as_ref()?;
    if let Some(t) = r.target_per_instance {
        return Some((t, true, format!("autoscale.requests.targetPerInstance {t}")));
    }
    let sv = s.serving.as_ref()?;
    let c = sv.concurrency?;
    let (st, how) = service_time(sv)?;
    if st <= 0.0 {
        return None;
    }
    let capacity = f64::from(c) * 60.0 / st;
    let target = (capacity * DERIVED_TARGET_SHARE).floor().max(1.0) as u32;
    Some((
        target,
        false,
        format!(
            "derived: {:.0}% of concurrency {c} x 60 / {} s per request ({how}) = {:.0} requests a minute per instance",
            DERIVED_TARGET_SHARE * 100.0,
            crate::sizing::fmt_num((st * 1000.0).round() / 1000.0),
            capacity
        ),
    ))
}

/// `autoscale.requests` resolved against the spec as it is (the tuner resolves it again for
/// each policy it tries): target, flap-safe scale-in threshold, step.
pub fn resolved_request_target(s: &WorkloadSpec) -> Option<RequestTarget> {
    let (target, written, from) = request_target(s)?;
    let r = s.autoscale.as_ref()?.requests.as_ref()?;
    Some(RequestTarget {
        per_instance: target,
        scale_in_below: r.scale_in_below.unwrap_or_else(|| {
            crate::spec::defaults::flap_safe_scale_in(target, crate::spec::defaults::lowest_min(s))
        }),
        scale_out_step: r.scale_out_step.unwrap_or(1),
        written,
        from,
    })
}

pub(super) fn plan(name: &str, s: &WorkloadSpec, network: &Network) -> Option<Serving> {
    let sv = s.serving.as_ref()?;
    // the rules refused a spec without these
    let port = sv.port?;
    let health_port = sv.health_port.unwrap_or(port);
    let health_path = sv.health_path.clone().unwrap_or_else(|| "/".into());
    let kind = sv.frontend.kind;
    let model_load_seconds = secs(&sv.model_load_time).unwrap_or(1800.0).ceil() as u64;
    let request_timeout_seconds = secs(&sv.request_timeout).unwrap_or(300.0).ceil().clamp(
        f::REQUEST_TIMEOUT_SECONDS.0 as f64,
        f::REQUEST_TIMEOUT_SECONDS.1 as f64,
    ) as u64;
    let drain_timeout_seconds = secs(sv.drain_timeout_text())
        .unwrap_or(request_timeout_seconds as f64)
        .ceil()
        .clamp(f::DRAIN_SECONDS.0 as f64, f::DRAIN_SECONDS.1 as f64)
        as u64;
    // a zonal pool says its region has zones: its frontends become zone-redundant
    let zones: Vec<String> = if s.compute.zones.is_empty() {
        Vec::new()
    } else {
        vec!["1".into(), "2".into(), "3".into()]
    };
    let load_balancer = kind.has_load_balancer().then(|| {
        let (lo, hi) = f::LB_IDLE_TIMEOUT_MINUTES;
        LoadBalancer {
            name: format!("lbi-{name}"),
            sku: f::LB_SKU,
            frontend_name: "frontend".into(),
            pool_name: format!("{name}-pool"),
            probe_name: "health".into(),
            rule_name: format!("serve-{port}"),
            zones: zones.clone(),
            port,
            probe_port: health_port,
            probe_path: health_path.clone(),
            probe_interval: f::LB_PROBE_INTERVAL,
            probe_threshold: f::LB_PROBE_THRESHOLD,
            // a flow may stay quiet while the model generates: at least the request timeout
            idle_timeout_minutes: (minutes_up(request_timeout_seconds) as u32).clamp(lo, hi),
        }
    });
    let gateway = match (kind.has_gateway(), network.gateway_subnet.as_ref()) {
        (true, Some(subnet)) => {
            let pool = format!("{name}-pool");
            let settings = format!("{name}-http");
            Some(Gateway {
                name: format!("agw-{name}"),
                sku: f::GATEWAY_SKU,
                private_ip: last_usable(&subnet.prefix),
                subnet: subnet.clone(),
                min_capacity: sv.frontend.capacity.min,
                max_capacity: sv.frontend.capacity.max,
                zones: zones.clone(),
                frontend_ip_name: "private-frontend".into(),
                frontend_port_name: format!("port-{port}"),
                port,
                listener_name: "listener".into(),
                metric_dimension: f::request_dimension_value(&pool, &settings),
                pool_name: pool,
                settings_name: settings,
                probe_name: "health".into(),
                rule_name: "serve".into(),
                rule_priority: f::GATEWAY_RULE_PRIORITY,
                backend_protocol: f::GATEWAY_BACKEND_PROTOCOL,
                request_timeout_seconds,
                drain_timeout_seconds,
                probe_port: health_port,
                probe_path: health_path.clone(),
                probe_interval: 10,
                probe_timeout: 10,
                unhealthy_threshold: 3,
                probe_status_codes: f::GATEWAY_PROBE_STATUS,
                ssl_policy: f::GATEWAY_SSL_POLICY,
                delegate_subnet: sv.frontend.delegate_subnet,
                delegation_service: f::GATEWAY_DELEGATION_SERVICE,
            })
        }
        _ => None,
    };
    let private_link = match (
        sv.frontend.private_link && kind.has_load_balancer(),
        network.private_link_subnet.as_ref(),
    ) {
        (true, Some(subnet)) => Some(PrivateLinkService {
            name: format!("pls-{name}"),
            subnet: subnet.clone(),
            nat_ip_name: "nat".into(),
        }),
        _ => None,
    };
    let client_sources = network.serving_client_sources.clone();
    let st = service_time(sv);
    let request_target = resolved_request_target(s);
    let (glo, ghi) = f::REPAIR_GRACE_MINUTES;
    let load_minutes = minutes_up(model_load_seconds);
    let grace_minutes = load_minutes.clamp(glo, ghi);
    let health = ServingHealth {
        rich: sv.rich_health_states,
        repair_grace_period: format!("PT{grace_minutes}M"),
        grace_clamped: grace_minutes != load_minutes,
        extension_grace_seconds: sv
            .rich_health_states
            .then_some(model_load_seconds.clamp(1, f::HEALTH_GRACE_MAX_SECONDS)),
    };
    let rolling = sv.upgrade.mode == UpgradeMode::Rolling;
    let upgrade = ServingUpgrade {
        mode: sv.upgrade.mode.azure(),
        rolling,
        max_surge: rolling && sv.upgrade.max_surge,
        max_batch_instance_percent: f::ROLLING_BATCH_PERCENT,
        max_unhealthy_instance_percent: f::ROLLING_BATCH_PERCENT,
        max_unhealthy_upgraded_instance_percent: f::ROLLING_BATCH_PERCENT,
        pause_time_between_batches: format!("PT{}M", load_minutes.clamp(1, ghi)),
    };
    let mut required_features = Vec::new();
    if gateway.is_some() {
        required_features.push(f::GATEWAY_FEATURE);
    }
    if upgrade.max_surge {
        required_features.push(f::MAX_SURGE_FEATURE);
    }
    let mut notes = Vec::new();
    for feat in &required_features {
        notes.push(format!(
            "Before the first deployment: `{}` ({}; registration can take up to {} minutes). Render cannot register it; `gpuform preflight` checks it.",
            feat.command(),
            feat.why,
            f::FEATURE_REGISTRATION_MINUTES
        ));
    }
    if rolling {
        notes.push(format!(
            "Rolling upgrades: batches of {}% with a {} pause between them (the model's load time){}.",
            f::ROLLING_BATCH_PERCENT,
            upgrade.pause_time_between_batches,
            if upgrade.max_surge {
                ", new VMs created before old ones are deleted (MaxSurge, preview)"
            } else {
                ""
            }
        ));
    } else {
        notes.push(
            "The scale set is created with upgradePolicy Manual, as Microsoft suggests for a first deployment with a health extension. Once `gpuform status` shows every instance healthy, set `serving.upgrade.mode: rolling` and deploy again: from then on a new model or driver rolls through the pool in batches.".into(),
        );
    }
    if let Some(g) = &gateway
        && request_target.is_some()
    {
        notes.push(format!(
            "Autoscale reads {} of {} (BackendSettingsPool {}). With no requests the gateway reports no data point: autoscale then neither scales in nor out, except up to the profile's default, which is its minimum. An idle pool keeps its size until the next request; a schedule brings it down at night.",
            f::REQUEST_METRIC,
            g.name,
            g.metric_dimension
        ));
    }
    if network.existing.is_some() {
        notes.push(format!(
            "Landing zone: the platform team's NSG on the subnet must admit the frontend on port {port}{} and the AzureLoadBalancer service tag on the health port; gpuform creates no NSG there.",
            if health_port != port {
                format!(" and {health_port}")
            } else {
                String::new()
            }
        ));
    }
    let mut assumptions = vec![
        format!(
            "requestTimeout is always rendered ({request_timeout_seconds} s): Azure documents no default (serving.md B10)."
        ),
        "Whether a scale set deleting an instance waits for the frontend's connection draining is not documented: in-flight requests on a removed instance may be cut; drainTimeout covers instances the gateway removes.".to_string(),
    ];
    if let Some(g) = &gateway {
        assumptions.push(format!(
            "The gateway's listener is HTTP on port {} inside the VNet: TLS termination needs a certificate, which gpuform does not render; the TLS policy {} applies to any HTTPS listener you add.",
            g.port, g.ssl_policy
        ));
        assumptions.push(format!(
            "The gateway subnet is {}delegated: Microsoft documents no delegation for Application Gateway (serving.md B6); `serving.frontend.delegateSubnet` {}.",
            if sv.frontend.delegate_subnet { "" } else { "not " },
            if sv.frontend.delegate_subnet {
                "is set"
            } else {
                "adds one"
            }
        ));
        if request_target.is_some() {
            assumptions.push(
                "The autoscale rule reads a metric of the gateway (metricResourceUri), kept in the scale set's resource group and region: constraints across subscriptions or regions are not documented (serving.md C5).".into(),
            );
        }
    }
    if !sv.rich_health_states {
        assumptions.push(
            "Health uses Binary Health States (Application Health 1.0, HTTP 200 = healthy): a model server's health path answers an empty 200, which Rich Health States count as Unknown and repair. A freshly upgraded instance is unhealthy while its model loads; if Azure checks it before then, a rolling upgrade stops.".into(),
        );
    }
    if let Some(r) = &request_target
        && !r.written
    {
        assumptions.push(format!(
            "autoscale.requests.targetPerInstance {} is {}; `gpuform simulate --tune --latency-p95` proposes a measured one.",
            r.per_instance, r.from
        ));
    }
    Some(Serving {
        server: sv.server.map(|x| x.as_str()),
        port,
        health_port,
        health_path,
        protocol: sv.protocol.as_str(),
        frontend_kind: kind.as_str(),
        load_balancer,
        gateway,
        private_link,
        client_sources,
        concurrency: sv.concurrency,
        service_time_seconds: st.as_ref().map(|(s, _)| *s),
        service_time_from: st.map(|(_, how)| how),
        service_time_p95_seconds: service_time_p95(sv).map(|(s, _)| s),
        service_time_p95_from: service_time_p95(sv).map(|(_, how)| how),
        latency_p95_seconds: sv.latency_p95.as_deref().and_then(secs),
        model_load_seconds,
        request_timeout_seconds,
        drain_timeout_seconds,
        request_target,
        health,
        upgrade,
        prerequisites: required_features
            .iter()
            .map(|f| f.command())
            .collect::<Vec<_>>()
            .join("; "),
        required_features,
        assumptions,
        notes,
        gpu_scaling: None,
    })
}

impl Serving {
    /// The lines `gpuform show` prints above the resolved spec.
    pub fn describe(&self) -> Vec<String> {
        let mut out = vec![format!(
            "serving: {} on port {} ({}), health {} on port {}, private frontend: {}",
            self.server.unwrap_or("model server"),
            self.port,
            self.protocol,
            self.health_path,
            self.health_port,
            self.frontend_kind
        )];
        if let Some(r) = &self.request_target {
            out.push(format!(
                "autoscale.requests: scale out above {} requests/min per healthy instance, in below {} ({})",
                r.per_instance, r.scale_in_below, r.from
            ));
        }
        if let Some(g) = &self.gpu_scaling {
            out.push(format!(
                "autoscale.gpuUtilization: scale out above {}% mean GPU utilisation, in below {}% ({}); metric {} ({}) in Application Insights {}",
                g.scale_out_above,
                g.scale_in_below,
                g.scale_in_from,
                g.metric_name,
                g.metric_namespace,
                g.component_name
            ));
        }
        out.extend(self.notes.iter().cloned());
        out.extend(self.assumptions.iter().map(|a| format!("assumption: {a}")));
        out
    }

    pub fn protocol_is_grpc(&self) -> bool {
        self.protocol == ServingProtocol::Grpc.as_str()
    }
}

/// The Application Health extension on the model server's own health path, and automatic
/// repairs with the model's load time as grace period (the rules refuse `compute.healthProbe`
/// beside `spec.serving`, so the scale set has no other health source).
pub(super) fn extend_compute(c: &mut Compute, sv: &Serving) {
    let ext = crate::facts::extensions::application_health_states(!c.linux, sv.health.rich);
    let mut settings = Map::new();
    settings.insert("protocol".into(), Value::String("http".into()));
    settings.insert("port".into(), Value::from(sv.health_port));
    settings.insert("requestPath".into(), Value::String(sv.health_path.clone()));
    settings.insert(
        "intervalInSeconds".into(),
        Value::from(f::HEALTH_INTERVAL_SECONDS),
    );
    settings.insert("numberOfProbes".into(), Value::from(f::HEALTH_PROBES));
    if let Some(g) = sv.health.extension_grace_seconds {
        settings.insert("gracePeriod".into(), Value::from(g));
    }
    let after = c.extensions.iter().map(|e| e.name.clone()).collect();
    c.extensions.push(Extension {
        name: "HealthExtension".into(),
        publisher: ext.publisher,
        kind: ext.kind,
        type_handler_version: ext.type_handler_version,
        enable_automatic_upgrade: true,
        settings,
        // probe only once the driver (which may reboot the VM) is in place
        provision_after: after,
        comment: Some(format!(
            "Application health of the model server (GET {} on port {}, {} health states): automatic repairs replaces an instance still unhealthy {} after a change; rolling upgrades wait on it.",
            sv.health_path,
            sv.health_port,
            if sv.health.rich {
                "Rich"
            } else {
                "Binary: HTTP 200 is healthy"
            },
            sv.health.repair_grace_period
        )),
        identity_auth: false,
    });
    c.health = Some(Health {
        grace_period: sv.health.repair_grace_period.clone(),
    });
}
