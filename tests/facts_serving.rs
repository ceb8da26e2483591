//! The serving facts (`gpuform::facts::serving`, issue 36) held against their sources, never
//! against the code's own constants:
//!
//! - every literal against the words of the team's fact sheet `../shared/azure/serving.md`
//!   (else the dated copy `tests/fixtures/sources/serving.md`), which quotes each page;
//! - the model servers' defaults, the TLS policy, the Private Link subnet policy and the other
//!   pages the sheet does not quote against short verbatim excerpts
//!   (`tests/fixtures/sources/serving-sources.json`);
//! - every rendered serving resource against the same facts (a probe on a refused port, a
//!   gateway SKU or feature the sources do not name would fail here).
//!
//! The metric is checked against `metrics.json` by `tests/facts_monitor.rs`, the API versions
//! against the type data by `tests/facts_api.rs`, the health extension against
//! `extensions.json` by `tests/facts_extensions.rs`.

mod sources;

use gpuform::facts::serving as f;
use regex::Regex;
use serde_json::Value;
use sources::{read_json, render_all, root, source_path};

fn sheet() -> String {
    let p = source_path("azure/serving.md", "serving.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn excerpt(id: &str) -> String {
    let doc = read_json(&root().join("tests/fixtures/sources/serving-sources.json"));
    doc["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .and_then(|e| e["text"].as_str())
        .unwrap_or_else(|| panic!("no excerpt {id}"))
        .to_string()
}

/// The sheet says `text` (whitespace and line breaks of its quotes normalised).
fn says(sheet: &str, text: &str) -> bool {
    let norm = |s: &str| {
        s.replace("\n> ", " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    norm(sheet).contains(&norm(text))
}

#[test]
fn the_load_balancer_facts_are_the_sheets() {
    let s = sheet();
    // the refused probe ports, read from the sheet's sentence
    let re = Regex::new(r"HTTP probes may not target ports ([0-9,\s]+)").unwrap();
    let listed: Vec<u16> = re.captures(&s).expect("the ports sentence")[1]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(listed, f::LB_PROBE_REFUSED_PORTS);
    assert!(says(&s, "the minimum value is 5"));
    assert_eq!(f::LB_PROBE_INTERVAL_MIN, 5);
    assert!(f::LB_PROBE_INTERVAL >= f::LB_PROBE_INTERVAL_MIN);
    assert!(says(&s, "can be set between 4 and 30 minutes"));
    assert_eq!(f::LB_IDLE_TIMEOUT_MINUTES, (4, 30));
    assert!(says(
        &s,
        &format!("| Azure Load Balancer {} SKU | Yes |", f::LB_SKU)
    ));
    assert!(says(
        &s,
        &format!("| Azure Load Balancer {} SKU | No |", f::LB_SKU_REFUSED)
    ));
    assert!(says(
        &s,
        &format!("the `{}` service tag", f::PROBE_SERVICE_TAG)
    ));
    assert!(says(&s, "`probeThreshold`"));
}

#[test]
fn the_gateway_facts_are_the_sheets() {
    let s = sheet();
    assert!(says(
        &s,
        &format!("{} and WAF_v2 support private-only", f::GATEWAY_SKU)
    ));
    let feat = f::GATEWAY_FEATURE;
    assert!(says(
        &s,
        &format!(
            "az feature register --name {} --namespace {}",
            feat.name, feat.namespace
        )
    ));
    assert!(says(&s, &format!("`{}`", f::GATEWAY_FEATURE_ERROR_CODE)));
    assert!(says(&s, f::GATEWAY_FEATURE_ERROR_MESSAGE));
    assert!(says(
        &s,
        &format!("may take up to {} minutes", f::FEATURE_REGISTRATION_MINUTES)
    ));
    assert!(says(
        &s,
        &format!(
            "A minimum subnet size of /{} is recommended",
            f::GATEWAY_SUBNET_PREFIX
        )
    ));
    assert!(says(
        &s,
        "125 instance IP addresses + 1 private front-end IP + 5 Azure reserved"
    ));
    assert_eq!(
        (f::GATEWAY_CAPACITY_MAX, f::GATEWAY_FRONTEND_ADDRESSES),
        (125, 1)
    );
    assert!(says(&s, "The instance counts can range from 0 to 125"));
    assert!(says(
        &s,
        &format!(
            "The default value for maximum instance count is {}",
            f::GATEWAY_DEFAULT_MAX
        )
    ));
    assert!(says(
        &s,
        &format!("`maxCapacity` (`minimum: {}`)", f::GATEWAY_MAX_CAPACITY_MIN)
    ));
    let (lo, hi) = f::GATEWAY_PROBE_STATUS.split_once('-').unwrap();
    assert!(says(&s, &format!("status code](…) between {lo} and {hi}")));
    assert!(says(
        &s,
        &format!(
            "`minimum: {}`, `maximum: {}`",
            f::DRAIN_SECONDS.0,
            f::DRAIN_SECONDS.1
        )
    ));
    assert!(says(
        &s,
        &format!(
            "Acceptable values are from {} second to {} seconds",
            f::REQUEST_TIMEOUT_SECONDS.0,
            f::REQUEST_TIMEOUT_SECONDS.1
        )
    ));
    // NOT FOUND in the sheet: the defaults gpuform does not build on are assumptions
    assert!(says(&s, "Default value: **NOT FOUND**"));
    assert!(f::REQUEST_TIMEOUT_DEFAULT.assumption);
    assert!(says(
        &s,
        "applicationGateways` — NOT FOUND in Microsoft docs"
    ));
    assert!(f::GATEWAY_DELEGATION.assumption);
    assert!(says(
        &s,
        "Constraints (same subscription? same region?) — NOT FOUND"
    ));
    assert!(f::METRIC_RESOURCE_ELSEWHERE.assumption);
    // private link and the private-only gateway
    assert!(says(&s, "is unsupported with private only gateway"));
    // the gateway subnet's NSG: AzureLoadBalancer only, no GatewayManager rule
    assert!(says(
        &s,
        "only required rule is **Allow inbound from AzureLoadBalancer**"
    ));
    let nsg = excerpt("gateway-nsg");
    assert!(nsg.contains("no longer require inbound rules for GatewayManager"));
    assert!(nsg.contains(&format!("Allow inbound from {}", f::PROBE_SERVICE_TAG)));
    assert!(excerpt("gateway-backend-http11").contains("backend server pools is always HTTP/1.1"));
    assert!(
        excerpt("gateway-static-private-ip").contains("静的 IP アドレスを定義する必要があります")
    );
    // the TLS policy: the 20220101S column has minimum protocol version 1.2
    let tls = excerpt("ssl-policy");
    let names: Vec<&str> = tls
        .lines()
        .next()
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    let mins: Vec<&str> = tls
        .lines()
        .nth(2)
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    let col = names
        .iter()
        .position(|n| format!("AppGwSslPolicy{n}") == f::GATEWAY_SSL_POLICY)
        .expect("the policy's column");
    assert_eq!(mins[col], "1.2");
}

#[test]
fn the_request_metric_facts_are_the_sheets() {
    let s = sheet();
    assert!(says(
        &s,
        &format!(
            "|`{}` | No | Count |{} |`{}`|{} |No|",
            f::REQUEST_METRIC,
            f::REQUEST_METRIC_STATISTIC,
            f::REQUEST_METRIC_DIMENSION,
            f::REQUEST_METRIC_GRAIN
        )
    ));
    assert!(says(
        &s,
        &format!(
            "{} eq '{}'",
            f::REQUEST_METRIC_DIMENSION,
            f::request_dimension_value("<backend-pool-name>", "<backend-http-setting-name>")
        )
    ));
    assert!(says(&s, "no data for a metric, the metric is not reported"));
    assert!(says(&s, "autoscale scales out to the default"));
    assert!(f::REQUEST_METRIC_NAMESPACE.eq_ignore_ascii_case(f::GATEWAY_TYPE));
}

#[test]
fn the_health_repair_and_upgrade_facts_are_the_sheets() {
    let s = sheet();
    let (lo, hi) = f::REPAIR_GRACE_MINUTES;
    assert!(says(
        &s,
        &format!("minimum allowed grace period is {lo} minutes (PT{lo}M)")
    ));
    assert!(says(
        &s,
        &format!("maximum allowed grace period is {hi} minutes (PT{hi}M)")
    ));
    assert!(says(
        &s,
        &format!(
            "The default value for this parameter is {}%.",
            f::ROLLING_BATCH_PERCENT
        )
    ));
    let m = f::MAX_SURGE_FEATURE;
    assert!(says(&s, &format!("-FeatureName {}", m.name)));
    assert!(says(
        &s,
        "MaxSurge for Virtual Machine Scale Sets is currently in preview"
    ));
    assert!(says(
        &s,
        "The doc advises creating with Manual policy first"
    ));
    assert!(
        excerpt("rolling-manual-first")
            .contains("first create your scale set using Manual Upgrade Policy")
    );
    assert!(says(&s, "Flexible Orchestration, the scale set must also"));
    // Rich Health States need the body; the model servers answer an empty 200
    let ext = read_json(&source_path("azure/extensions.json", "extensions.json"));
    let health = ext["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "apphealth-linux")
        .unwrap();
    let rich = health["healthStates"]["rich (typeHandlerVersion 2.0)"]["http/https"]
        .as_str()
        .unwrap();
    assert!(rich.contains("missing or invalid ApplicationHealthState") && rich.contains("Unknown"));
    let grace = &health["settings"]["gracePeriod"]["max"];
    assert_eq!(grace.as_u64(), Some(f::HEALTH_GRACE_MAX_SECONDS));
    let interval = &health["settings"]["intervalInSeconds"];
    assert!(
        (interval["min"].as_u64().unwrap()..=interval["max"].as_u64().unwrap())
            .contains(&u64::from(f::HEALTH_INTERVAL_SECONDS))
    );
    let probes = &health["settings"]["numberOfProbes"];
    assert!(
        (probes["min"].as_u64().unwrap()..=probes["max"].as_u64().unwrap())
            .contains(&u64::from(f::HEALTH_PROBES))
    );
    assert!(excerpt("vllm-health").contains("Response(status_code=200)"));
    assert!(excerpt("triton").contains("Content-Length: 0"));
}

#[test]
fn the_model_servers_defaults_are_their_documentations() {
    let port = Regex::new(r"port: int = (\d+)").unwrap();
    let vllm: u16 = port.captures(&excerpt("vllm-port")).unwrap()[1]
        .parse()
        .unwrap();
    assert_eq!(f::VLLM.port, Some(vllm));
    let path = Regex::new(r#"@router\.get\("([^"]+)""#).unwrap();
    assert_eq!(
        f::VLLM.health_path,
        Some(&path.captures(&excerpt("vllm-health")).unwrap()[1])
    );
    let t = excerpt("triton");
    let at = |svc: &str| -> u16 {
        Regex::new(&format!(r"Started {svc} at 0\.0\.0\.0:(\d+)"))
            .unwrap()
            .captures(&t)
            .unwrap()[1]
            .parse()
            .unwrap()
    };
    assert_eq!(f::TRITON.grpc_port, Some(at("GRPCInferenceService")));
    assert_eq!(f::TRITON.http_port, Some(at("HTTPService")));
    assert_eq!(f::TRITON.port, f::TRITON.http_port);
    let ready = Regex::new(r"localhost:\d+(/\S+)").unwrap();
    assert_eq!(f::TRITON.health_path, Some(&ready.captures(&t).unwrap()[1]));
    // no source read for these: nothing filled in
    for s in ["tgi", "tensorrtLlm", "custom"] {
        assert!(f::server_defaults(s).is_none(), "{s}");
    }
}

#[test]
fn the_private_link_subnet_policy_is_the_pages() {
    assert!(
        excerpt("pls-subnet")
            .contains("explicit disable setting `privateLinkServiceNetworkPolicies` is required")
    );
}

/// Every resource of a rendered ARM template of `ty`.
fn resources<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["type"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case(ty))
        })
        .collect()
}

#[test]
fn every_rendered_serving_resource_follows_the_facts() {
    let s = sheet();
    let mut seen = (0, 0, 0);
    for r in render_all() {
        let at = r.spec.display().to_string();
        for lb in resources(&r.arm, f::LOAD_BALANCER_TYPE) {
            seen.0 += 1;
            assert_eq!(lb["sku"]["name"], f::LB_SKU, "{at}");
            for p in lb["properties"]["probes"].as_array().unwrap() {
                let port = p["properties"]["port"].as_u64().unwrap() as u16;
                assert!(!f::LB_PROBE_REFUSED_PORTS.contains(&port), "{at}: {port}");
                assert_eq!(p["properties"]["protocol"], "Http", "{at}");
                assert!(
                    p["properties"]["intervalInSeconds"].as_u64().unwrap() >= 5,
                    "{at}"
                );
            }
            for fe in lb["properties"]["frontendIPConfigurations"]
                .as_array()
                .unwrap()
            {
                assert!(fe["properties"].get("publicIPAddress").is_none(), "{at}");
            }
        }
        for g in resources(&r.arm, f::GATEWAY_TYPE) {
            seen.1 += 1;
            let p = &g["properties"];
            assert!(
                says(
                    &s,
                    &format!("{} and WAF_v2", p["sku"]["name"].as_str().unwrap())
                ),
                "{at}"
            );
            let cap = &p["autoscaleConfiguration"];
            assert!(cap["maxCapacity"].as_u64().unwrap() >= u64::from(f::GATEWAY_MAX_CAPACITY_MIN));
            assert!(cap["maxCapacity"].as_u64().unwrap() <= u64::from(f::GATEWAY_CAPACITY_MAX));
            for fe in p["frontendIPConfigurations"].as_array().unwrap() {
                assert!(fe["properties"].get("publicIPAddress").is_none(), "{at}");
                assert_eq!(
                    fe["properties"]["privateIPAllocationMethod"], "Static",
                    "{at}"
                );
            }
            for b in p["backendHttpSettingsCollection"].as_array().unwrap() {
                let t = b["properties"]["requestTimeout"]
                    .as_u64()
                    .expect("explicit requestTimeout");
                assert!((f::REQUEST_TIMEOUT_SECONDS.0..=f::REQUEST_TIMEOUT_SECONDS.1).contains(&t));
                let d = &b["properties"]["connectionDraining"];
                assert_eq!(d["enabled"], true, "{at}");
                let secs = d["drainTimeoutInSec"].as_u64().unwrap();
                assert!(
                    (f::DRAIN_SECONDS.0..=f::DRAIN_SECONDS.1).contains(&secs),
                    "{at}"
                );
            }
            // the subscription feature it needs is written into the template
            let pre = r.arm["metadata"]["prerequisites"]
                .as_str()
                .unwrap_or_default();
            assert!(pre.contains(f::GATEWAY_FEATURE.name), "{at}: {pre}");
        }
        for pls in resources(&r.arm, f::PRIVATE_LINK_SERVICE_TYPE) {
            seen.2 += 1;
            // its NAT subnet has the network policies off
            let subnet_id = pls["properties"]["ipConfigurations"][0]["properties"]["subnet"]["id"]
                .as_str()
                .unwrap();
            let name = subnet_id.rsplit('\'').nth(1).unwrap();
            let vnet = resources(&r.arm, "Microsoft.Network/virtualNetworks")[0];
            let sn = vnet["properties"]["subnets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .unwrap();
            assert_eq!(
                sn["properties"]["privateLinkServiceNetworkPolicies"], "Disabled",
                "{at}"
            );
        }
    }
    // the examples and the render variants reach every serving resource
    assert!(seen.0 >= 3 && seen.1 >= 3 && seen.2 >= 2, "{seen:?}");
}

/// The frontend's network limits preflight checks (`facts::serving_ops::{GATEWAY_LIMIT,
/// LOAD_BALANCER_LIMIT}`): the usage names and labels are those of a recorded `az network usage
/// list` answer, the documented limits those of the limits pages.
#[test]
fn the_frontend_network_limits_are_the_recorded_usages_and_the_limits_pages() {
    use gpuform::facts::serving_ops as ops;
    let cli = excerpt("network-usages-cli");
    let names: Vec<(String, String)> =
        Regex::new(r#""localizedValue": "([^"]+)",\s*"value": "([^"]+)""#)
            .unwrap()
            .captures_iter(&cli)
            .map(|c| (c[1].to_string(), c[2].to_string()))
            .collect();
    for l in [ops::GATEWAY_LIMIT, ops::LOAD_BALANCER_LIMIT] {
        assert!(
            names.contains(&(l.localized.to_string(), l.usage.to_string())),
            "{} / {} not in the recorded usages {names:?}",
            l.localized,
            l.usage
        );
        assert!(!l.source.assumption);
    }
    let number = |text: &str, row: &str| -> u32 {
        let re = Regex::new(&format!(r"\| *{row} *\| *([0-9,]+)")).unwrap();
        re.captures(text)
            .unwrap_or_else(|| panic!("no row {row} in {text}"))[1]
            .replace(',', "")
            .parse()
            .unwrap()
    };
    assert_eq!(
        ops::GATEWAY_LIMIT.documented,
        number(&excerpt("gateway-limit"), "Azure Application Gateway")
    );
    let lb = excerpt("lb-limit");
    assert!(lb.contains("per region per subscription"), "{lb}");
    assert_eq!(
        ops::LOAD_BALANCER_LIMIT.documented,
        number(&lb, "Load balancers")
    );
    // preflight's fix asks support to raise a full limit: the page says how
    assert!(excerpt("network-limit-raise").contains("customer support request"));
}
