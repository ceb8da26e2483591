//! ARM JSON (`azuredeploy.json`, `azuredeploy.parameters.json`) built as a JSON tree
//! (`emit::value`, printed by `emit::pretty` as serde_json prints it) from the same plan the Bicep templates render, never from a template. It is the deployment `bicep
//! build main.bicep` describes: the same resources, names, API versions and properties, with
//! symbolic references spelled as `resourceId()` / `reference()` and explicit `dependsOn`.
//!
//! One file per resource family, as the Handlebars templates under `templates/` are split;
//! `expr` (how values are spelled) and `symbols` (where each symbol's resource is) lie below
//! them, and this file puts the families together.

mod autoscale;
mod compute;
mod devbox;
mod expr;
mod gpu_monitoring;
mod monitoring;
mod network;
mod private_endpoint;
mod security;
mod serving;
mod symbols;

use crate::emit::value::{Map, Value};

use crate::emit::value::json;

use crate::plan::*;

pub use expr::{lit, q};

use autoscale::autoscale;
use compute::compute;
use devbox::devbox;
use expr::{lit_text, put, x};
use gpu_monitoring::gpu_monitoring;
use monitoring::monitoring;
use network::network;
use security::{identity, keyvault};
use serving::serving;
use symbols::Arm;

pub use crate::facts::arm::{PARAMETERS_SCHEMA, TEMPLATE_SCHEMA};

/// The deployment template as JSON (for the commands that read it: destroy, the landing
/// zone's preflight, tests).
pub fn template(p: &Plan) -> serde_json::Value {
    tree(p).into_serde()
}

/// The deployment template, in the tree `emit` prints.
pub(crate) fn tree(p: &Plan) -> Value {
    let a = Arm { p };
    let mut resources: Vec<Value> = Vec::new();
    network(&a, &mut resources);
    identity(&a, &mut resources);
    keyvault(&a, &mut resources);
    serving(&a, &mut resources);
    if p.devbox.is_some() {
        devbox(&a, &mut resources);
    } else {
        compute(&a, &mut resources);
    }
    if p.autoscale.is_some() {
        autoscale(&a, &mut resources);
    }
    super::standby::arm(p, standby_waits_for(p), &mut resources);
    monitoring(&a, &mut resources);
    if let Some(g) = &p.gpu {
        gpu_monitoring(&a, g, &mut resources);
    }

    let mut metadata = Map::new();
    metadata.insert(
        "_generator".into(),
        json!({ "name": "gpuform", "source": lit(&p.source_file) }),
    );
    metadata.insert("name".into(), lit(&p.name));
    if let Some(d) = &p.description {
        metadata.insert("description".into(), lit(d));
    }
    if let Some(sv) = p.serving.as_ref().filter(|sv| !sv.prerequisites.is_empty()) {
        // what the subscription needs before this template deploys (render cannot do it)
        metadata.insert("prerequisites".into(), lit(&sv.prerequisites));
    }

    // the parts are moved in: `json!` would copy each one (it serialises every value it is
    // given into a new tree), which was the largest single cost of the ARM template (issue 41)
    object([
        ("$schema", TEMPLATE_SCHEMA.into()),
        ("contentVersion", "1.0.0.0".into()),
        ("metadata", Value::Object(metadata)),
        ("parameters", parameters(p)),
        ("variables", variables(p)),
        ("resources", Value::Array(resources)),
        ("outputs", outputs(&a)),
    ])
}

/// An object of the `entries` in order, each value moved in (not copied as `json!` copies a
/// value it is given).
fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// What the standby pool waits for beyond the scale set and its own role assignments: the GPU
/// telemetry policy and its identity's roles (a Flexible pool's per-VM association), so that
/// every VM the pool builds is created after the policy exists and the policy's own
/// DeployIfNotExists acts on it (the remediation, which waits for the pool, covers the VMs built
/// before the assignment applies).
pub fn standby_waits_for(p: &Plan) -> Vec<Value> {
    let Some(pol) = p.gpu.as_ref().and_then(|g| g.dcr_policy.as_ref()) else {
        return Vec::new();
    };
    let a = Arm { p };
    let mut syms = vec!["gpuDcrPolicy"];
    syms.extend(pol.roles.iter().map(|r| r.sym.as_str()));
    match a.depends(&syms) {
        Value::Array(v) => v,
        _ => Vec::new(),
    }
}

fn parameters(p: &Plan) -> Value {
    let mut m = Map::new();
    m.insert(
        "location".into(),
        json!({
            "type": "string",
            "defaultValue": "[resourceGroup().location]",
            "metadata": { "description": lit(&format!("Region of every resource. main.bicepparam sets the spec's region ({}).", p.params.location)) }
        }),
    );
    m.insert(
        "adminUsername".into(),
        json!({ "type": "string", "defaultValue": lit(&p.params.admin_username), "metadata": { "description": "Admin user name of the VMs." } }),
    );
    if p.params.windows {
        m.insert(
            "adminPassword".into(),
            json!({
                "type": "securestring",
                "minLength": 12,
                "maxLength": 123,
                "metadata": { "description": "Admin password of the Windows VMs (12-123 characters, three of: lower case, upper case, digit, symbol). Pass it at deployment time; it has no default." }
            }),
        );
    } else {
        m.insert(
            "sshPublicKey".into(),
            json!({
                "type": "string",
                "defaultValue": lit(p.params.ssh_public_key.as_deref().unwrap_or_default()),
                "metadata": { "description": "SSH public key of the admin user (OpenSSH format). Password sign-in is disabled." }
            }),
        );
    }
    if p.monitoring.budget.is_some() {
        m.insert(
            "budgetStartDate".into(),
            json!({
                "type": "string",
                "defaultValue": "[utcNow('yyyy-MM-01')]",
                "metadata": { "description": "First day of the month the budget starts (YYYY-MM-01). Azure refuses to change the start date of an existing budget: on later deployments pass the date the budget was created with." }
            }),
        );
    }
    if let Some(sb) = p
        .standby
        .as_ref()
        .filter(|s| s.provider_principal_id.is_some())
    {
        m.insert(
            sb.roles_held_param.into(),
            json!({
                "type": "array",
                "defaultValue": [],
                "metadata": { "description": "Role definition GUIDs the Standby Pool resource provider's principal holds already where this template assigns them (granted by hand): the template leaves them out, as Azure refuses a second assignment of the same role, principal and scope (RoleAssignmentExists). gpuform deploy reads them." }
            }),
        );
    }
    if let Some(pol) = p.gpu.as_ref().and_then(|g| g.dcr_policy.as_ref()) {
        m.insert(
            pol.remediation_param.into(),
            json!({
                "type": "string",
                "defaultValue": x(format!("format('{{0}}-{{1}}', {}, utcNow({}))", q(&pol.remediation_prefix), q(pol.remediation_stamp))),
                "metadata": { "description": "Name of the GPU telemetry remediation this deployment starts. Azure refuses to change or replace a remediation while it is active, so each deployment names its own (gpuform deploy passes one)." }
            }),
        );
    }
    Value::Object(m)
}

fn variables(p: &Plan) -> Value {
    let mut m = Map::new();
    let tags: Map = p.tags.iter().map(|(k, v)| (lit_text(k), lit(v))).collect();
    m.insert("tags".into(), Value::Object(tags));
    if let Some(cd) = &p.compute.custom_data {
        m.insert("customData".into(), lit(cd));
    }
    if p.vault.existing.is_none() {
        m.insert(
            "vaultName".into(),
            match &p.vault.name {
                Some(name) => lit(name),
                None => x(format!(
                    "format('{{0}}-{{1}}', {}, uniqueString(resourceGroup().id))",
                    q(&p.vault.name_prefix)
                )),
            },
        );
    }
    if let Some(g) = &p.gpu {
        m.insert("gpuStream".into(), lit(g.stream));
    }
    Value::Object(m)
}

fn outputs(a: &Arm) -> Value {
    let mut o = base_outputs(a);
    if a.p.gpu.is_some() {
        put(
            &mut o,
            "gpuWorkbookId",
            json!({ "type": "string", "value": x(a.id("gpuWorkbook")), "metadata": { "description": "Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks)." } }),
        );
    }
    if let Some(g) = a.p.serving.as_ref().and_then(|sv| sv.gateway.as_ref()) {
        put(
            &mut o,
            "gatewayPrivateIp",
            json!({ "type": "string", "value": lit(&g.private_ip), "metadata": { "description": lit(&format!("Private IP address of the Application Gateway: clients call http://{}:{}.", g.private_ip, g.port)) } }),
        );
    }
    if a.p
        .serving
        .as_ref()
        .is_some_and(|sv| sv.private_link.is_some())
    {
        put(
            &mut o,
            "privateLinkServiceAlias",
            json!({ "type": "string", "value": x(format!("reference({}, '{}').alias", a.id("pls"), a.p.api.network)), "metadata": { "description": "Alias of the Private Link service: consumers in other VNets or tenants create a private endpoint to it." } }),
        );
    }
    o
}

fn base_outputs(a: &Arm) -> Value {
    let api = &a.p.api;
    let mut out = Map::new();
    if a.p.devbox.is_some() {
        out.insert(
            "vmId".into(),
            json!({ "type": "string", "value": x(a.id("vm")), "metadata": { "description": "Resource id of the dev box VM." } }),
        );
    } else {
        out.insert(
            "vmssId".into(),
            json!({ "type": "string", "value": x(a.id("vmss")), "metadata": { "description": "Resource id of the scale set." } }),
        );
    }
    let rest = json!({
        "identityPrincipalId": {
            "type": "string",
            "value": x(format!("reference({}, '{}').principalId", a.id("identity"), api.identity)),
            "metadata": { "description": "Principal id of the pool's managed identity (for more role assignments)." }
        },
        "identityClientId": {
            "type": "string",
            "value": x(format!("reference({}, '{}').clientId", a.id("identity"), api.identity)),
            "metadata": { "description": "Client id of the pool's managed identity (for SDK sign-in on the VMs)." }
        },
        // built from the name and the cloud's Key Vault DNS suffix: a reference() to a vault in
        // another subscription (a landing zone's) fails for a deployer without read there
        "vaultUri": {
            "type": "string",
            "value": x(format!(
                "format('https://{{0}}{{1}}/', {}, environment().suffixes.keyvaultDns)",
                match &a.p.vault.existing {
                    Some(e) => q(&e.name),
                    None => "variables('vaultName')".to_string(),
                }
            )),
            "metadata": { "description": "URI of the Key Vault." }
        },
        "logAnalyticsWorkspaceId": { "type": "string", "value": x(a.id("workspace")), "metadata": { "description": "Resource id of the Log Analytics workspace." } },
    });
    if let Value::Object(m) = rest {
        out.extend(m);
    }
    Value::Object(out)
}

/// `azuredeploy.parameters.json`: the values `main.bicepparam` sets (never a secret).
pub(crate) fn parameters_file(p: &Plan) -> Value {
    let mut m = Map::new();
    m.insert(
        "location".into(),
        json!({ "value": lit(&p.params.location) }),
    );
    m.insert(
        "adminUsername".into(),
        json!({ "value": lit(&p.params.admin_username) }),
    );
    if let Some(k) = &p.params.ssh_public_key {
        m.insert("sshPublicKey".into(), json!({ "value": lit(k) }));
    }
    object([
        ("$schema", PARAMETERS_SCHEMA.into()),
        ("contentVersion", "1.0.0.0".into()),
        ("parameters", Value::Object(m)),
    ])
}
