//! Preflight in a landing zone (issue 13): the existing subnet the pool joins (size, delegations,
//! NSG, route table and default route) and Azure Policy's verdict on every resource the rendered
//! ARM template creates. [`Inputs`] comes from the spec and the ARM emitter's output, [`gather`]
//! asks ARM, [`checks`] turns the answers into findings without I/O. The findings join the spec
//! region's checks, so every output format (table, JSON, Markdown, GitHub) and `deploy`'s own
//! preflight carry them.

use std::collections::BTreeMap;

use futures::StreamExt;
use serde_json::{Map, Value, json};

use super::Fetch;
use super::report::{Check, Status};
use crate::azure::landing_zone::{
    LandingZoneApi, PolicyReference, PolicyRestrictions, RouteTable, Subnet,
};
use crate::azure::{ArmApi, ArmError};
use crate::spec::model::{Outbound, Spec};

/// How the pool reaches the Internet (the GPU driver extension downloads the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Egress {
    #[default]
    NatGateway,
    /// `outbound: none`: egress is someone else's business.
    None,
    /// `outbound: userDefinedRouting` (branch lzn): a default route to the hub firewall.
    UserDefinedRouting,
}

// ---------------------------------------------------------------------------------------------
// The two spec reads to repoint when branch lzn merges (its `plan.network.existing` and
// `Outbound::UserDefinedRouting`): everything else goes through these.

/// The existing subnet the pool joins (`network.existingSubnet`).
pub fn existing_subnet(spec: &Spec) -> Option<&str> {
    spec.spec
        .network
        .existing_subnet
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The spec's egress.
pub fn egress(spec: &Spec) -> Egress {
    match spec.spec.network.outbound {
        Outbound::NatGateway => Egress::NatGateway,
        Outbound::None => Egress::None,
        Outbound::UserDefinedRouting => Egress::UserDefinedRouting,
    }
}

/// A landing-zone spec: it joins an existing subnet or egresses through the hub. Its
/// preflight always runs the landing-zone checks.
pub fn is_landing_zone(spec: &Spec) -> bool {
    existing_subnet(spec).is_some() || egress(spec) == Egress::UserDefinedRouting
}

/// Do the private endpoints share the workload subnet? They do unless
/// `network.existingPrivateEndpointSubnet` names another subnet (ids compare without case).
fn subnet_id_is_none(spec: &Spec) -> bool {
    existing_subnet(spec).is_none()
}

fn private_endpoints_share_subnet(spec: &Spec) -> bool {
    let n = &spec.spec.network;
    match (
        n.existing_private_endpoint_subnet.as_deref().map(str::trim),
        existing_subnet(spec),
    ) {
        (Some(pe), Some(workload)) if !pe.is_empty() => pe.eq_ignore_ascii_case(workload),
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// One resource of the rendered template, as Azure Policy is asked about it.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyResource {
    pub resource_type: String,
    /// The literal name; `None` when the template computes it.
    pub name: Option<String>,
    pub location: Option<String>,
    pub sku: Option<String>,
    pub api_version: String,
    /// `resourceContent`: type, name, location, sku, kind, tags and properties, with every
    /// template expression left out (Policy cannot evaluate them; the fields it would need are
    /// reported as restrictions instead).
    pub content: Value,
    /// How many resources of the template this one stands for (same type, SKU and location).
    pub count: usize,
}

impl PolicyResource {
    pub fn label(&self) -> String {
        match (&self.name, self.count) {
            (Some(n), 1) => format!("{} {n}", self.resource_type),
            (Some(n), c) => format!("{} {n} (and {} more like it)", self.resource_type, c - 1),
            (None, 1) => self.resource_type.clone(),
            (None, c) => format!("{} ({c} of them)", self.resource_type),
        }
    }
}

/// What the landing-zone checks need, computed once from the spec and its rendered template.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// `network.existingSubnet`.
    pub subnet_id: Option<String>,
    pub egress: Egress,
    /// The spec's region (every regional resource's `location` parameter).
    pub region: String,
    /// Instances at peak (capacity.max, or a larger schedule max).
    pub instances: u32,
    /// Extra instances the scale set may create at once (overprovisioning, rolling-upgrade
    /// surge), worst case.
    pub surge: u32,
    /// Private endpoints the template puts in the same subnet (one address each).
    pub private_endpoints: Vec<String>,
    /// The scale set / VM names of the template: their addresses are the pool's own on a
    /// redeployment, not someone else's.
    pub pool_names: Vec<String>,
    /// The template's resources (deduplicated), or why the template could not be rendered.
    pub resources: Result<Vec<PolicyResource>, String>,
    /// `network.existingPrivateEndpointSubnet`, when it is not `existingSubnet`.
    pub pe_subnet_id: Option<String>,
    /// `network.routeTable.id`: an existing route table for gpuform's own subnet.
    pub route_table_id: Option<String>,
}

/// The most checkPolicyRestrictions calls one preflight makes (the template has about 30
/// distinct type/SKU/location combinations; more is a bug or a very unusual spec).
pub const MAX_POLICY_CALLS: usize = 48;
/// At most this many policy calls in flight.
const POLICY_CONCURRENCY: usize = 4;

fn is_expression(s: &str) -> bool {
    s.starts_with('[') && s.ends_with(']') && !s.starts_with("[[")
}

/// `[variables('name')]`: the variable's name.
fn variable_ref(s: &str) -> Option<&str> {
    s.strip_prefix("[variables('")?.strip_suffix("')]")
}

/// A template value without its expressions (`None` when nothing literal is left). A plain
/// `[variables('x')]` whose variable is literal (the tags, the vault name) is resolved.
fn literal(v: &Value, vars: &Map<String, Value>) -> Option<Value> {
    match v {
        Value::String(s) if is_expression(s) => {
            let var = vars.get(variable_ref(s)?)?;
            // a variable that refers to another one stops here: no recursion through the map
            match var {
                Value::String(t) if is_expression(t) => None,
                other => literal(other, &Map::new()),
            }
        }
        Value::Object(m) => {
            let out: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| !is_expression(k))
                .filter_map(|(k, v)| literal(v, vars).map(|v| (k.clone(), v)))
                .collect();
            Some(Value::Object(out))
        }
        Value::Array(a) => Some(Value::Array(
            a.iter().filter_map(|x| literal(x, vars)).collect(),
        )),
        other => Some(other.clone()),
    }
}

fn lit_str(v: Option<&Value>, vars: &Map<String, Value>) -> Option<String> {
    v.and_then(|v| literal(v, vars))
        .and_then(|v| v.as_str().map(str::to_string))
}

fn variables(template: &Value) -> Map<String, Value> {
    template
        .get("variables")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The template's resources (array or, in languageVersion 2.0, an object of them).
fn template_resources(template: &Value) -> Vec<&Value> {
    match template.get("resources") {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(Value::Object(m)) => m.values().collect(),
        _ => Vec::new(),
    }
}

/// Every resource the template creates (`existing` references left out), as Policy is asked
/// about them, one per type + SKU + location.
pub fn policy_resources(template: &Value, region: &str) -> Vec<PolicyResource> {
    let mut out: Vec<PolicyResource> = Vec::new();
    let mut index: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let vars = variables(template);
    for r in template_resources(template) {
        if r.get("existing").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let (Some(ty), Some(api)) = (
            r.get("type").and_then(Value::as_str),
            r.get("apiVersion").and_then(Value::as_str),
        ) else {
            continue;
        };
        // regional resources take the `location` parameter, which deploy sets to the spec's
        // region; literal locations (`global`) stay as written
        let location = match r.get("location").and_then(Value::as_str) {
            Some(l) if is_expression(l) => Some(region.to_string()),
            Some(l) => Some(l.to_string()),
            None => None,
        };
        let sku = r
            .get("sku")
            .and_then(|s| s.get("name"))
            .and_then(|n| lit_str(Some(n), &vars));
        let key = (
            ty.to_ascii_lowercase(),
            sku.clone().unwrap_or_default().to_ascii_lowercase(),
            location.clone().unwrap_or_default().to_ascii_lowercase(),
        );
        if let Some(&i) = index.get(&key) {
            out[i].count += 1;
            continue;
        }
        let name = lit_str(r.get("name"), &vars);
        let mut content = Map::new();
        content.insert("type".into(), json!(ty));
        if let Some(n) = &name {
            content.insert("name".into(), json!(n));
        }
        if let Some(l) = &location {
            content.insert("location".into(), json!(l));
        }
        for k in ["sku", "kind", "tags", "properties", "zones"] {
            if let Some(v) = r.get(k).and_then(|v| literal(v, &vars)) {
                content.insert(k.into(), v);
            }
        }
        index.insert(key, out.len());
        out.push(PolicyResource {
            resource_type: ty.to_string(),
            name,
            location,
            sku,
            api_version: api.to_string(),
            content: Value::Object(content),
            count: 1,
        });
    }
    out
}

impl Inputs {
    /// The landing-zone inputs of a spec whose ARM template is `template` (or could not be
    /// rendered: the reason); `None` when the spec is not a landing-zone spec and `policy`
    /// (`preflight --azure-policy`) does not ask for the Azure Policy check anyway.
    pub fn from_template(
        spec: &Spec,
        template: Result<&Value, String>,
        instances: u32,
        policy: bool,
    ) -> Option<Inputs> {
        let subnet_id = existing_subnet(spec).map(str::to_string);
        if !policy && !is_landing_zone(spec) {
            return None;
        }
        let region = spec.spec.region.trim().to_ascii_lowercase();
        let mut surge = 0;
        let mut private_endpoints = Vec::new();
        let mut pool_names = Vec::new();
        if let Ok(t) = &template {
            let vars = variables(t);
            for r in template_resources(t) {
                let ty = r.get("type").and_then(Value::as_str).unwrap_or("");
                let name = lit_str(r.get("name"), &vars);
                if ty.eq_ignore_ascii_case("Microsoft.Network/privateEndpoints")
                    && private_endpoints_share_subnet(spec)
                {
                    private_endpoints.push(name.unwrap_or_else(|| "(computed name)".into()));
                } else if ty.eq_ignore_ascii_case("Microsoft.Compute/virtualMachineScaleSets") {
                    // Azure documents neither how many extra VMs overprovisioning creates nor
                    // more than "a batch" for maxSurge: count a whole second pool, worst case
                    let p = r.get("properties");
                    let over = p
                        .and_then(|p| p.get("overprovision"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    let max_surge = p
                        .and_then(|p| p.pointer("/upgradePolicy/rollingUpgradePolicy/maxSurge"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    if over || max_surge {
                        surge = instances;
                    }
                    pool_names.extend(name);
                } else if ty.eq_ignore_ascii_case("Microsoft.Compute/virtualMachines") {
                    pool_names.extend(name);
                }
            }
        }
        Some(Inputs {
            subnet_id,
            egress: egress(spec),
            instances,
            surge,
            private_endpoints,
            pool_names,
            resources: template.map(|t| policy_resources(t, &region)),
            region,
            pe_subnet_id: spec
                .spec
                .network
                .existing_private_endpoint_subnet
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            route_table_id: spec
                .spec
                .network
                .route_table
                .as_ref()
                .and_then(|r| r.id.as_deref())
                .map(str::trim)
                .filter(|s| !s.is_empty() && subnet_id_is_none(spec))
                .map(str::to_string),
        })
    }

    /// The inputs of a checked spec: renders its ARM template the way `render` does.
    pub fn for_checked(
        checked: &crate::spec::Checked,
        instances: u32,
        policy: bool,
    ) -> Option<Inputs> {
        let spec = checked.spec.as_ref()?;
        if !policy && !is_landing_zone(spec) {
            return None;
        }
        let template = crate::plan::Plan::build(checked)
            .map(|p| crate::emit::arm::template(&p))
            .map_err(|e| e.to_string());
        Inputs::from_template(
            spec,
            template.as_ref().map_err(Clone::clone),
            instances,
            policy,
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Data

/// One resource's answer from Azure Policy.
#[derive(Debug, Clone)]
pub struct PolicyAnswer {
    pub resource: PolicyResource,
    /// The scope that answered ("resource group rg" / "subscription").
    pub scope: String,
    pub result: Fetch<PolicyRestrictions>,
}

/// What ARM answered.
#[derive(Debug, Clone)]
pub struct Data {
    /// `None`: the spec names no existing subnet.
    pub subnet: Option<Fetch<Subnet>>,
    /// `None`: not asked (no subnet, or the subnet has no route table).
    pub route_table: Option<Fetch<RouteTable>>,
    /// One answer per resource; `Err` when nothing could be asked (no template, offline).
    pub policy: Result<Vec<PolicyAnswer>, Fetch<()>>,
    /// The subscription the deployment goes to (`None` offline).
    pub subscription: Option<String>,
}

impl Data {
    /// Offline or without the client: every check skipped with `why`.
    pub fn skipped(inputs: &Inputs, why: &str) -> Data {
        Data {
            subnet: inputs
                .subnet_id
                .as_ref()
                .map(|_| Fetch::Skipped(why.into())),
            route_table: None,
            policy: Err(Fetch::Skipped(why.into())),
            subscription: None,
        }
    }

    /// Errors that end the run (credential, TLS, connection, 401).
    pub fn fatal(&self) -> Option<&ArmError> {
        let policy = self
            .policy
            .as_ref()
            .ok()
            .into_iter()
            .flatten()
            .map(|a| a.result.error());
        [
            self.subnet.as_ref().and_then(Fetch::error),
            self.route_table.as_ref().and_then(Fetch::error),
        ]
        .into_iter()
        .chain(policy)
        .flatten()
        .find(|e| e.is_fatal())
    }
}

fn is_group_not_found(e: &ArmError) -> bool {
    e.status == Some(404)
        && e.code
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("ResourceGroupNotFound"))
}

/// The checkPolicyRestrictions request for one resource. `pendingFields` asks for the
/// location restrictions (allowed / denied locations) so a deny can name the allowed ones.
pub fn policy_request(r: &PolicyResource) -> Value {
    let mut req = json!({
        "resourceDetails": {"resourceContent": r.content, "apiVersion": r.api_version},
        "includeAuditEffect": true
    });
    if let Some(l) = &r.location {
        req["pendingFields"] = json!([{"field": "location", "values": [l]}]);
    }
    req
}

async fn ask_policy(
    api: &dyn LandingZoneApi,
    resource_group: Option<&str>,
    r: &PolicyResource,
) -> PolicyAnswer {
    let req = policy_request(r);
    let mut scope = match resource_group {
        Some(rg) => format!("resource group {rg}"),
        None => "the subscription".to_string(),
    };
    let mut result = api.check_policy_restrictions(resource_group, &req).await;
    // the group does not exist yet (deploy creates it): what applies to it is what applies to
    // the subscription, less assignments made on the group itself
    if let Err(e) = &result
        && is_group_not_found(e)
    {
        scope = "the subscription (the resource group does not exist yet)".to_string();
        result = api.check_policy_restrictions(None, &req).await;
    }
    PolicyAnswer {
        resource: r.clone(),
        scope,
        result: Fetch::from_result(result),
    }
}

/// Ask ARM: the subnet (then its route table) and Azure Policy, concurrently.
pub async fn gather(api: &dyn ArmApi, inputs: &Inputs, resource_group: Option<&str>) -> Data {
    let Some(lz) = api.landing_zone() else {
        return Data::skipped(
            inputs,
            "this ARM client cannot read subnets or ask Azure Policy",
        );
    };
    let network = async {
        let Some(id) = &inputs.subnet_id else {
            // gpuform's own subnet with an existing route table: read it for its region
            return match &inputs.route_table_id {
                Some(rt) => (None, Some(Fetch::from_result(lz.route_table(rt).await))),
                None => (None, None),
            };
        };
        let subnet = Fetch::from_result(lz.subnet(id).await);
        let route_table = match &subnet {
            Fetch::Got(s) => match s
                .properties
                .route_table
                .as_ref()
                .filter(|r| !r.id.is_empty())
            {
                Some(rt) => Some(Fetch::from_result(lz.route_table(&rt.id).await)),
                None => None,
            },
            _ => None,
        };
        (Some(subnet), route_table)
    };
    let policy = async {
        match &inputs.resources {
            Err(why) => Err(Fetch::Skipped(format!(
                "the ARM template could not be rendered ({why})"
            ))),
            Ok(list) => Ok(futures::stream::iter(list.iter().take(MAX_POLICY_CALLS))
                .map(|r| ask_policy(lz, resource_group, r))
                .buffered(POLICY_CONCURRENCY)
                .collect::<Vec<_>>()
                .await),
        }
    };
    let ((subnet, route_table), policy) = futures::join!(network, policy);
    Data {
        subnet,
        route_table,
        policy,
        subscription: Some(api.subscription().to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

fn check(id: &'static str, title: &'static str, status: Status, message: String) -> Check {
    Check {
        id,
        title,
        status,
        message,
        fix: None,
        quota: None,
        error: None,
    }
}

fn with_fix(mut c: Check, fix: impl Into<String>) -> Check {
    c.fix = Some(fix.into());
    c
}

/// A call that failed: 403 is a warning (the identity may not read it: say what to grant),
/// anything else could not be answered (unknown).
fn failed(id: &'static str, title: &'static str, what: &str, e: &ArmError) -> Check {
    let status = if e.status == Some(403) {
        Status::Warn
    } else {
        Status::Unknown
    };
    let mut c = check(
        id,
        title,
        status,
        format!(
            "could not check {what}: could not {}: {}",
            e.operation,
            e.summary()
        ),
    );
    c.fix = e.help.clone();
    c.error = Some(e.clone());
    c
}

/// `10.0.1.0/24` → 256 - 5 usable addresses (Azure reserves 5 in every subnet); IPv6 and
/// unreadable prefixes count 0.
pub fn usable_addresses(prefix: &str) -> Option<u64> {
    let (ip, bits) = prefix.trim().split_once('/')?;
    ip.parse::<std::net::Ipv4Addr>().ok()?;
    let bits: u32 = bits.parse().ok()?;
    if bits > 32 {
        return None;
    }
    Some((1u64 << (32 - bits)).saturating_sub(5))
}

/// The longest prefix length whose subnet holds `needed` addresses besides Azure's 5.
fn prefix_for(needed: u64) -> u32 {
    (0..=29u32)
        .rev()
        .find(|b| (1u64 << (32 - b)).saturating_sub(5) >= needed)
        .unwrap_or(0)
}

const SUBNET_TITLE: &str = "existing subnet";

fn subnet_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    let (Some(id), Some(fetch)) = (&inputs.subnet_id, &data.subnet) else {
        return;
    };
    let subnet = match fetch {
        Fetch::Skipped(why) => {
            out.push(check("subnet", SUBNET_TITLE, Status::Skipped, why.clone()));
            return;
        }
        Fetch::Failed(e) if e.status == Some(404) => {
            out.push(with_fix(
                check(
                    "subnet",
                    SUBNET_TITLE,
                    Status::Fail,
                    format!("network.existingSubnet {id} does not exist ({})", e.summary()),
                ),
                "check the subscription, resource group, VNet and subnet names in network.existingSubnet (`az network vnet subnet show --ids ID`)",
            ));
            return;
        }
        Fetch::Failed(e) => {
            let mut c = failed("subnet", SUBNET_TITLE, "the existing subnet", e);
            if e.status == Some(403) {
                c.fix = Some("grant the deploying identity Network Reader (or Reader) on the subnet's virtual network, usually in the platform team's resource group; without it size, delegations, NSG and route table are not checked".into());
            }
            out.push(c);
            return;
        }
        Fetch::Got(s) => s,
    };
    let prefixes = subnet.prefixes();
    out.push(check(
        "subnet",
        SUBNET_TITLE,
        Status::Pass,
        format!(
            "{} ({}) is readable",
            if subnet.name.is_empty() {
                id.as_str()
            } else {
                subnet.name.as_str()
            },
            if prefixes.is_empty() {
                "no address prefix".to_string()
            } else {
                prefixes.join(", ")
            }
        ),
    ));

    // size: usable addresses against the pool at peak + surge + private endpoints
    {
        let usable: u64 = prefixes.iter().filter_map(|p| usable_addresses(p)).sum();
        let ours = |cfg: &str| {
            let c = cfg.to_ascii_lowercase();
            inputs.pool_names.iter().any(|n| {
                c.contains(&format!(
                    "/virtualmachinescalesets/{}/",
                    n.to_ascii_lowercase()
                )) || c.contains(&format!("/networkinterfaces/{}", n.to_ascii_lowercase()))
            }) || inputs.private_endpoints.iter().any(|n| {
                c.contains(&format!(
                    "/networkinterfaces/{}.nic.",
                    n.to_ascii_lowercase()
                ))
            })
        };
        let in_use = subnet
            .properties
            .ip_configurations
            .iter()
            .filter(|c| !ours(&c.id))
            .count() as u64;
        let pe = inputs.private_endpoints.len() as u64;
        let needed = u64::from(inputs.instances) + u64::from(inputs.surge) + pe;
        let free = usable.saturating_sub(in_use);
        let mut parts = vec![format!(
            "{} VM{} at peak",
            inputs.instances,
            if inputs.instances == 1 { "" } else { "s" }
        )];
        if inputs.surge > 0 {
            parts.push(format!("{} for overprovisioning/surge", inputs.surge));
        }
        if pe > 0 {
            parts.push(format!(
                "{pe} private endpoint{} in the same subnet",
                if pe == 1 { "" } else { "s" }
            ));
        }
        let msg = format!(
            "{usable} usable addresses (Azure reserves 5 per prefix), {in_use} used by others: {free} free; the pool needs {needed} ({})",
            parts.join(" + ")
        );
        out.push(if usable == 0 {
            check(
                "subnet-size",
                "subnet size",
                Status::Unknown,
                format!("no IPv4 address prefix in {}: cannot count its addresses", prefixes.join(", ")),
            )
        } else if needed > free {
            with_fix(
                check("subnet-size", "subnet size", Status::Fail, format!("too small: {msg}")),
                format!(
                    "ask the platform team for a /{} or larger subnet (or lower capacity.max to {})",
                    prefix_for(needed + in_use),
                    free.saturating_sub(pe + u64::from(inputs.surge))
                ),
            )
        } else {
            check("subnet-size", "subnet size", Status::Pass, msg)
        });
    }

    // delegations: a scale set cannot join a subnet delegated to a service
    let delegated: Vec<String> = subnet
        .properties
        .delegations
        .iter()
        .map(|d| {
            d.properties
                .as_ref()
                .and_then(|p| p.service_name.clone())
                .unwrap_or_else(|| d.name.clone())
        })
        .collect();
    out.push(if delegated.is_empty() {
        check("subnet-delegation", "subnet delegation", Status::Pass, "not delegated".into())
    } else {
        with_fix(
            check(
                "subnet-delegation",
                "subnet delegation",
                Status::Fail,
                format!(
                    "delegated to {}: virtual machines and scale sets cannot join a delegated subnet",
                    delegated.join(", ")
                ),
            ),
            "use a subnet without delegations (ask the platform team for one)",
        )
    });

    // NSG
    out.push(match subnet.properties.network_security_group.as_ref().filter(|n| !n.id.is_empty()) {
        Some(n) => check("subnet-nsg", "subnet NSG", Status::Pass, format!("NSG {}", last_segment(&n.id))),
        None => with_fix(
            check("subnet-nsg", "subnet NSG", Status::Warn, "no network security group on the subnet: the pool's NICs are only filtered by what the platform puts in front".into()),
            "ask the platform team to attach an NSG to the subnet (landing-zone policies usually require one)",
        ),
    });

    // private endpoint network policies, when the endpoints go there
    if !inputs.private_endpoints.is_empty() {
        let v = subnet
            .properties
            .private_endpoint_network_policies
            .as_deref()
            .unwrap_or("Disabled");
        let what = match v {
            v if v.eq_ignore_ascii_case("Disabled") => {
                "NSG rules and route tables do not apply to the private endpoints"
            }
            v if v.eq_ignore_ascii_case("Enabled") => {
                "NSG rules and route tables apply to the private endpoints too"
            }
            v if v.eq_ignore_ascii_case("NetworkSecurityGroupEnabled") => {
                "NSG rules apply to the private endpoints, route tables do not"
            }
            v if v.eq_ignore_ascii_case("RouteTableEnabled") => {
                "route tables apply to the private endpoints, NSG rules do not"
            }
            _ => "unknown value",
        };
        out.push(check(
            "subnet-private-endpoint-policies",
            "private endpoint policies",
            Status::Pass,
            format!(
                "privateEndpointNetworkPolicies {v}: {what} ({} private endpoint{} this subnet)",
                inputs.private_endpoints.len(),
                if inputs.private_endpoints.len() == 1 {
                    " joins"
                } else {
                    "s join"
                }
            ),
        ));
    }

    egress_check(inputs, subnet, data, out);
}

fn last_segment(id: &str) -> &str {
    id.trim_end_matches('/').rsplit('/').next().unwrap_or(id)
}

const EGRESS_TITLE: &str = "default route";
const NO_EGRESS: &str = "the GPU driver extension downloads the driver from the Internet at first boot and fails without egress";

fn egress_check(inputs: &Inputs, subnet: &Subnet, data: &Data, out: &mut Vec<Check>) {
    const ID: &str = "subnet-default-route";
    let nat = subnet
        .properties
        .nat_gateway
        .as_ref()
        .filter(|n| !n.id.is_empty())
        .map(|n| last_segment(&n.id).to_string());
    // no default route: an error with UDR egress, a warning otherwise (unless a NAT gateway
    // on the subnet gives egress)
    let missing = |why: String| -> Check {
        match (inputs.egress, &nat) {
            (Egress::UserDefinedRouting, _) => with_fix(
                check(
                    ID,
                    EGRESS_TITLE,
                    Status::Fail,
                    format!(
                        "{why}: network.outbound is userDefinedRouting but nothing sends 0.0.0.0/0 to the hub; {NO_EGRESS}"
                    ),
                ),
                "ask the platform team for a route 0.0.0.0/0 -> VirtualAppliance (the hub firewall's IP) in the subnet's route table, and firewall rules for the driver download",
            ),
            (_, Some(n)) => check(
                ID,
                EGRESS_TITLE,
                Status::Pass,
                format!("{why}; egress through the subnet's NAT gateway {n}"),
            ),
            (_, None) => with_fix(
                check(
                    ID,
                    EGRESS_TITLE,
                    Status::Warn,
                    format!(
                        "{why} and no NAT gateway on the subnet: {NO_EGRESS}, unless the platform provides egress another way"
                    ),
                ),
                "check with the platform team how the subnet reaches the Internet (new subnets have no default outbound access)",
            ),
        }
    };
    let Some(rt) = &data.route_table else {
        out.push(missing("the subnet has no route table".into()));
        return;
    };
    let table = match rt {
        Fetch::Got(t) => t,
        Fetch::Failed(e) => {
            let mut c = failed(ID, EGRESS_TITLE, "the subnet's route table", e);
            if e.status == Some(403) {
                c.fix = Some("grant Network Reader (or Reader) on the route table's resource group to check the default route".into());
            }
            out.push(c);
            return;
        }
        Fetch::Skipped(why) => {
            out.push(check(ID, EGRESS_TITLE, Status::Skipped, why.clone()));
            return;
        }
    };
    let name = if table.name.is_empty() {
        last_segment(&table.id)
    } else {
        table.name.as_str()
    };
    let default = table.properties.routes.iter().find(|r| {
        r.properties
            .address_prefix
            .as_deref()
            .is_some_and(|p| p.trim() == "0.0.0.0/0")
    });
    let Some(route) = default else {
        out.push(missing(format!(
            "route table {name} has no default route (0.0.0.0/0)"
        )));
        return;
    };
    let hop = route.properties.next_hop_type.as_deref().unwrap_or("");
    let ip = route
        .properties
        .next_hop_ip_address
        .as_deref()
        .unwrap_or("");
    let desc = format!(
        "route table {name}: 0.0.0.0/0 -> {hop}{}",
        if ip.is_empty() {
            String::new()
        } else {
            format!(" {ip}")
        }
    );
    out.push(if hop.eq_ignore_ascii_case("None") {
        let status = if inputs.egress == Egress::UserDefinedRouting { Status::Fail } else { Status::Warn };
        with_fix(
            check(ID, EGRESS_TITLE, status, format!("{desc}: the default route drops Internet traffic; {NO_EGRESS}")),
            "ask the platform team to point 0.0.0.0/0 at the hub firewall and allow the driver download",
        )
    } else if hop.eq_ignore_ascii_case("VirtualAppliance") {
        check(ID, EGRESS_TITLE, Status::Pass, format!("{desc} (the hub firewall must allow the driver download)"))
    } else {
        check(ID, EGRESS_TITLE, Status::Pass, desc)
    });
}

/// A policy finding (one per assignment and resource).
#[derive(Debug, Clone, PartialEq)]
struct Finding {
    effect: String,
    assignment: String,
    definition: String,
    resource: String,
    fields: Vec<String>,
    reason: Option<String>,
}

fn names(p: Option<&PolicyReference>) -> (String, String) {
    let p = p.cloned().unwrap_or_default();
    let assignment = p
        .policy_assignment_id
        .as_deref()
        .map(last_segment)
        .unwrap_or("(unknown assignment)")
        .to_string();
    let mut definition = p
        .policy_definition_id
        .as_deref()
        .map(last_segment)
        .unwrap_or("(unknown definition)")
        .to_string();
    if let Some(set) = p.policy_set_definition_id.as_deref() {
        definition = format!("{definition} in initiative {}", last_segment(set));
    }
    (assignment, definition)
}

fn same_location(a: &str, b: &str) -> bool {
    let n = |s: &str| s.replace(' ', "").to_ascii_lowercase();
    n(a) == n(b)
}

/// The findings of one answer: content evaluations (deny, audit, others) and the location /
/// SKU field restrictions that hit this resource's values.
fn findings(r: &PolicyResource, answer: &PolicyRestrictions) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for ev in answer
        .content_evaluation_result
        .iter()
        .flat_map(|c| c.policy_evaluations.iter())
    {
        let effect = ev
            .effect_details
            .as_ref()
            .and_then(|e| e.policy_effect.clone())
            .unwrap_or_else(|| "unknown effect".into());
        let (assignment, definition) = names(ev.policy_info.as_ref());
        let fields: Vec<String> = ev
            .evaluation_details
            .iter()
            .flat_map(|d| d.evaluated_expressions.iter())
            .filter(|x| {
                x.expression_kind
                    .as_deref()
                    .is_none_or(|k| k.eq_ignore_ascii_case("field"))
            })
            .filter_map(|x| x.path.clone().or_else(|| x.expression.clone()))
            .collect();
        let reason = ev
            .evaluation_result
            .as_deref()
            .filter(|r| !r.eq_ignore_ascii_case("NonCompliant"))
            .map(|r| format!("evaluation result {r}"));
        out.push(Finding {
            effect,
            assignment,
            definition,
            resource: r.label(),
            fields,
            reason,
        });
    }
    for fr in &answer.field_restrictions {
        let field = fr.field.as_str();
        let ours = if field.eq_ignore_ascii_case("location") {
            r.location.as_deref()
        } else if field.to_ascii_lowercase().ends_with("sku.name") {
            r.sku.as_deref()
        } else {
            None
        };
        let Some(value) = ours else { continue };
        for x in &fr.restrictions {
            let listed = x.values.iter().any(|v| same_location(v, value));
            let result = x.result.as_deref().unwrap_or("");
            // Deny lists the forbidden values; Required lists the only allowed ones
            let hit = (result.eq_ignore_ascii_case("Deny") && listed)
                || (result.eq_ignore_ascii_case("Required") && !x.values.is_empty() && !listed);
            if !hit {
                continue;
            }
            let (assignment, definition) = names(x.policy.as_ref());
            let effect = x.policy_effect.clone().unwrap_or_else(|| "Deny".into());
            let reason = Some(x.reason.clone().unwrap_or_else(|| {
                if result.eq_ignore_ascii_case("Required") {
                    format!("{field} must be one of {}", x.values.join(", "))
                } else {
                    format!("{field} {value} is denied")
                }
            }));
            // the same assignment already found by the content evaluation: add the field
            if let Some(f) = out.iter_mut().find(|f| f.assignment == assignment) {
                if !f.fields.iter().any(|x| x.eq_ignore_ascii_case(field)) {
                    f.fields.push(field.to_string());
                }
                if f.reason.is_none() {
                    f.reason = reason;
                }
                continue;
            }
            out.push(Finding {
                effect,
                assignment,
                definition,
                resource: r.label(),
                fields: vec![field.to_string()],
                reason,
            });
        }
    }
    out
}

fn finding_text(f: &Finding) -> String {
    let mut s = format!(
        "policy assignment {} (definition {}) {} {}",
        f.assignment,
        f.definition,
        if f.effect.eq_ignore_ascii_case("Deny") {
            "denies"
        } else {
            "flags"
        },
        f.resource
    );
    if !f.fields.is_empty() {
        s.push_str(&format!(
            " (field{} {})",
            if f.fields.len() == 1 { "" } else { "s" },
            f.fields.join(", ")
        ));
    }
    if let Some(r) = &f.reason {
        s.push_str(&format!(": {r}"));
    }
    s
}

const POLICY_TITLE: &str = "Azure Policy";

fn policy_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    let answers = match &data.policy {
        Err(Fetch::Skipped(why)) => {
            out.push(check("policy", POLICY_TITLE, Status::Skipped, why.clone()));
            return;
        }
        Err(Fetch::Failed(e)) => {
            out.push(failed("policy", POLICY_TITLE, "Azure Policy", e));
            return;
        }
        Err(Fetch::Got(())) => return,
        Ok(a) => a,
    };
    let mut denies = Vec::new();
    let mut audits = Vec::new();
    let mut forbidden = None;
    let mut unanswered: Vec<&PolicyAnswer> = Vec::new();
    for a in answers {
        match &a.result {
            Fetch::Got(r) => {
                for f in findings(&a.resource, r) {
                    if f.effect.eq_ignore_ascii_case("Deny") {
                        denies.push(f);
                    } else {
                        audits.push(f);
                    }
                }
            }
            Fetch::Failed(e) if e.status == Some(403) => forbidden = forbidden.or(Some(e)),
            _ => unanswered.push(a),
        }
    }
    for f in &denies {
        out.push(with_fix(
            check("policy-deny", POLICY_TITLE, Status::Fail, finding_text(f)),
            "the deployment would fail on this resource: change the spec so the template does not create it (landing zones: network.existingSubnet, outbound through the hub), or ask the platform team for a policy exemption",
        ));
    }
    for f in &audits {
        out.push(check(
            "policy-audit",
            POLICY_TITLE,
            Status::Pass,
            format!("does not block: {}", finding_text(f)),
        ));
    }
    if let Some(e) = forbidden {
        let mut c = failed(
            "policy",
            POLICY_TITLE,
            "whether Azure Policy denies the template's resources",
            e,
        );
        c.status = Status::Warn;
        c.fix = Some("grant Microsoft.PolicyInsights/checkPolicyRestrictions/action (Reader on the subscription or resource group includes it) to check Azure Policy before deploying; until then Policy can still deny the deployment midway".into());
        out.push(c);
    }
    for a in &unanswered {
        if let Fetch::Failed(e) = &a.result {
            out.push(failed(
                "policy",
                POLICY_TITLE,
                &format!("Azure Policy for {}", a.resource.label()),
                e,
            ));
        }
    }
    let answered = answers
        .iter()
        .filter(|a| matches!(a.result, Fetch::Got(_)))
        .count();
    let total = inputs.resources.as_ref().map(Vec::len).unwrap_or(0);
    if total > answers.len() {
        out.push(check(
            "policy",
            POLICY_TITLE,
            Status::Warn,
            format!(
                "only the first {} of {total} resource kinds were checked against Azure Policy (at most {MAX_POLICY_CALLS} calls per preflight)",
                answers.len()
            ),
        ));
    }
    if denies.is_empty() && answered > 0 && forbidden.is_none() && unanswered.is_empty() {
        let scope = answers
            .first()
            .map(|a| a.scope.as_str())
            .unwrap_or("the subscription");
        out.push(check(
            "policy",
            POLICY_TITLE,
            Status::Pass,
            format!(
                "no deny: {answered} resource kind{} of the template (by type, SKU and location, in {}) checked at {scope}",
                if answered == 1 { "" } else { "s" },
                inputs.region
            ),
        ));
    }
}

/// The landing-zone findings (they join the spec region's checks).
/// The pool's NICs, the private endpoints and a route table must be in the subscription and
/// region of the virtual network they join ([`crate::facts::placement`]): the ids name the
/// subscriptions, the route table read names its region.
fn placement_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    use crate::azure::resource_id::ArmId;
    use crate::facts::placement;
    const TITLE: &str = "Subscription and region of the subnets and route table";
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    if let Some(sub) = &data.subscription {
        let ids = [
            (
                "network.existingSubnet",
                inputs.subnet_id.as_deref(),
                "the pool's NICs",
                placement::NIC.what,
            ),
            (
                "network.existingPrivateEndpointSubnet",
                inputs.pe_subnet_id.as_deref(),
                "the private endpoints",
                placement::PRIVATE_ENDPOINT.what,
            ),
            (
                "network.routeTable.id",
                inputs.route_table_id.as_deref(),
                "the route table of gpuform's subnet",
                placement::ROUTE_TABLE.what,
            ),
        ];
        for (field, id, what, source) in ids {
            let Some(other) = id
                .and_then(|i| ArmId::parse(i).ok())
                .map(|a| a.subscription)
            else {
                continue;
            };
            checked.push(field);
            if !other.eq_ignore_ascii_case(sub) {
                problems.push(format!(
                    "{field} is in subscription {other}, but the deployment goes to {sub}: {what} must be in the virtual network's subscription ({source})"
                ));
            }
        }
    }
    if inputs.route_table_id.is_some()
        && let Some(Fetch::Got(rt)) = &data.route_table
        && !rt.location.is_empty()
    {
        checked.push("the route table's region");
        if !same_location(&rt.location, &inputs.region) {
            problems.push(format!(
                "network.routeTable.id is in {}, the pool's VNet in {}: a route table joins only subnets of its own region and subscription ({})",
                rt.location,
                inputs.region,
                placement::ROUTE_TABLE.what
            ));
        }
    }
    if !problems.is_empty() {
        out.push(with_fix(
            check("landing-zone-placement", TITLE, Status::Fail, problems.join("; ")),
            "deploy to the subscription (and region) of the platform team's network (`--subscription`), or ask for a subnet / route table in the deployment's subscription and region",
        ));
    } else if !checked.is_empty() {
        out.push(check(
            "landing-zone-placement",
            TITLE,
            Status::Pass,
            format!(
                "{} in the deployment's subscription and region",
                checked.join(", ")
            ),
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// The existing Log Analytics workspace (`monitoring.existingWorkspace`, issue 19)

/// What preflight reads of the platform team's workspace: its region, and the GPU table the DCR
/// writes to, which must exist before the DCR (the workspace is not gpuform's to change).
#[derive(Debug, Clone)]
pub struct WorkspaceInputs {
    pub id: String,
    /// The pool's region.
    pub region: String,
    /// The custom table the data collection rule needs, with the command that creates it
    /// (`None`: GPU monitoring is off).
    pub table: Option<(String, String)>,
}

impl WorkspaceInputs {
    pub fn of(spec: &Spec) -> Option<WorkspaceInputs> {
        let s = &spec.spec;
        let ws = crate::plan::shared::workspace(s)?;
        let gpu_on = s.monitoring.gpu.enabled.unwrap_or(true);
        let table = crate::plan::shared::prerequisites(&spec.metadata.name, s, gpu_on)
            .into_iter()
            .find(|p| p.kind == "table")
            .map(|p| {
                let command = p
                    .what
                    .split_once('`')
                    .and_then(|(_, rest)| rest.split_once('`'))
                    .map(|(c, _)| c.to_string())
                    .unwrap_or(p.what);
                (crate::plan::gpu_monitoring::TABLE.to_string(), command)
            });
        Some(WorkspaceInputs {
            id: ws.id,
            region: s.region.trim().to_ascii_lowercase(),
            table,
        })
    }
}

#[derive(Debug, Clone)]
pub struct WorkspaceData {
    pub location: Fetch<String>,
    pub table: Option<Fetch<bool>>,
}

pub async fn gather_workspace(api: &dyn ArmApi, inputs: &WorkspaceInputs) -> Option<WorkspaceData> {
    let lz = api.landing_zone()?;
    let table = async {
        match &inputs.table {
            Some((t, _)) => Some(Fetch::from_result(lz.table_exists(&inputs.id, t).await)),
            None => None,
        }
    };
    let (location, table) = futures::join!(lz.workspace_location(&inputs.id), table);
    Some(WorkspaceData {
        location: Fetch::from_result(location),
        table,
    })
}

/// The workspace's region (said: the pool's agents send to it over the public endpoint, no
/// data collection endpoint is rendered, facts::monitor::DCE) and whether the GPU table exists.
pub fn workspace_checks(inputs: &WorkspaceInputs, data: &WorkspaceData) -> Vec<Check> {
    const TITLE: &str = "The existing Log Analytics workspace";
    let mut out = Vec::new();
    match &data.location {
        Fetch::Got(l) => out.push(check(
            "workspace",
            TITLE,
            Status::Pass,
            if same_location(l, &inputs.region) {
                format!("{} is readable, in {l} with the pool", last_segment(&inputs.id))
            } else {
                format!(
                    "{} is readable, in {l} (the pool is in {}): the agents send to it directly; gpuform renders no data collection endpoint for a workspace it does not own (a DCE's logs ingestion must be in the workspace's region)",
                    last_segment(&inputs.id),
                    inputs.region
                )
            },
        )),
        Fetch::Skipped(why) => out.push(check("workspace", TITLE, Status::Skipped, why.clone())),
        Fetch::Failed(e) => out.push(failed("workspace", TITLE, "the existing workspace", e)),
    }
    if let (Some((table, command)), Some(fetch)) = (&inputs.table, &data.table) {
        const TABLE_TITLE: &str = "The GPU table in the existing workspace";
        match fetch {
            Fetch::Got(true) => out.push(check(
                "workspace-table",
                TABLE_TITLE,
                Status::Pass,
                format!("{table} exists in {}", last_segment(&inputs.id)),
            )),
            Fetch::Got(false) => out.push(with_fix(
                check(
                    "workspace-table",
                    TABLE_TITLE,
                    Status::Fail,
                    format!(
                        "{table} does not exist in {}: the data collection rule and the GPU alerts refer to it, and the workspace is the platform team's to change",
                        last_segment(&inputs.id)
                    ),
                ),
                format!("the platform team creates it before the deploy: {command}"),
            )),
            Fetch::Skipped(why) => out.push(check(
                "workspace-table",
                TABLE_TITLE,
                Status::Skipped,
                why.clone(),
            )),
            Fetch::Failed(e) => out.push(failed(
                "workspace-table",
                TABLE_TITLE,
                "the workspace's GPU table",
                e,
            )),
        }
    }
    out
}

pub fn checks(inputs: &Inputs, data: &Data) -> Vec<Check> {
    let mut out = Vec::new();
    placement_checks(inputs, data, &mut out);
    subnet_checks(inputs, data, &mut out);
    policy_checks(inputs, data, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_addresses_leave_azures_five() {
        assert_eq!(usable_addresses("10.0.0.0/24"), Some(251));
        assert_eq!(usable_addresses("10.0.0.0/28"), Some(11));
        assert_eq!(usable_addresses("10.0.0.0/29"), Some(3));
        assert_eq!(usable_addresses("fd00::/64"), None);
        assert_eq!(prefix_for(20), 27);
        assert_eq!(prefix_for(27), 27);
        assert_eq!(prefix_for(28), 26);
    }

    #[test]
    fn resources_come_from_the_template_without_expressions_and_deduplicated() {
        let t = json!({"variables": {"tags": {"env": "prod"}, "vaultName": "kv-a", "computed": "[concat('a', 'b')]"}, "resources": [
            {"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2025-05-01", "name": "nsg-a", "location": "[parameters('location')]", "tags": "[variables('tags')]",
             "properties": {"securityRules": [{"name": "r", "properties": {"sourceAddressPrefix": "[variables('x')]", "access": "Allow"}}]}},
            {"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2025-05-01", "name": "nsg-b", "location": "[parameters('location')]"},
            {"type": "Microsoft.Network/publicIPAddresses", "apiVersion": "2025-05-01", "name": "pip", "location": "[parameters('location')]", "sku": {"name": "StandardV2"}},
            {"type": "Microsoft.KeyVault/vaults", "apiVersion": "2025-05-01", "name": "[variables('vaultName')]", "location": "[parameters('location')]"},
            {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2025-01-01", "name": "[variables('computed')]", "location": "[parameters('location')]"},
            {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2025-05-01", "name": "hub", "existing": true},
            {"type": "Microsoft.Insights/actionGroups", "apiVersion": "2023-01-01", "name": "ag", "location": "global"}
        ]});
        let r = policy_resources(&t, "eastus2");
        assert_eq!(r.len(), 5);
        assert_eq!(r[0].count, 2);
        // literal variables are resolved (tag policies see the tags), computed ones left out
        assert_eq!(r[0].content["tags"], json!({"env": "prod"}));
        assert_eq!(r[2].name.as_deref(), Some("kv-a"));
        assert_eq!(r[3].name, None);
        assert_eq!(r[0].content["location"], "eastus2");
        assert_eq!(
            r[0].content["properties"]["securityRules"][0]["properties"],
            json!({"access": "Allow"})
        );
        assert_eq!(r[1].sku.as_deref(), Some("StandardV2"));
        assert!(r[3].content.get("name").is_none());
        assert_eq!(r[4].location.as_deref(), Some("global"));
        assert_eq!(
            policy_request(&r[1])["pendingFields"],
            json!([{"field": "location", "values": ["eastus2"]}])
        );
    }

    fn udr_inputs() -> Inputs {
        Inputs {
            subnet_id: Some("/subscriptions/s/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/v/subnets/a".into()),
            egress: Egress::UserDefinedRouting,
            region: "eastus2".into(),
            instances: 4,
            surge: 0,
            private_endpoints: vec![],
            pool_names: vec![],
            resources: Ok(vec![]),
            pe_subnet_id: None,
            route_table_id: None,
        }
    }

    fn subnet(route_table: bool) -> Subnet {
        serde_json::from_value(json!({"name": "a", "properties": {
            "addressPrefix": "10.0.0.0/24",
            "networkSecurityGroup": {"id": "/x/networkSecurityGroups/nsg"},
            "routeTable": if route_table { json!({"id": "/x/routeTables/rt"}) } else { Value::Null },
            "natGateway": {"id": "/x/natGateways/ng"}
        }}))
        .unwrap()
    }

    fn route(checks: &[Check]) -> &Check {
        checks
            .iter()
            .find(|c| c.id == "subnet-default-route")
            .unwrap()
    }

    /// Issue 19: the table the DCR writes to must exist before the DCR when the workspace is
    /// not gpuform's; preflight reads it and says what the platform team must create.
    #[test]
    fn a_missing_gpu_table_in_the_existing_workspace_fails_with_the_command() {
        let checked = crate::spec::check_file(
            std::path::Path::new("tests/fixtures/render/variants/shared-services.yaml"),
            &crate::spec::Policy::default(),
            crate::catalog::prices::PriceTable::embedded(),
        );
        let spec = checked.spec.as_ref().unwrap();
        let w = WorkspaceInputs::of(spec).expect("the variant joins an existing workspace");
        let (table, command) = w.table.clone().expect("GPU monitoring is on");
        assert_eq!(table, "GpuTelemetry_CL");
        assert!(
            command.starts_with("az monitor log-analytics workspace table create --subscription "),
            "{command}"
        );
        let data = |loc: &str, exists: bool| WorkspaceData {
            location: Fetch::Got(loc.into()),
            table: Some(Fetch::Got(exists)),
        };
        let c = workspace_checks(&w, &data("westeurope", false));
        let t = c.iter().find(|c| c.id == "workspace-table").unwrap();
        assert_eq!(t.status, Status::Fail);
        assert!(
            t.message.contains("GpuTelemetry_CL does not exist"),
            "{}",
            t.message
        );
        assert!(t.fix.as_deref().unwrap().contains(&command), "{:?}", t.fix);
        let ws = c.iter().find(|c| c.id == "workspace").unwrap();
        assert_eq!(ws.status, Status::Pass);
        assert!(
            ws.message.contains("renders no data collection endpoint"),
            "{}",
            ws.message
        );
        let c = workspace_checks(&w, &data(&w.region.clone(), true));
        assert!(c.iter().all(|c| c.status == Status::Pass), "{c:?}");
    }

    /// Issue 19: a NIC, a private endpoint and a route table must be in the subscription and
    /// region of the VNet they join (Learn, facts::placement).
    #[test]
    fn subnets_and_route_tables_of_another_subscription_or_region_fail() {
        let placement = |c: &[Check]| c.iter().find(|c| c.id == "landing-zone-placement").cloned();
        let data = |sub: &str, rt: Option<RouteTable>| Data {
            subnet: None,
            route_table: rt.map(Fetch::Got),
            policy: Ok(vec![]),
            subscription: Some(sub.into()),
        };
        let mut i = udr_inputs();
        i.subnet_id = Some("/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/vnet/subnets/a".into());
        let c = checks(&i, &data("22222222-2222-2222-2222-222222222222", None));
        let p = placement(&c).unwrap();
        assert_eq!(p.status, Status::Fail, "{p:?}");
        assert!(p.message.contains("network.existingSubnet is in subscription 11111111-1111-1111-1111-111111111111, but the deployment goes to 22222222-2222-2222-2222-222222222222"), "{}", p.message);
        assert!(
            p.message.contains("virtual-network-network-interface"),
            "{}",
            p.message
        );
        // the same subscription (any case) passes
        let c = checks(&i, &data("11111111-1111-1111-1111-111111111111", None));
        assert_eq!(placement(&c).unwrap().status, Status::Pass);
        // a private endpoint subnet elsewhere
        i.pe_subnet_id = Some("/subscriptions/33333333-3333-3333-3333-333333333333/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/vnet/subnets/pe".into());
        let p = placement(&checks(
            &i,
            &data("11111111-1111-1111-1111-111111111111", None),
        ))
        .unwrap();
        assert_eq!(p.status, Status::Fail);
        assert!(
            p.message
                .contains("network.existingPrivateEndpointSubnet is in subscription 33333333-3333-3333-3333-333333333333"),
            "{}",
            p.message
        );
        // gpuform's own subnet with a route table of another region
        let mut i = udr_inputs();
        i.subnet_id = None;
        i.route_table_id = Some(
            "/subscriptions/22222222-2222-2222-2222-222222222222/resourceGroups/hub/providers/Microsoft.Network/routeTables/rt-hub"
                .into(),
        );
        let rt: RouteTable = serde_json::from_value(
            json!({"name": "rt-hub", "location": "westeurope", "properties": {"routes": []}}),
        )
        .unwrap();
        let p = placement(&checks(
            &i,
            &data("22222222-2222-2222-2222-222222222222", Some(rt.clone())),
        ))
        .unwrap();
        assert_eq!(p.status, Status::Fail);
        assert!(
            p.message
                .contains("network.routeTable.id is in westeurope, the pool's VNet in eastus2"),
            "{}",
            p.message
        );
        let mut here = rt;
        here.location = "East US 2".into();
        assert_eq!(
            placement(&checks(
                &i,
                &data("22222222-2222-2222-2222-222222222222", Some(here))
            ))
            .unwrap()
            .status,
            Status::Pass
        );
        // offline: nothing to compare, no check
        let mut off = data("22222222-2222-2222-2222-222222222222", None);
        off.subscription = None;
        assert!(placement(&checks(&i, &off)).is_none());
    }

    #[test]
    fn with_udr_egress_a_missing_default_route_is_an_error_even_with_a_nat_gateway() {
        let i = udr_inputs();
        let data = |rt: Option<Fetch<RouteTable>>, with_table: bool| Data {
            subnet: Some(Fetch::Got(subnet(with_table))),
            route_table: rt,
            policy: Ok(vec![]),
            subscription: None,
        };
        // no route table at all
        let c = checks(&i, &data(None, false));
        assert_eq!(route(&c).status, Status::Fail, "{:?}", route(&c));
        assert!(
            route(&c)
                .message
                .contains("userDefinedRouting but nothing sends 0.0.0.0/0 to the hub")
        );
        // a table without 0.0.0.0/0
        let table = |routes: Value| -> RouteTable {
            serde_json::from_value(json!({"name": "rt", "properties": {"routes": routes}})).unwrap()
        };
        let c = checks(
            &i,
            &data(
                Some(Fetch::Got(table(
                    json!([{"name": "hub", "properties": {"addressPrefix": "10.0.0.0/8", "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.1.0.4"}}]),
                ))),
                true,
            ),
        );
        assert_eq!(route(&c).status, Status::Fail);
        assert!(
            route(&c)
                .message
                .contains("route table rt has no default route (0.0.0.0/0)")
        );
        // a default route that drops traffic
        let c = checks(
            &i,
            &data(
                Some(Fetch::Got(table(
                    json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "None"}}]),
                ))),
                true,
            ),
        );
        assert_eq!(route(&c).status, Status::Fail);
        // the hub firewall: pass, with its address
        let c = checks(
            &i,
            &data(
                Some(Fetch::Got(table(
                    json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.1.0.4"}}]),
                ))),
                true,
            ),
        );
        assert_eq!(route(&c).status, Status::Pass);
        assert!(
            route(&c)
                .message
                .contains("0.0.0.0/0 -> VirtualAppliance 10.1.0.4")
        );
        // outbound none: the same table is a warning
        let mut none = udr_inputs();
        none.egress = Egress::None;
        let c = checks(
            &none,
            &data(
                Some(Fetch::Got(table(
                    json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "None"}}]),
                ))),
                true,
            ),
        );
        assert_eq!(route(&c).status, Status::Warn);
    }

    #[test]
    fn private_endpoints_share_the_subnet_unless_another_one_is_named() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples/landing-zone-spoke.yaml"),
        )
        .unwrap();
        let of = |text: String| {
            let checked = crate::spec::check_source(
                text,
                "t.yaml",
                std::path::PathBuf::from("."),
                &crate::spec::Policy::default(),
                crate::catalog::prices::PriceTable::embedded(),
            );
            checked
                .spec
                .unwrap_or_else(|| panic!("{:?}", checked.diagnostics))
        };
        // the example names a separate private-endpoint subnet
        assert!(text.contains("existingPrivateEndpointSubnet"));
        assert!(!private_endpoints_share_subnet(&of(text.clone())));
        // without it the endpoints join the workload subnet
        let shared: String = text
            .lines()
            .filter(|l| !l.contains("existingPrivateEndpointSubnet"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(private_endpoints_share_subnet(&of(shared)));
    }
}
