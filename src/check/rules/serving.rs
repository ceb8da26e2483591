//! `spec.serving` and `autoscale.requests` (issue 36): what Azure refuses or does not document
//! for a private serving frontend, refused here with the source that says so
//! ([`crate::facts::serving`]), and what the user must know before deploying (infos).

use ipnet::Ipv4Net;

use crate::diag::{Diagnostic, clip};
use crate::facts::serving as facts;
use crate::spec::model::{FrontendKind, Orchestration, Serving, ServingProtocol, WorkloadSpec};
use crate::spec::schedule::parse_duration_millis;

const AT: &str = "/spec/serving";

fn source(s: crate::facts::Source) -> String {
    if s.assumption {
        format!("assumption: {} ({})", s.what, s.read)
    } else {
        format!("source: {} (read {})", s.what, s.read)
    }
}

pub fn check(s: &WorkloadSpec, out: &mut Vec<Diagnostic>) {
    let requests = s.autoscale.as_ref().and_then(|a| a.requests.as_ref());
    let Some(sv) = s.serving.as_ref() else {
        if requests.is_some() {
            out.push(
                Diagnostic::new(
                    "requests-without-serving",
                    "autoscale.requests scales on the requests of a serving frontend, and the spec has no `serving` block",
                )
                .at_key("/spec/autoscale/requests")
                .help("add `serving:` (server, port, healthPath, frontend), or scale on a queue with `autoscale.queue`")
                .locked(),
            );
        }
        return;
    };
    use crate::catalog::kinds::WorkloadType;
    if s.workload.kind != WorkloadType::Inference {
        out.push(
            Diagnostic::new(
                "serving-needs-inference",
                format!(
                    "serving is online inference, and workload.type is {}",
                    s.workload.kind.as_str()
                ),
            )
            .at("/spec/workload/type")
            .help("set `workload.type: inference`, or remove `serving` (batch work scales on a queue: `autoscale.queue`)")
            .locked(),
        );
    }
    if s.autoscale.as_ref().is_some_and(|a| a.queue.is_some()) {
        out.push(
            Diagnostic::new(
                "serving-with-queue",
                "a serving pool answers requests through its frontend; autoscale.queue scales on a queue's backlog",
            )
            .at_key("/spec/autoscale/queue")
            .help("remove `autoscale.queue` and scale on requests (`autoscale.requests`), or remove `serving` for a queue-driven pool")
            .locked(),
        );
    }
    if s.compute.orchestration == Orchestration::Uniform {
        out.push(
            Diagnostic::new(
                "serving-needs-flexible",
                "serving renders a Flexible scale set (Application Health extension, rolling upgrades on Flexible)",
            )
            .at("/spec/compute/orchestration")
            .help("use `compute.orchestration: flexible` (the default)")
            .note(source(facts::ROLLING_SOURCE))
            .locked(),
        );
    }
    if crate::plan::devbox::applies(s) {
        out.push(
            Diagnostic::new(
                "serving-devbox",
                "autoShutdown with one instance renders a dev box, which has no scale set to put behind a frontend",
            )
            .at_key("/spec/autoShutdown")
            .help("remove `autoShutdown` (a schedule with `min: 0` stops a serving pool at night), or remove `serving`")
            .locked(),
        );
    }
    if s.compute.health_probe.is_some() {
        out.push(
            Diagnostic::new(
                "serving-health-probe-conflict",
                "compute.healthProbe and serving both configure the Application Health extension; a scale set takes one",
            )
            .at_key("/spec/compute/healthProbe")
            .help("remove `compute.healthProbe`: serving probes `serving.healthPath` on `serving.healthPort`")
            .locked(),
        );
    }
    ports(sv, out);
    durations(sv, out);
    frontend(s, sv, out);
    requests_rules(s, sv, out);
    infos(sv, out);
}

fn ports(sv: &Serving, out: &mut Vec<Diagnostic>) {
    let named = sv.server.map(|x| x.as_str()).unwrap_or("a custom server");
    if sv.port.is_none() {
        out.push(
            Diagnostic::new(
                "serving-port-missing",
                format!("serving has no port: {named} has no documented default gpuform fills in"),
            )
            .at_key(AT)
            .help("give `serving.port` (the model server's listening port)")
            .locked(),
        );
    }
    if sv.health_path.is_none() {
        out.push(
            Diagnostic::new(
                "serving-port-missing",
                format!("serving has no healthPath: {named} has no documented default gpuform fills in"),
            )
            .at_key(AT)
            .help("give `serving.healthPath`: an HTTP GET path that answers 200 once the model is loaded (vLLM /health, TGI /health)")
            .locked(),
        );
    }
    if sv.protocol == ServingProtocol::Grpc && sv.health_port.is_none() {
        out.push(
            Diagnostic::new(
                "serving-port-missing",
                "a gRPC model server needs the port of its HTTP health endpoint: the probes and the Application Health extension speak HTTP",
            )
            .at_key(AT)
            .help("give `serving.healthPort` (Triton: 8000)")
            .locked(),
        );
    }
    if sv.frontend.kind.has_load_balancer()
        && let Some(p) = sv.health_port.or(sv.port)
        && facts::LB_PROBE_REFUSED_PORTS.contains(&p)
    {
        out.push(
            Diagnostic::new(
                "serving-probe-port",
                format!("the load balancer's HTTP probe cannot target port {p}"),
            )
            .at(if sv.health_port.is_some() {
                format!("{AT}/healthPort")
            } else {
                format!("{AT}/port")
            })
            .label("a port Azure refuses for HTTP probes")
            .help(format!(
                "serve the health endpoint on another port (not {})",
                facts::LB_PROBE_REFUSED_PORTS
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .note(source(facts::LB_PROBE_SOURCE))
            .locked(),
        );
    }
}

/// Seconds of a duration field, reporting what is not one.
fn duration(
    text: &str,
    field: &str,
    range: (u64, u64),
    what: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<u64> {
    let ptr = format!("{AT}/{field}");
    match parse_duration_millis(text) {
        None => {
            out.push(
                Diagnostic::new(
                    "serving-duration-invalid",
                    format!("serving.{field} `{}` is not a duration", clip(text)),
                )
                .at(ptr)
                .help("write it like 2s, 800ms, 8m, 1h30m or PT30S")
                .locked(),
            );
            None
        }
        Some(ms) if ms < range.0 * 1000 || ms > range.1 * 1000 => {
            out.push(
                Diagnostic::new(
                    "serving-duration-invalid",
                    format!(
                        "serving.{field} `{}` is outside {what} ({} s to {} s)",
                        clip(text),
                        range.0,
                        range.1
                    ),
                )
                .at(ptr)
                .help(format!(
                    "give a {field} between {} s and {} s",
                    range.0, range.1
                ))
                .note(source(facts::GATEWAY_SOURCE))
                .locked(),
            );
            None
        }
        Some(ms) => Some(ms.div_ceil(1000)),
    }
}

fn durations(sv: &Serving, out: &mut Vec<Diagnostic>) {
    duration(
        &sv.request_timeout,
        "requestTimeout",
        facts::REQUEST_TIMEOUT_SECONDS,
        "the gateway's request timeout",
        out,
    );
    if let Some(d) = &sv.drain_timeout {
        duration(
            d,
            "drainTimeout",
            facts::DRAIN_SECONDS,
            "connection draining's range",
            out,
        );
    }
    for (text, field) in [
        (sv.service_time.as_deref(), "serviceTime"),
        (sv.latency_p95.as_deref(), "latencyP95"),
    ] {
        if let Some(t) = text {
            duration(t, field, (0, 86_400), "a request's time", out);
            if parse_duration_millis(t) == Some(0) {
                out.push(
                    Diagnostic::new(
                        "serving-duration-invalid",
                        format!("serving.{field} is zero"),
                    )
                    .at(format!("{AT}/{field}"))
                    .help("give the measured time, e.g. 2s or 800ms")
                    .locked(),
                );
            }
        }
    }
    let (lo, hi) = facts::REPAIR_GRACE_MINUTES;
    if let Some(load) = duration(
        &sv.model_load_time,
        "modelLoadTime",
        (1, 7 * 86_400),
        "a load time",
        out,
    ) {
        if load > hi * 60 {
            out.push(
                Diagnostic::new(
                    "serving-model-load-too-long",
                    format!(
                        "modelLoadTime {} is longer than automatic repairs' longest grace period, PT{hi}M: repairs would replace instances still loading their model, again and again",
                        sv.model_load_time
                    ),
                )
                .at(format!("{AT}/modelLoadTime"))
                .help("load faster (weights on a local data disk or in the image, a premium disk), so that a VM serves within 90 minutes")
                .note(source(facts::REPAIR_SOURCE))
                .locked(),
            );
        } else if load < lo * 60 {
            out.push(
                Diagnostic::new(
                    "serving-grace-clamped",
                    format!(
                        "modelLoadTime {} is shorter than automatic repairs' shortest grace period: the grace period is PT{lo}M",
                        sv.model_load_time
                    ),
                )
                .at(format!("{AT}/modelLoadTime"))
                .label(format!("repairs wait {lo} minutes"))
                .help("nothing to change: an instance that stays unhealthy is replaced after 10 minutes rather than after its load time")
                .note(source(facts::REPAIR_SOURCE)),
            );
        }
    }
    match (sv.service_time.is_some(), sv.tokens_per_second.is_some(), sv.output_tokens.is_some()) {
        (true, true, _) => out.push(
            Diagnostic::new(
                "serving-service-time",
                "serving gives both serviceTime and tokensPerSecond: one says how long a request takes",
            )
            .at_key(format!("{AT}/tokensPerSecond"))
            .help("keep serviceTime (measured), or tokensPerSecond with outputTokens")
            .locked(),
        ),
        (false, true, false) | (false, false, true) => out.push(
            Diagnostic::new(
                "serving-service-time",
                "tokensPerSecond and outputTokens go together: the service time is outputTokens / (tokensPerSecond / concurrency)",
            )
            .at_key(AT)
            .help("give both tokensPerSecond and outputTokens (and concurrency), or serviceTime instead")
            .locked(),
        ),
        (false, true, true) if sv.concurrency.is_none() => out.push(
            Diagnostic::new(
                "serving-service-time",
                "tokensPerSecond is an instance's throughput at full concurrency: the service time needs serving.concurrency",
            )
            .at_key(AT)
            .help("give `serving.concurrency` (vLLM max_num_seqs)")
            .locked(),
        ),
        _ => {}
    }
}

fn frontend(s: &WorkloadSpec, sv: &Serving, out: &mut Vec<Diagnostic>) {
    let fe = &sv.frontend;
    let kind = fe.kind;
    if fe.private_link && kind == FrontendKind::ApplicationGateway {
        out.push(
            Diagnostic::new(
                "serving-private-link-gateway",
                "privateLink puts a Private Link service on the internal load balancer, and this frontend has none; Private Link to a private-only Application Gateway is unsupported",
            )
            .at(format!("{AT}/frontend/privateLink"))
            .help("use `frontend.kind: both` (the Private Link service goes on the load balancer beside the gateway) or `loadBalancer`, or drop privateLink")
            .note(source(facts::GATEWAY_PRIVATE_LINK_UNSUPPORTED))
            .locked(),
        );
    }
    if sv.protocol == ServingProtocol::Grpc && kind.has_gateway() {
        out.push(
            Diagnostic::new(
                "serving-grpc-gateway",
                "Application Gateway talks HTTP/1.1 to its backends: it cannot carry gRPC to the model servers",
            )
            .at(format!("{AT}/protocol"))
            .help("use `frontend.kind: loadBalancer` for gRPC (no request autoscale: a load balancer cannot count requests), or serve HTTP")
            .note(source(facts::GATEWAY_BACKEND_HTTP11))
            .locked(),
        );
    }
    if fe.capacity.min > fe.capacity.max {
        out.push(
            Diagnostic::new(
                "serving-gateway-capacity",
                format!(
                    "frontend.capacity.min ({}) is larger than max ({})",
                    fe.capacity.min, fe.capacity.max
                ),
            )
            .at(format!("{AT}/frontend/capacity/min"))
            .help("keep min <= max (gateway instances, 0-125)")
            .locked(),
        );
    }
    if s.network.existing_subnet.is_some() && kind.has_gateway() {
        out.push(
            Diagnostic::new(
                "serving-existing-subnet-gateway",
                "an Application Gateway needs a dedicated subnet of its own, and with network.existingSubnet gpuform creates no subnet",
            )
            .at("/spec/serving/frontend/kind")
            .help("use `frontend.kind: loadBalancer` in a landing zone (its frontend IP takes an address of the existing subnet), or a VNet of the pool's own")
            .note(source(facts::GATEWAY_SOURCE))
            .locked(),
        );
    }
    for (i, src) in fe.client_sources.iter().enumerate() {
        let ptr = format!("{AT}/frontend/clientSources/{i}");
        let net = src.trim().parse::<Ipv4Net>().ok();
        let public = net.is_some_and(|n| super::network::public_addresses(&[n.trunc()]) > 0);
        if net.is_none() || public {
            out.push(
                Diagnostic::new(
                    "serving-client-sources",
                    format!(
                        "frontend.clientSources `{}` is {}: a serving frontend is private only",
                        clip(src),
                        if net.is_none() { "not an IPv4 CIDR" } else { "public Internet address space" }
                    ),
                )
                .at(ptr)
                .label("not a private range")
                .help("give private ranges of the callers (e.g. 10.50.0.0/16, a peered VNet or an on-premises range over VPN); consumers in other tenants connect through `privateLink`")
                .locked(),
            );
        }
    }
    subnets(s, sv, out);
}

/// The frontend's own subnets: inside the address space, apart from the others, big enough.
fn subnets(s: &WorkloadSpec, sv: &Serving, out: &mut Vec<Diagnostic>) {
    if s.network.existing_subnet.is_some() {
        if sv.frontend.private_link && sv.frontend.kind.has_load_balancer() {
            out.push(
                Diagnostic::new(
                    "serving-subnet",
                    "the Private Link service needs a NAT subnet with its network policies off, and with network.existingSubnet gpuform creates no subnet",
                )
                .at(format!("{AT}/frontend/privateLink"))
                .help("drop privateLink in a landing zone (the platform team can add a Private Link service to the load balancer), or use a VNet of the pool's own")
                .note(source(facts::PLS_SUBNET_POLICY))
                .locked(),
            );
        }
        return;
    }
    let Ok(space) = s.network.address_space.parse::<Ipv4Net>() else {
        return;
    };
    let fe = &sv.frontend;
    let others: Vec<(Ipv4Net, &str)> = [
        (&s.network.workload_subnet, "the workload subnet"),
        (
            &s.network.private_endpoint_subnet,
            "the private endpoint subnet",
        ),
    ]
    .into_iter()
    .filter_map(|(n, what)| Some((n.as_deref()?.parse::<Ipv4Net>().ok()?, what)))
    .collect();
    let mut mine: Vec<(Ipv4Net, &str)> = Vec::new();
    let wanted = [
        (
            fe.kind.has_gateway(),
            &fe.subnet,
            "subnet",
            "the gateway's subnet",
            facts::GATEWAY_SUBNET_PREFIX,
        ),
        (
            fe.private_link && fe.kind.has_load_balancer(),
            &fe.private_link_subnet,
            "privateLinkSubnet",
            "the Private Link service's NAT subnet",
            facts::PLS_SUBNET_PREFIX,
        ),
    ];
    for (needed, subnet, field, what, prefix) in wanted {
        if !needed {
            continue;
        }
        let ptr = format!("{AT}/frontend/{field}");
        let Some(text) = subnet else {
            out.push(
                Diagnostic::new(
                    "serving-subnet",
                    format!("the address space {space} has no room left for {what} (a /{prefix})"),
                )
                .at("/spec/network/addressSpace")
                .help(format!(
                    "use a larger address space, or give `serving.frontend.{field}` inside it"
                ))
                .locked(),
            );
            continue;
        };
        let Ok(net) = text.parse::<Ipv4Net>() else {
            continue; // the schema's pattern, then cidr rules: reported as not a CIDR below
        };
        if net.trunc() != net {
            out.push(
                Diagnostic::new("serving-subnet", format!("{text} has host bits set"))
                    .at(ptr.clone())
                    .help(format!("did you mean {}?", net.trunc()))
                    .locked(),
            );
            continue;
        }
        if !space.contains(&net) {
            out.push(
                Diagnostic::new(
                    "serving-subnet",
                    format!("{what} {net} is not inside the address space {space}"),
                )
                .at(ptr.clone())
                .help(format!("choose a range inside {space}"))
                .locked(),
            );
        }
        for (o, owhat) in others.iter().chain(mine.iter()) {
            if o.contains(&net.network()) || net.contains(&o.network()) {
                out.push(
                    Diagnostic::new(
                        "serving-subnet",
                        format!("{what} {net} overlaps {owhat} {o}"),
                    )
                    .at(ptr.clone())
                    .help("use disjoint ranges: the gateway needs a subnet of its own")
                    .note(source(facts::GATEWAY_SOURCE))
                    .locked(),
                );
            }
        }
        if field == "subnet" {
            let usable = (1u64 << (32 - net.prefix_len()))
                .saturating_sub(crate::spec::defaults::AZURE_RESERVED_ADDRESSES);
            let need = u64::from(fe.capacity.max) + u64::from(facts::GATEWAY_FRONTEND_ADDRESSES);
            if usable < need {
                out.push(
                    Diagnostic::new(
                        "serving-subnet",
                        format!(
                            "the gateway's subnet {net} has {usable} usable addresses; {} instances and the private frontend IP need {need}",
                            fe.capacity.max
                        ),
                    )
                    .at(ptr.clone())
                    .help(format!("use a /{} (Microsoft's recommendation) or lower frontend.capacity.max", facts::GATEWAY_SUBNET_PREFIX))
                    .note(source(facts::GATEWAY_SOURCE))
                    .locked(),
                );
            }
        }
        mine.push((net, what));
    }
}

fn requests_rules(s: &WorkloadSpec, sv: &Serving, out: &mut Vec<Diagnostic>) {
    let Some(r) = s.autoscale.as_ref().and_then(|a| a.requests.as_ref()) else {
        return;
    };
    if !sv.frontend.kind.has_gateway() {
        out.push(
            Diagnostic::new(
                "requests-need-gateway",
                "autoscale.requests reads the Application Gateway's requests per healthy instance, and a load balancer (L4) cannot count requests: its metrics are bytes, packets, SYNs, SNAT and availability",
            )
            .at_key("/spec/autoscale/requests")
            .help("use `serving.frontend.kind: applicationGateway` or `both`, or remove `autoscale.requests` (a fixed pool, or schedules)")
            .note(source(crate::facts::Source::doc(
                "serving.md A8: azure-docs monitor-load-balancer-reference.md @ 0064c4b (2024-05-24) and microsoft-network-loadbalancers-metrics.md @ 916560d: VipAvailability, DipAvailability, ByteCount, PacketCount, SYNCount, SnatConnectionCount, AllocatedSnatPorts, UsedSnatPorts, GlobalBackendAvailability; no request or latency metric",
                "2026-12-05",
            )))
            .locked(),
        );
    }
    if let Some(agg) = r.scale_out_aggregation
        && agg != crate::spec::model::ScaleOutAggregation::Average
    {
        out.push(
            Diagnostic::new(
                "requests-aggregation",
                format!(
                    "scaleOutAggregation {} is not an aggregation Microsoft lists for {}: only Average",
                    agg.as_str(),
                    facts::REQUEST_METRIC
                ),
            )
            .at("/spec/autoscale/requests/scaleOutAggregation")
            .help("leave scaleOutAggregation out (average), or scale out faster with scaleOutStep or a shorter timeWindow")
            .note(source(facts::REQUEST_METRIC_SOURCE))
            .locked(),
        );
    }
    match crate::plan::serving::request_target(s) {
        None => out.push(
            Diagnostic::new(
                "requests-target-missing",
                "autoscale.requests has no targetPerInstance, and it cannot be derived without serving.concurrency and a service time",
            )
            .at_key("/spec/autoscale/requests")
            .help("give `targetPerInstance` (requests a minute per healthy instance), or `serving.concurrency` with `serving.serviceTime` (or tokensPerSecond and outputTokens)")
            .locked(),
        ),
        Some((target, false, from)) => out.push(
            Diagnostic::new(
                "requests-target-derived",
                format!("autoscale.requests.targetPerInstance is {target} requests a minute per healthy instance, {from}"),
            )
            .at_key("/spec/autoscale/requests")
            .help("measure it under load and write it, or let `gpuform simulate --tune --latency-p95` propose one"),
        ),
        Some(_) => {}
    }
    if let Some(t) = r
        .target_per_instance
        .or_else(|| crate::plan::serving::request_target(s).map(|t| t.0))
        && let Some(below) = r.scale_in_below
        && below >= t
    {
        out.push(
            Diagnostic::new(
                "autoscale-flapping",
                format!("scaleInBelow {below} is not below targetPerInstance {t}"),
            )
            .at("/spec/autoscale/requests/scaleInBelow")
            .help("leave scaleInBelow out: gpuform derives the largest value that cannot flap"),
        );
    }
    if s.capacity.min == 0 {
        out.push(
            Diagnostic::new(
                "serving-scale-from-zero",
                "with no healthy instance the gateway reports no requests per healthy instance: nothing would scale the pool out of zero",
            )
            .at("/spec/capacity/min")
            .help("keep `capacity.min` at 1 or more; a schedule with `min: 0` can still stop the pool at night")
            .note(source(facts::NO_TRAFFIC))
            .locked(),
        );
    }
    if s.capacity.default_count() > s.capacity.min {
        out.push(
            Diagnostic::new(
                "serving-idle-default",
                format!(
                    "capacity.default {} is above min {}: with no requests the gateway reports no data point, and autoscale then scales out to the default",
                    s.capacity.default_count(),
                    s.capacity.min
                ),
            )
            .at("/spec/capacity/default")
            .help("leave `capacity.default` out (it is min): an idle pool then keeps its minimum")
            .note(source(facts::NO_TRAFFIC)),
        );
    }
}

fn infos(sv: &Serving, out: &mut Vec<Diagnostic>) {
    if sv.frontend.kind.has_gateway() {
        let f = facts::GATEWAY_FEATURE;
        out.push(
            Diagnostic::new(
                "serving-feature-registration",
                format!(
                    "a private-only Application Gateway needs the subscription feature {}/{} registered before the first deployment; render cannot register it",
                    f.namespace, f.name
                ),
            )
            .at(format!("{AT}/frontend"))
            .help(format!(
                "`{}` (up to {} minutes), then `gpuform preflight` checks it; without it Azure refuses the gateway with {}",
                f.command(),
                facts::FEATURE_REGISTRATION_MINUTES,
                facts::GATEWAY_FEATURE_ERROR_CODE
            ))
            .note(source(f.source)),
        );
    }
    match sv.upgrade.mode {
        crate::spec::model::UpgradeMode::Manual => out.push(
            Diagnostic::new(
                "serving-upgrade-manual-first",
                "the scale set is created with upgradePolicy Manual: Microsoft suggests switching to Rolling once the health extension reports correctly",
            )
            .at(format!("{AT}/upgrade"))
            .help("after the first deployment, when `gpuform status` shows the instances healthy, set `serving.upgrade.mode: rolling` and deploy again")
            .note(source(facts::MANUAL_FIRST)),
        ),
        crate::spec::model::UpgradeMode::Rolling => {}
    }
    if sv.upgrade.max_surge {
        let f = facts::MAX_SURGE_FEATURE;
        out.push(
            Diagnostic::new(
                "serving-max-surge-preview",
                format!(
                    "rolling upgrades with MaxSurge are in preview and need {}/{} registered{}",
                    f.namespace,
                    f.name,
                    if sv.upgrade.mode == crate::spec::model::UpgradeMode::Manual {
                        "; with upgrade.mode manual it has no effect"
                    } else {
                        ""
                    }
                ),
            )
            .at(format!("{AT}/upgrade/maxSurge"))
            .help(format!(
                "`{}`, and quota for the extra VMs; or `maxSurge: false`",
                f.command()
            ))
            .note(source(f.source)),
        );
    }
}
