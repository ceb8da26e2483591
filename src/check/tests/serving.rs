//! Tests of `plan/serving.rs` and of the request rules in `plan/scaling.rs` on checked specs
//! (`crate::check::check_source`, then `Plan::build`). They live in the check layer, above the
//! plan: a test inside `plan` that ran the check would import a floor above its own.

use crate::catalog::prices::PriceTable;
use crate::check::check_source;
use crate::plan::*;
use crate::spec::Policy;

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";

/// A serving spec with `serving` and `autoscale` blocks as given (indented two spaces).
fn plan(capacity: &str, serving: &str, autoscale: &str) -> Plan {
    let text = format!(
        r#"apiVersion: gpuform/v1
kind: GpuWorkload
metadata:
  name: chat
  tags: {{project: p, team: t, env: prod, costCenter: c}}
spec:
  region: westeurope
  workload: {{type: inference, gpuMemoryGiB: 20, precision: fp16}}
  compute: {{vmSize: Standard_NV36ads_A10_v5, sshPublicKey: "{KEY}", zones: ["1", "2", "3"]}}
  capacity: {capacity}
{serving}{autoscale}  network: {{addressSpace: 10.60.0.0/16}}
  monitoring: {{alertEmails: [a@example.com]}}
"#
    );
    let c = check_source(
        text,
        "serving.yaml",
        std::path::PathBuf::from("."),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    Plan::build(&c).unwrap()
}

const CHAT: &str = "  serving:\n    server: vllm\n    concurrency: 16\n    serviceTime: 4s\n    modelLoadTime: 12m\n";

#[test]
fn request_rules_read_the_gateways_requests_per_healthy_host() {
    let p = plan("{min: 2, max: 8}", CHAT, "  autoscale:\n    requests: {}\n");
    let sv = p.serving.as_ref().unwrap();
    let g = sv.gateway.as_ref().unwrap();
    assert_eq!(g.metric_dimension, "chat-pool~chat-http");
    let t = sv.request_target.as_ref().unwrap();
    // 16 concurrent requests of 4 s: 240 a minute per instance, 70 % of it
    assert_eq!((t.per_instance, t.written), (168, false));
    // one instance fewer still stays under the target at the lowest minimum (2)
    assert_eq!(
        t.scale_in_below,
        crate::spec::defaults::flap_safe_scale_in(168, 2)
    );
    let a = p.autoscale.as_ref().unwrap();
    assert_eq!(a.rules.len(), 2, "{:#?}", a.rules);
    for r in &a.rules {
        assert_eq!(r.metric_source, MetricSource::ApplicationGateway);
        assert_eq!(r.metric_name, crate::facts::serving::REQUEST_METRIC);
        assert_eq!(r.metric_namespace, "Microsoft.Network/applicationGateways");
        assert_eq!(r.time_grain, "PT1M");
        assert_eq!(r.statistic, "Average");
        // the metric is already per healthy host: not divided again
        assert!(!r.divide_per_instance);
        let d = r.dimension.as_ref().unwrap();
        assert_eq!(
            (d.name, d.value.as_str()),
            ("BackendSettingsPool", "chat-pool~chat-http")
        );
    }
    assert_eq!(
        (
            a.rules[0].direction,
            a.rules[0].operator,
            a.rules[0].threshold
        ),
        ("Increase", "GreaterThan", 168)
    );
    assert_eq!(
        (
            a.rules[1].direction,
            a.rules[1].operator,
            a.rules[1].threshold
        ),
        ("Decrease", "LessThan", t.scale_in_below)
    );
    // no traffic, no data point: autoscale goes up to the default only, which is the minimum
    assert!(
        a.profiles
            .iter()
            .all(|pr| pr.default == pr.min && pr.has_rules)
    );
    assert!(
        sv.required_features
            .iter()
            .any(|f| f.name == "EnableApplicationGatewayNetworkIsolation")
    );
}

#[test]
fn tokens_per_second_give_the_service_time() {
    let p = plan(
        "{min: 1, max: 4}",
        "  serving:\n    server: vllm\n    concurrency: 32\n    tokensPerSecond: 1600\n    outputTokens: 400\n",
        "  autoscale:\n    requests: {}\n",
    );
    let sv = p.serving.unwrap();
    // 1600 tokens/s shared by 32 requests: 50 tokens/s each, 400 tokens in 8 s
    assert_eq!(sv.service_time_seconds, Some(8.0));
    // 32 x 60 / 8 = 240 a minute, 70 % of it
    assert_eq!(sv.request_target.unwrap().per_instance, 168);
}

#[test]
fn repairs_wait_for_the_model_within_azures_range() {
    let grace = |load: &str| {
        let p = plan(
            "{min: 1, max: 4}",
            &format!("  serving:\n    server: vllm\n    modelLoadTime: {load}\n"),
            "",
        );
        let h = p.serving.unwrap().health;
        (
            h.repair_grace_period,
            h.grace_clamped,
            p.compute.health.unwrap().grace_period,
        )
    };
    assert_eq!(grace("3m"), ("PT10M".into(), true, "PT10M".into()));
    assert_eq!(grace("12m30s"), ("PT13M".into(), false, "PT13M".into()));
    assert_eq!(grace("PT90M"), ("PT90M".into(), false, "PT90M".into()));
}

#[test]
fn the_health_extension_probes_the_model_server_with_binary_states_unless_told() {
    let ext = |rich: bool| {
        let p = plan(
            "{min: 1, max: 4}",
            &format!("  serving:\n    server: vllm\n    richHealthStates: {rich}\n"),
            "",
        );
        p.compute
            .extensions
            .into_iter()
            .find(|e| e.kind == "ApplicationHealthLinux")
            .unwrap()
    };
    let binary = ext(false);
    assert_eq!(binary.type_handler_version, "1.0");
    assert_eq!(binary.settings["port"], 8000);
    assert_eq!(binary.settings["requestPath"], "/health");
    assert!(binary.settings.get("gracePeriod").is_none());
    let rich = ext(true);
    assert_eq!(rich.type_handler_version, "2.0");
    // the default modelLoadTime, 30 minutes, in seconds
    assert_eq!(rich.settings["gracePeriod"], 1800);
}

#[test]
fn the_model_servers_ports_admit_only_the_frontend() {
    let p = plan(
        "{min: 1, max: 4}",
        "  serving:\n    server: triton\n    protocol: grpc\n    frontend:\n      kind: loadBalancer\n      privateLink: true\n      clientSources: [10.60.0.0/16, 10.80.0.0/24]\n",
        "",
    );
    let sv = p.serving.as_ref().unwrap();
    assert_eq!((sv.port, sv.health_port), (8001, 8000));
    assert!(sv.gateway.is_none());
    let lb = sv.load_balancer.as_ref().unwrap();
    assert_eq!(lb.zones, ["1", "2", "3"]);
    assert_eq!(
        (lb.probe_port, lb.probe_path.as_str()),
        (8000, "/v2/health/ready")
    );
    let pls = sv.private_link.as_ref().unwrap();
    let nsg = p.network.nsg_workload.as_ref().unwrap();
    let allow: Vec<_> = nsg.rules.iter().filter(|r| r.access == "Allow").collect();
    let deny: Vec<_> = nsg.rules.iter().filter(|r| r.access == "Deny").collect();
    let sources = |r: &NsgRule| {
        r.source
            .iter()
            .cloned()
            .chain(r.sources.iter().cloned())
            .collect::<Vec<_>>()
    };
    for port in ["8001", "8000"] {
        let from: Vec<String> = allow
            .iter()
            .filter(|r| r.port == port)
            .flat_map(|r| sources(r))
            .collect();
        assert!(
            from.contains(&"10.80.0.0/24".to_string()),
            "{port}: {from:?}"
        );
        assert!(from.contains(&pls.subnet.prefix), "{port}: {from:?}");
        assert!(
            deny.iter()
                .any(|r| r.port == port && sources(r) == ["VirtualNetwork"]),
            "{port}"
        );
    }
    // the probe's service tag on the health port only
    assert!(
        allow
            .iter()
            .any(|r| r.port == "8000" && sources(r) == ["AzureLoadBalancer"])
    );
    for r in &nsg.rules {
        for s in sources(r) {
            assert!(
                !["Internet", "*", "0.0.0.0/0", "Any"].contains(&s.as_str()),
                "{r:?}"
            );
        }
    }
}
