//! Issue 36: every serving variant (frontend kind x Private Link x protocol, with and without a
//! NAT gateway for egress) renders a private frontend only. In both main.bicep and
//! azuredeploy.json: no public IP address on a frontend (the only public IP a render may have
//! is the NAT gateway's egress address, used by nothing else), no inbound NSG rule that allows
//! the Internet (`Internet`, `*`, `Any`, `0.0.0.0/0`, or any public range), and the model
//! server's ports admit the frontend and deny the rest of the VNet. The combinations validation
//! refuses (Private Link on a gateway-only frontend, gRPC through a gateway) are refused with
//! their rule, never rendered.

mod support;

use std::collections::BTreeSet;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::emit;
use gpuform::spec::Policy;
use serde_json::Value;

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";

fn spec(kind: &str, private_link: bool, protocol: &str, nat: bool) -> String {
    let requests = if kind == "loadBalancer" {
        ""
    } else {
        "  autoscale:\n    requests: {targetPerInstance: 120}\n"
    };
    format!(
        r#"apiVersion: gpuform/v1
kind: GpuWorkload
metadata:
  name: serve-{short}
  tags: {{project: p, team: t, env: prod, costCenter: c}}
spec:
  region: westeurope
  workload: {{type: inference, gpuMemoryGiB: 20, precision: fp16}}
  compute: {{vmSize: Standard_NC24ads_A100_v4, sshPublicKey: "{KEY}", zones: ["1", "2", "3"]}}
  capacity: {{min: 1, max: 4}}
  serving:
    server: triton
    protocol: {protocol}
    frontend:
      kind: {kind}
      privateLink: {private_link}
{requests}  network:
    addressSpace: 10.80.0.0/16
    outbound: {outbound}
  monitoring: {{alertEmails: [a@example.com]}}
"#,
        short = format!("{}{}{}", &kind[..2], u8::from(private_link), &protocol[..1])
            .to_ascii_lowercase(),
        outbound = if nat { "natGateway" } else { "none" },
    )
}

/// A source an inbound allow rule must never name.
fn open_to_the_internet(src: &str) -> bool {
    let s = src.trim().to_ascii_lowercase();
    if ["internet", "*", "any", "0.0.0.0/0"].contains(&s.as_str()) || s.ends_with("/0") {
        return true;
    }
    // a public range (anything outside private, shared and special-purpose space)
    match s.parse::<ipnet::Ipv4Net>() {
        Ok(n) => ![
            "10.0.0.0/8",
            "172.16.0.0/12",
            "192.168.0.0/16",
            "100.64.0.0/10",
        ]
        .iter()
        .any(|p| p.parse::<ipnet::Ipv4Net>().unwrap().contains(&n)),
        Err(_) => false,
    }
}

/// Every string anywhere in a value (Bicep expressions included as their text).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The checks on one output's resources: `(type, name, body)` with `body` the ARM resource or
/// the Bicep body (its `properties`, `sku`, ...).
fn check(what: &str, resources: &[(String, String, Value)], ports: &[&str]) {
    let is = |r: &(String, String, Value), ty: &str| r.0.eq_ignore_ascii_case(ty);
    // public IPs: only the NAT gateway's, referenced from nothing but the NAT gateway
    let pips: Vec<&(String, String, Value)> = resources
        .iter()
        .filter(|r| is(r, "Microsoft.Network/publicIPAddresses"))
        .collect();
    for r in resources.iter().filter(|r| {
        !is(r, "Microsoft.Network/natGateways") && !is(r, "Microsoft.Network/publicIPAddresses")
    }) {
        let mut all = Vec::new();
        strings(&r.2, &mut all);
        for pip in &pips {
            assert!(
                !all.iter()
                    .any(|s| s.contains(&pip.1) || s.contains("natPublicIp")),
                "{what}: {} {} references the public IP {}",
                r.0,
                r.1,
                pip.1
            );
        }
        // no frontend takes a public address
        for fe in r.2["properties"]["frontendIPConfigurations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert!(
                fe["properties"].get("publicIPAddress").is_none(),
                "{what}: {} {} has a public frontend",
                r.0,
                r.1
            );
        }
    }
    // NSG rules: nothing in from the Internet; the model server's ports deny the VNet
    let mut denied_ports = BTreeSet::new();
    for nsg in resources
        .iter()
        .filter(|r| is(r, "Microsoft.Network/networkSecurityGroups"))
    {
        for rule in nsg.2["properties"]["securityRules"].as_array().unwrap() {
            let p = &rule["properties"];
            assert_eq!(p["direction"], "Inbound", "{what}");
            let mut sources: Vec<String> = Vec::new();
            if let Some(s) = p["sourceAddressPrefix"].as_str() {
                sources.push(s.into());
            }
            for s in p["sourceAddressPrefixes"].as_array().into_iter().flatten() {
                sources.push(s.as_str().unwrap().into());
            }
            assert!(!sources.is_empty(), "{what}: {rule}");
            if p["access"] == "Allow" {
                for s in &sources {
                    assert!(
                        !open_to_the_internet(s),
                        "{what}: {} allows {s}: {rule}",
                        nsg.1
                    );
                }
            } else if sources == ["VirtualNetwork"] {
                denied_ports.insert(p["destinationPortRange"].as_str().unwrap().to_string());
            }
        }
    }
    for port in ports {
        assert!(
            denied_ports.contains(*port),
            "{what}: the VNet is not denied on {port}: {denied_ports:?}"
        );
    }
}

#[test]
fn no_serving_variant_has_a_public_frontend_or_an_inbound_rule_from_the_internet() {
    let mut rendered = 0;
    let mut refused = 0;
    for kind in ["applicationGateway", "loadBalancer", "both"] {
        for private_link in [false, true] {
            for protocol in ["http", "grpc"] {
                for nat in [true, false] {
                    let what = format!("{kind} privateLink={private_link} {protocol} nat={nat}");
                    let c = check_source(
                        spec(kind, private_link, protocol, nat),
                        "serving.yaml",
                        std::path::PathBuf::from("."),
                        &Policy::default(),
                        PriceTable::embedded(),
                    );
                    let errors: BTreeSet<&str> = c
                        .diagnostics
                        .iter()
                        .filter(|d| d.is_error())
                        .map(|d| d.rule.as_str())
                        .collect();
                    let mut want = BTreeSet::new();
                    if private_link && kind == "applicationGateway" {
                        want.insert("serving-private-link-gateway");
                    }
                    if protocol == "grpc" && kind != "loadBalancer" {
                        want.insert("serving-grpc-gateway");
                    }
                    assert_eq!(errors, want, "{what}: {:#?}", c.diagnostics);
                    if !want.is_empty() {
                        refused += 1;
                        continue;
                    }
                    let r = emit::render(&c).unwrap_or_else(|e| panic!("{what}: {e}"));
                    let file = |n: &str| {
                        r.files
                            .iter()
                            .find(|(f, _)| *f == n)
                            .map(|(_, t)| t.clone())
                            .unwrap()
                    };
                    let arm: Value = serde_json::from_str(&file(emit::ARM_TEMPLATE)).unwrap();
                    let arm_resources: Vec<(String, String, Value)> = arm["resources"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| {
                            (
                                r["type"].as_str().unwrap().to_string(),
                                r["name"].as_str().unwrap().to_string(),
                                r.clone(),
                            )
                        })
                        .collect();
                    let ports: &[&str] = if protocol == "grpc" {
                        &["8001", "8000"]
                    } else {
                        &["8000"]
                    };
                    check(&format!("{what} (ARM)"), &arm_resources, ports);
                    let bicep = file(emit::MAIN_BICEP);
                    let bicep_resources: Vec<(String, String, Value)> = support::resources(&bicep)
                        .unwrap()
                        .into_iter()
                        .filter(|b| !b.existing)
                        .map(|b| {
                            let name = b.body["name"].as_str().unwrap_or(&b.sym).to_string();
                            (b.ty.clone(), name, b.body.clone())
                        })
                        .collect();
                    check(&format!("{what} (Bicep)"), &bicep_resources, ports);
                    // without NAT egress, no public IP at all
                    if !nat {
                        assert!(
                            !arm_resources
                                .iter()
                                .any(|r| r.0 == "Microsoft.Network/publicIPAddresses"),
                            "{what}"
                        );
                        assert!(
                            !bicep.contains("Microsoft.Network/publicIPAddresses"),
                            "{what}"
                        );
                    }
                    rendered += 1;
                }
            }
        }
    }
    // 3 kinds x 2 x 2 x 2 egress = 24; refused: privateLink on the gateway alone (4), gRPC
    // through a gateway (8, two of them overlapping the first)
    assert_eq!((rendered, refused), (14, 10));
}

/// The check itself catches what it looks for (a test that cannot fail proves nothing).
#[test]
#[should_panic(expected = "allows Internet")]
fn the_check_catches_an_inbound_rule_from_the_internet() {
    let nsg = serde_json::json!({"properties": {"securityRules": [
        {"name": "x", "properties": {"direction": "Inbound", "access": "Allow", "sourceAddressPrefix": "Internet", "destinationPortRange": "8000"}}
    ]}});
    check(
        "case",
        &[(
            "Microsoft.Network/networkSecurityGroups".into(),
            "nsg".into(),
            nsg,
        )],
        &[],
    );
}

#[test]
#[should_panic(expected = "has a public frontend")]
fn the_check_catches_a_public_frontend() {
    let agw = serde_json::json!({"properties": {"frontendIPConfigurations": [
        {"name": "public", "properties": {"publicIPAddress": {"id": "x"}}}
    ]}});
    check(
        "case",
        &[(
            "Microsoft.Network/applicationGateways".into(),
            "agw".into(),
            agw,
        )],
        &[],
    );
}
