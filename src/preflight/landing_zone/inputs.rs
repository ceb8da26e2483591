//! [`Inputs`]: the landing-zone questions of a spec, with the resources of the rendered ARM
//! template Azure Policy is asked about.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::spec::model::Spec;

use super::spec::{
    Egress, egress, existing_subnet, is_landing_zone, private_endpoints_share_subnet,
    subnet_id_is_none,
};

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
pub(super) const POLICY_CONCURRENCY: usize = 4;

pub(super) fn is_expression(s: &str) -> bool {
    s.starts_with('[') && s.ends_with(']') && !s.starts_with("[[")
}

/// `[variables('name')]`: the variable's name.
pub(super) fn variable_ref(s: &str) -> Option<&str> {
    s.strip_prefix("[variables('")?.strip_suffix("')]")
}

/// A template value without its expressions (`None` when nothing literal is left). A plain
/// `[variables('x')]` whose variable is literal (the tags, the vault name) is resolved.
pub(super) fn literal(v: &Value, vars: &Map<String, Value>) -> Option<Value> {
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

pub(super) fn lit_str(v: Option<&Value>, vars: &Map<String, Value>) -> Option<String> {
    v.and_then(|v| literal(v, vars))
        .and_then(|v| v.as_str().map(str::to_string))
}

pub(super) fn variables(template: &Value) -> Map<String, Value> {
    template
        .get("variables")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The template's resources (array or, in languageVersion 2.0, an object of them).
pub(super) fn template_resources(template: &Value) -> Vec<&Value> {
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
