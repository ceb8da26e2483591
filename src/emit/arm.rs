//! ARM JSON (`azuredeploy.json`, `azuredeploy.parameters.json`) built with serde_json from the
//! same plan the Bicep templates render, never from a template. It is the deployment `bicep
//! build main.bicep` describes: the same resources, names, API versions and properties, with
//! symbolic references spelled as `resourceId()` / `reference()` and explicit `dependsOn`.

use serde_json::{Map, Value, json};

use crate::plan::gpu_monitoring::{DcrPolicy, GpuMonitoring};
use crate::plan::*;

pub const TEMPLATE_SCHEMA: &str =
    "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";
pub const PARAMETERS_SCHEMA: &str =
    "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#";

/// A literal string value: ARM would evaluate a string that starts with `[` and ends with `]`
/// as an expression; `[[` escapes it.
pub fn lit(s: &str) -> Value {
    Value::String(lit_text(s))
}

fn lit_text(s: &str) -> String {
    if s.starts_with('[') && s.ends_with(']') {
        format!("[{s}")
    } else {
        s.to_string()
    }
}

/// A string literal inside an ARM expression: single quotes, `'` doubled.
pub fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `[expr]` as a JSON string.
fn x(expr: impl AsRef<str>) -> Value {
    Value::String(format!("[{}]", expr.as_ref()))
}

/// A JSON number from an f64 (integers without a fraction).
fn n(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

struct Arm<'a> {
    p: &'a Plan,
}

/// One segment of a resource name: literal text, or an ARM expression.
enum Name {
    Lit(String),
    Expr(String),
}

impl Name {
    fn lit(s: &str) -> Name {
        Name::Lit(s.to_string())
    }

    /// The segment as an argument of an ARM function.
    fn arg(&self) -> String {
        match self {
            Name::Lit(s) => q(s),
            Name::Expr(e) => e.clone(),
        }
    }

    /// The segment as a `name` value.
    fn value(&self) -> Value {
        match self {
            Name::Lit(s) => lit(s),
            Name::Expr(e) => x(e),
        }
    }
}

/// Where the resource of a Bicep symbol is: what `resourceId()` and `scope` paths need.
struct Target {
    ty: &'static str,
    /// One segment per level of the type.
    names: Vec<Name>,
    /// Resource group of an existing resource outside the deployment's group.
    rg: Option<String>,
    /// Subscription of an existing resource in another subscription (with `rg`): the shared
    /// services of a landing zone (`plan::shared`).
    sub: Option<String>,
    /// Extension resources (role assignments): the symbol of the resource they are scoped to.
    scope: Option<&'static str>,
    /// The template deploys it (otherwise main.bicep declares it `existing`).
    deployed: bool,
}

impl Arm<'_> {
    /// The one table of symbols: each symbol's type and name, found in the plan.
    fn target(&self, sym: &str) -> Target {
        let p = self.p;
        let here = |ty, names| Target {
            ty,
            names,
            rg: None,
            sub: None,
            scope: None,
            deployed: true,
        };
        // a landing zone's shared resource: referenced by subscription, group and name
        let shared = |ty, e: &shared::ExistingRef| Target {
            ty,
            names: vec![Name::lit(&e.name)],
            rg: Some(e.resource_group.clone()),
            sub: Some(e.subscription.clone()),
            scope: None,
            deployed: false,
        };
        // landing zones: a subnet (or its VNet) of the platform team's, `existing` in main.bicep
        let elsewhere = |ty, r: &landing_zone::SubnetRef, subnet: bool| Target {
            ty,
            names: if subnet {
                vec![Name::lit(&r.vnet), Name::lit(&r.subnet)]
            } else {
                vec![Name::lit(&r.vnet)]
            },
            rg: Some(r.resource_group.clone()),
            sub: Some(r.subscription.clone()),
            scope: None,
            deployed: false,
        };
        let existing = p.network.existing.as_ref();
        let existing_pe = || {
            existing
                .and_then(|e| e.private_endpoints.as_ref())
                .expect("private endpoint subnet symbol without one")
        };
        let queue = || p.queue.as_ref().expect("queue symbol without a queue");
        let queue_level = |ty, names| Target {
            ty,
            names,
            rg: queue().resource_group.clone(),
            sub: None,
            scope: None,
            deployed: queue().create,
        };
        let vault = || Name::Expr("variables('vaultName')".into());
        let cmk = || {
            p.cmk
                .as_ref()
                .expect("cmk symbol without a customer-managed key")
        };
        let queue_pe = || {
            p.queue
                .as_ref()
                .and_then(|q| q.private_endpoint.as_ref())
                .expect("queue private endpoint symbol without one")
        };
        let vault_pe = || {
            p.vault
                .private_endpoint
                .as_ref()
                .expect("vault private endpoint symbol without one")
        };
        let gpu = || p.gpu.as_ref().expect("gpu symbol without GPU monitoring");
        let devbox = || p.devbox.as_ref().expect("dev box symbol without a dev box");
        let net = &p.network;
        match sym {
            "nsgWorkload" => here(
                "Microsoft.Network/networkSecurityGroups",
                vec![Name::lit(
                    &net.nsg_workload.as_ref().expect("workload nsg").name,
                )],
            ),
            "nsgPrivateEndpoints" => here(
                "Microsoft.Network/networkSecurityGroups",
                vec![Name::lit(&net.nsg_pe.as_ref().expect("pe nsg").name)],
            ),
            "natPublicIp" => here(
                "Microsoft.Network/publicIPAddresses",
                vec![Name::lit(&net.nat.as_ref().expect("nat").public_ip_name)],
            ),
            "natGateway" => here(
                "Microsoft.Network/natGateways",
                vec![Name::lit(&net.nat.as_ref().expect("nat").name)],
            ),
            "routeTable" => here(
                landing_zone::ROUTE_TABLE_TYPE,
                vec![Name::lit(
                    &net.route_table.as_ref().expect("route table").name,
                )],
            ),
            "vnet" => match existing {
                Some(e) => elsewhere("Microsoft.Network/virtualNetworks", &e.workload, false),
                None => here(
                    "Microsoft.Network/virtualNetworks",
                    vec![Name::lit(&net.vnet_name)],
                ),
            },
            "peVnet" => elsewhere("Microsoft.Network/virtualNetworks", existing_pe(), false),
            "workloadSubnet" => match existing {
                Some(e) => elsewhere(landing_zone::SUBNET_TYPE, &e.workload, true),
                None => here(
                    landing_zone::SUBNET_TYPE,
                    vec![
                        Name::lit(&net.vnet_name),
                        Name::lit(&net.workload_subnet.as_ref().expect("workload subnet").name),
                    ],
                ),
            },
            "privateEndpointSubnet" => match existing {
                Some(_) => elsewhere(landing_zone::SUBNET_TYPE, existing_pe(), true),
                None => here(
                    landing_zone::SUBNET_TYPE,
                    vec![
                        Name::lit(&net.vnet_name),
                        Name::lit(&net.pe_subnet.as_ref().expect("pe subnet").name),
                    ],
                ),
            },
            "identity" => here(
                "Microsoft.ManagedIdentity/userAssignedIdentities",
                vec![Name::lit(&p.identity.name)],
            ),
            "vault" => match &p.vault.existing {
                Some(e) => shared("Microsoft.KeyVault/vaults", e),
                None => here("Microsoft.KeyVault/vaults", vec![vault()]),
            },
            "cmkKey" => here(
                "Microsoft.KeyVault/vaults/keys",
                vec![vault(), Name::lit(&cmk().key_name)],
            ),
            "des" => here(
                "Microsoft.Compute/diskEncryptionSets",
                vec![Name::lit(&cmk().des_name)],
            ),
            "vmss" => here(
                "Microsoft.Compute/virtualMachineScaleSets",
                vec![Name::lit(&p.compute.name)],
            ),
            "vm" => here(
                "Microsoft.Compute/virtualMachines",
                vec![Name::lit(&devbox().vm_name)],
            ),
            "vmNic" => here(
                "Microsoft.Network/networkInterfaces",
                vec![Name::lit(&devbox().nic_name)],
            ),
            "vmStart" => here(
                "Microsoft.Logic/workflows",
                vec![Name::lit(&devbox().start.workflow_name)],
            ),
            "vmShutdown" => here(
                "Microsoft.DevTestLab/schedules",
                vec![Name::lit(&devbox().shutdown.name)],
            ),
            "sbNamespace" => queue_level(
                "Microsoft.ServiceBus/namespaces",
                vec![Name::lit(&queue().parent)],
            ),
            "sbQueue" => queue_level(
                "Microsoft.ServiceBus/namespaces/queues",
                vec![Name::lit(&queue().parent), Name::lit(&queue().queue)],
            ),
            "storage" => queue_level(
                "Microsoft.Storage/storageAccounts",
                vec![Name::lit(&queue().parent)],
            ),
            "storageQueueService" => queue_level(
                "Microsoft.Storage/storageAccounts/queueServices",
                vec![Name::lit(&queue().parent), Name::lit("default")],
            ),
            "storageQueue" => queue_level(
                "Microsoft.Storage/storageAccounts/queueServices/queues",
                vec![
                    Name::lit(&queue().parent),
                    Name::lit("default"),
                    Name::lit(&queue().queue),
                ],
            ),
            "autoscale" => here(
                "Microsoft.Insights/autoscaleSettings",
                vec![Name::lit(&p.autoscale.as_ref().expect("autoscale").name)],
            ),
            "workspace" => match &p.monitoring.workspace.existing {
                Some(e) => shared("Microsoft.OperationalInsights/workspaces", e),
                None => here(
                    "Microsoft.OperationalInsights/workspaces",
                    vec![Name::lit(&p.monitoring.workspace.name)],
                ),
            },
            "actionGroup" => here(
                "Microsoft.Insights/actionGroups",
                vec![Name::lit(
                    &p.monitoring
                        .action_group
                        .as_ref()
                        .expect("action group")
                        .name,
                )],
            ),
            "vaultDnsZone" => here(
                "Microsoft.Network/privateDnsZones",
                vec![self.zone_name(vault_pe())],
            ),
            "queueDnsZone" => here(
                "Microsoft.Network/privateDnsZones",
                vec![self.zone_name(queue_pe())],
            ),
            "vaultPrivateEndpoint" => here(
                "Microsoft.Network/privateEndpoints",
                vec![Name::lit(&vault_pe().name)],
            ),
            "queuePrivateEndpoint" => here(
                "Microsoft.Network/privateEndpoints",
                vec![Name::lit(&queue_pe().name)],
            ),
            // in a central workspace the table is a prerequisite, not part of the deployment
            "gpuTable" => Target {
                deployed: p.monitoring.workspace.existing.is_none(),
                ..here(
                    "Microsoft.OperationalInsights/workspaces/tables",
                    vec![
                        Name::lit(&p.monitoring.workspace.name),
                        Name::lit(gpu().table),
                    ],
                )
            },
            "gpuDce" => here(
                "Microsoft.Insights/dataCollectionEndpoints",
                vec![Name::lit(&gpu().dce_name)],
            ),
            "gpuDcr" => here(
                "Microsoft.Insights/dataCollectionRules",
                vec![Name::lit(&gpu().dcr_name)],
            ),
            "gpuWorkbook" => here(
                "Microsoft.Insights/workbooks",
                vec![Name::Expr(gpu_workbook_name(gpu()))],
            ),
            "gpuDcrPolicy" => here(
                "Microsoft.Authorization/policyAssignments",
                vec![Name::lit(&dcr_policy(gpu()).assignment_name)],
            ),
            // the DCR policy's role assignments (resource-group scope)
            other if other.starts_with("gpuDcrPolicy") => {
                let r = dcr_policy(gpu())
                    .roles
                    .iter()
                    .find(|r| r.sym == other)
                    .unwrap_or_else(|| unreachable!("no resource for symbol {other}"));
                here(
                    "Microsoft.Authorization/roleAssignments",
                    vec![Name::Expr(dcr_policy_role_name(dcr_policy(gpu()), r.id))],
                )
            }
            // the role assignments, by their symbols in the plan
            other => match p.roles.iter().find(|r| r.sym == other) {
                Some(r) => Target {
                    ty: "Microsoft.Authorization/roleAssignments",
                    names: vec![Name::Expr(self.role_name(r))],
                    rg: None,
                    sub: None,
                    scope: Some(r.scope),
                    deployed: true,
                },
                None => unreachable!("no resource for symbol {other}"),
            },
        }
    }

    /// The resource id expression of a Bicep symbol: `resourceId()`, or
    /// `extensionResourceId()` for a role assignment.
    fn id(&self, sym: &str) -> String {
        let t = self.target(sym);
        let names = t.names.iter().map(Name::arg).collect::<Vec<_>>().join(", ");
        match (t.scope, &t.sub, &t.rg) {
            (Some(scope), _, _) => format!(
                "extensionResourceId({}, {}, {names})",
                self.id(scope),
                q(t.ty)
            ),
            (None, Some(sub), Some(rg)) => {
                format!("resourceId({}, {}, {}, {names})", q(sub), q(rg), q(t.ty))
            }
            (None, _, Some(rg)) => format!("resourceId({}, {}, {names})", q(rg), q(t.ty)),
            (None, _, None) => format!("resourceId({}, {names})", q(t.ty)),
        }
    }

    /// The `scope` value of an extension resource (role assignment, diagnostic setting) on
    /// `sym`: the path `Namespace/type/name[/type/name]`, a literal when every name is one.
    fn scope(&self, sym: &str) -> Value {
        let t = self.target(sym);
        assert!(
            t.rg.is_none() && t.scope.is_none(),
            "{sym}: a resource-group deployment scopes extension resources to its own resources"
        );
        let mut levels = t.ty.split('/');
        let mut path = levels.next().unwrap_or_default().to_string();
        let levels: Vec<&str> = levels.collect();
        debug_assert_eq!(levels.len(), t.names.len(), "{sym}: one name per level");
        if t.names.iter().all(|n| matches!(n, Name::Lit(_))) {
            for (level, name) in levels.iter().zip(&t.names) {
                if let Name::Lit(n) = name {
                    path.push_str(&format!("/{level}/{n}"));
                }
            }
            return lit(&path);
        }
        for (i, level) in levels.iter().enumerate() {
            path.push_str(&format!("/{level}/{{{i}}}"));
        }
        let args: Vec<String> = t.names.iter().map(Name::arg).collect();
        x(format!("format({}, {})", q(&path), args.join(", ")))
    }

    /// The deterministic name of a role assignment: `guid(scope id, principal id, role id)`.
    fn role_name(&self, r: &RoleAssignment) -> String {
        format!(
            "guid({}, {}, '{}')",
            self.id(r.scope),
            self.id(r.principal),
            r.role_id
        )
    }

    fn zone_name(&self, pe: &PrivateEndpoint) -> Name {
        Name::Expr(pe.zone.arm_expr(pe.storage_service))
    }

    /// `dependsOn` the resources of `syms` that the template deploys: an `existing` resource
    /// (a queue the spec does not create) is not part of the deployment.
    fn depends(&self, syms: &[&str]) -> Value {
        Value::Array(
            syms.iter()
                .filter(|s| self.target(s).deployed)
                .map(|s| x(self.id(s)))
                .collect(),
        )
    }

    fn tags(&self) -> Value {
        x("variables('tags')")
    }

    fn meta(suppressions: &[Suppression]) -> Option<Value> {
        (!suppressions.is_empty()).then(|| {
            json!({ "checkov": suppressions.iter().map(|s| Value::String(format!("{}: {}", s.check, s.reason))).collect::<Vec<_>>() })
        })
    }
}

/// Insert `key: value` into an object value.
fn put(obj: &mut Value, key: &str, value: Value) {
    if let Value::Object(m) = obj {
        m.insert(key.to_string(), value);
    }
}

/// The deployment template.
pub fn template(p: &Plan) -> Value {
    let a = Arm { p };
    let mut resources: Vec<Value> = Vec::new();
    network(&a, &mut resources);
    identity(&a, &mut resources);
    keyvault(&a, &mut resources);
    if p.devbox.is_some() {
        devbox(&a, &mut resources);
    } else {
        compute(&a, &mut resources);
    }
    if p.autoscale.is_some() {
        autoscale(&a, &mut resources);
    }
    super::standby::arm(p, &mut resources);
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

    json!({
        "$schema": TEMPLATE_SCHEMA,
        "contentVersion": "1.0.0.0",
        "metadata": metadata,
        "parameters": parameters(p),
        "variables": variables(p),
        "resources": resources,
        "outputs": outputs(&a),
    })
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
    Value::Object(m)
}

fn variables(p: &Plan) -> Value {
    let mut m = Map::new();
    let tags: Map<String, Value> = p.tags.iter().map(|(k, v)| (lit_text(k), lit(v))).collect();
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
        "vaultUri": {
            "type": "string",
            "value": x(format!("reference({}, '{}').vaultUri", a.id("vault"), api.key_vault)),
            "metadata": { "description": "URI of the Key Vault." }
        },
        "logAnalyticsWorkspaceId": { "type": "string", "value": x(a.id("workspace")), "metadata": { "description": "Resource id of the Log Analytics workspace." } },
    });
    if let Value::Object(m) = rest {
        out.extend(m);
    }
    Value::Object(out)
}

fn network(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let net = &p.network;
    let api = p.api.network;
    // landing zone: the subnet is the platform team's; nothing of the network is created
    let (Some(nsg_workload), Some(workload_subnet), Some(address_space)) =
        (&net.nsg_workload, &net.workload_subnet, &net.address_space)
    else {
        return;
    };
    let rules: Vec<Value> = nsg_workload
        .rules
        .iter()
        .map(|r| {
            let mut props = json!({
                "priority": r.priority,
                "direction": "Inbound",
                "access": "Allow",
                "protocol": r.protocol,
                "sourcePortRange": "*",
            });
            match &r.source {
                Some(s) => put(&mut props, "sourceAddressPrefix", lit(s)),
                None => put(
                    &mut props,
                    "sourceAddressPrefixes",
                    Value::Array(r.sources.iter().map(|s| lit(s)).collect()),
                ),
            }
            put(&mut props, "destinationPortRange", lit(&r.port));
            put(&mut props, "destinationAddressPrefix", lit(&r.destination));
            json!({ "name": lit(&r.name), "properties": props })
        })
        .collect();
    out.push(json!({
        "type": "Microsoft.Network/networkSecurityGroups",
        "apiVersion": api,
        "name": lit(&nsg_workload.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": { "securityRules": rules }
    }));
    if let Some(nsg) = &net.nsg_pe {
        out.push(json!({
            "type": "Microsoft.Network/networkSecurityGroups",
            "apiVersion": api,
            "name": lit(&nsg.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": { "securityRules": [] }
        }));
    }
    if let Some(nat) = &net.nat {
        let mut pip = json!({
            "type": "Microsoft.Network/publicIPAddresses",
            "apiVersion": api,
            "name": lit(&nat.public_ip_name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "sku": { "name": nat.sku, "tier": "Regional" },
            "properties": { "publicIPAllocationMethod": "Static", "publicIPAddressVersion": "IPv4" }
        });
        let mut gw = json!({
            "type": "Microsoft.Network/natGateways",
            "apiVersion": api,
            "name": lit(&nat.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "sku": { "name": nat.sku },
            "properties": {
                "idleTimeoutInMinutes": nat.idle_timeout_minutes,
                "publicIpAddresses": [ { "id": x(a.id("natPublicIp")) } ]
            },
            "dependsOn": a.depends(&["natPublicIp"])
        });
        if !nat.zones.is_empty() {
            let zones = Value::Array(nat.zones.iter().map(|z| lit(z)).collect());
            put(&mut pip, "zones", zones.clone());
            put(&mut gw, "zones", zones);
        }
        out.push(pip);
        out.push(gw);
    }
    if let Some(rt) = net.route_table.as_ref().filter(|rt| rt.create) {
        out.push(route_table(a, rt));
    }
    let mut workload_props = json!({
        "addressPrefix": lit(&workload_subnet.prefix),
        "defaultOutboundAccess": false,
        "networkSecurityGroup": { "id": x(a.id("nsgWorkload")) },
    });
    if net.nat.is_some() {
        put(
            &mut workload_props,
            "natGateway",
            json!({ "id": x(a.id("natGateway")) }),
        );
    }
    if let Some(rt) = &net.route_table {
        let id = match &rt.id {
            Some(id) => lit(id),
            None => x(a.id("routeTable")),
        };
        put(&mut workload_props, "routeTable", json!({ "id": id }));
    }
    let mut subnets =
        vec![json!({ "name": lit(&workload_subnet.name), "properties": workload_props })];
    if let Some(pe) = &net.pe_subnet {
        subnets.push(json!({
            "name": lit(&pe.name),
            "properties": {
                "addressPrefix": lit(&pe.prefix),
                "defaultOutboundAccess": false,
                "privateEndpointNetworkPolicies": "Enabled",
                "networkSecurityGroup": { "id": x(a.id("nsgPrivateEndpoints")) }
            }
        }));
    }
    let mut deps = vec!["nsgWorkload"];
    if net.nsg_pe.is_some() {
        deps.push("nsgPrivateEndpoints");
    }
    if net.nat.is_some() {
        deps.push("natGateway");
    }
    if net.route_table.as_ref().is_some_and(|rt| rt.create) {
        deps.push("routeTable");
    }
    out.push(json!({
        "type": "Microsoft.Network/virtualNetworks",
        "apiVersion": api,
        "name": lit(&net.vnet_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "addressSpace": { "addressPrefixes": [ lit(address_space) ] },
            "subnets": subnets
        },
        "dependsOn": a.depends(&deps)
    }));
}

/// `outbound: userDefinedRouting` on the own VNet: the default route to the hub firewall
/// (template reference "Microsoft.Network/routeTables", Network API 2025-05-01:
/// `properties.routes[].properties.{addressPrefix, nextHopType, nextHopIpAddress}`,
/// `disableBgpRoutePropagation`).
fn route_table(a: &Arm, rt: &landing_zone::RouteTable) -> Value {
    let p = a.p;
    json!({
        "type": landing_zone::ROUTE_TABLE_TYPE,
        "apiVersion": p.api.network,
        "name": lit(&rt.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "disableBgpRoutePropagation": true,
            "routes": [
                {
                    "name": rt.route_name,
                    "properties": {
                        "addressPrefix": "0.0.0.0/0",
                        "nextHopType": "VirtualAppliance",
                        "nextHopIpAddress": lit(rt.next_hop_ip_address.as_deref().unwrap_or_default())
                    }
                }
            ]
        }
    })
}

fn identity(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    out.push(json!({
        "type": "Microsoft.ManagedIdentity/userAssignedIdentities",
        "apiVersion": p.api.identity,
        "name": lit(&p.identity.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
    }));
    for r in &p.roles {
        let principal_id = if r.system_identity {
            format!(
                "reference({}, '{}', 'full').identity.principalId",
                a.id(r.principal),
                p.api.disk_encryption_sets
            )
        } else {
            format!(
                "reference({}, '{}').principalId",
                a.id(r.principal),
                p.api.identity
            )
        };
        out.push(json!({
            "type": "Microsoft.Authorization/roleAssignments",
            "apiVersion": p.api.role_assignments,
            "scope": a.scope(r.scope),
            "name": x(a.role_name(r)),
            "properties": {
                "roleDefinitionId": x(format!("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '{}')", r.role_id)),
                "principalId": x(principal_id),
                "principalType": "ServicePrincipal",
                "description": lit(&r.description)
            },
            "dependsOn": a.depends(&[r.scope, r.principal])
        }));
    }
}

fn private_endpoint(
    a: &Arm,
    out: &mut Vec<Value>,
    pe: &PrivateEndpoint,
    prefix: &str,
    target: &str,
) {
    let p = a.p;
    let zone_sym = format!("{prefix}DnsZone");
    let pe_sym = format!("{prefix}PrivateEndpoint");
    let zone_name = a.zone_name(pe);
    let dns = &p.network.dns;
    if dns.create {
        out.push(json!({
            "type": "Microsoft.Network/privateDnsZones",
            "apiVersion": p.api.private_dns,
            "name": zone_name.value(),
            "location": "global",
            "tags": a.tags(),
        }));
        out.push(json!({
            "type": "Microsoft.Network/privateDnsZones/virtualNetworkLinks",
            "apiVersion": p.api.private_dns,
            "name": x(format!("format('{{0}}/{{1}}', {}, {})", zone_name.arg(), q(&pe.vnet_link_name))),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "registrationEnabled": false,
                "virtualNetwork": { "id": x(a.id("vnet")) }
            },
            "dependsOn": a.depends(&[zone_sym.as_str(), "vnet"])
        }));
    }
    out.push(json!({
        "type": "Microsoft.Network/privateEndpoints",
        "apiVersion": p.api.network,
        "name": lit(&pe.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "subnet": { "id": x(a.id("privateEndpointSubnet")) },
            "customNetworkInterfaceName": lit(&pe.nic_name),
            "privateLinkServiceConnections": [
                {
                    "name": lit(&pe.name),
                    "properties": {
                        "privateLinkServiceId": x(a.id(target)),
                        "groupIds": [ pe.group_id ]
                    }
                }
            ]
        },
        "dependsOn": a.depends(&["vnet", target])
    }));
    // Template reference "Microsoft.Network/privateEndpoints/privateDnsZoneGroups" (Network
    // API 2025-05-01): properties.privateDnsZoneConfigs[].{name, properties.privateDnsZoneId}.
    // With privateDnsZones.mode: policy the landing zone's DeployIfNotExists policy creates it.
    if dns.zone_group {
        let (zone_id, deps) = match &pe.zone_id {
            Some(id) => (lit(id), a.depends(&[pe_sym.as_str()])),
            None => (
                x(a.id(&zone_sym)),
                a.depends(&[pe_sym.as_str(), zone_sym.as_str()]),
            ),
        };
        out.push(json!({
            "type": "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
            "apiVersion": p.api.network,
            "name": x(format!("format('{{0}}/{{1}}', {}, 'default')", q(&pe.name))),
            "properties": {
                "privateDnsZoneConfigs": [
                    { "name": pe.group_id, "properties": { "privateDnsZoneId": zone_id } }
                ]
            },
            "dependsOn": deps
        }));
    }
}

fn keyvault(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let v = &p.vault;
    if v.existing.is_some() {
        // a landing zone's vault: referenced (`vault` resolves to its id), never deployed; the
        // rule `existing-key-vault-cmk` keeps customer-managed keys out of this case
        return;
    }
    let mut props = json!({
        "tenantId": "[subscription().tenantId]",
        "sku": { "family": "A", "name": v.sku },
        "enableRbacAuthorization": true,
        "enableSoftDelete": true,
        "softDeleteRetentionInDays": v.soft_delete_retention_days,
    });
    if v.purge_protection {
        put(&mut props, "enablePurgeProtection", json!(true));
    }
    put(&mut props, "enabledForDeployment", json!(false));
    put(&mut props, "enabledForTemplateDeployment", json!(false));
    put(&mut props, "enabledForDiskEncryption", json!(false));
    put(
        &mut props,
        "publicNetworkAccess",
        json!(if v.public_network_access {
            "Enabled"
        } else {
            "Disabled"
        }),
    );
    put(
        &mut props,
        "networkAcls",
        json!({ "bypass": "AzureServices", "defaultAction": "Deny", "ipRules": [], "virtualNetworkRules": [] }),
    );
    out.push(json!({
        "type": "Microsoft.KeyVault/vaults",
        "apiVersion": p.api.key_vault,
        "name": "[variables('vaultName')]",
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": props
    }));
    if let Some(pe) = &v.private_endpoint {
        private_endpoint(a, out, pe, "vault", "vault");
    }
    if let Some(cmk) = &p.cmk {
        let mut key = json!({
            "type": "Microsoft.KeyVault/vaults/keys",
            "apiVersion": p.api.key_vault,
            "name": x(format!("format('{{0}}/{{1}}', variables('vaultName'), {})", q(&cmk.key_name))),
            "tags": a.tags(),
            "properties": {
                "kty": cmk.kty,
                "keySize": cmk.key_size,
                "keyOps": [ "wrapKey", "unwrapKey" ],
                "attributes": { "enabled": true },
                "rotationPolicy": {
                    "attributes": { "expiryTime": cmk.expiry },
                    "lifetimeActions": [
                        { "trigger": { "timeAfterCreate": cmk.rotate_after }, "action": { "type": "rotate" } },
                        { "trigger": { "timeBeforeExpiry": cmk.notify_before_expiry }, "action": { "type": "notify" } }
                    ]
                }
            },
            "dependsOn": a.depends(&["vault"])
        });
        if let Some(m) = Arm::meta(&cmk.suppressions) {
            put(&mut key, "metadata", m);
        }
        out.push(key);
        out.push(json!({
            "type": "Microsoft.Compute/diskEncryptionSets",
            "apiVersion": p.api.disk_encryption_sets,
            "name": lit(&cmk.des_name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "identity": { "type": "SystemAssigned" },
            "properties": {
                "encryptionType": cmk.encryption_type,
                "rotationToLatestKeyVersionEnabled": true,
                "activeKey": {
                    "keyUrl": x(format!("reference({}, '{}').keyUriWithVersion", a.id("cmkKey"), p.api.key_vault)),
                    "sourceVault": { "id": x(a.id("vault")) }
                }
            },
            "dependsOn": a.depends(&["cmkKey", "vault"])
        }));
    }
}

/// The `osProfile` a scale set's VM profile and the dev box's VM share; `name` is the one key
/// that differs (`computerNamePrefix` on a scale set, `computerName` on a VM).
fn os_profile(c: &Compute, name: (&str, &str)) -> Map<String, Value> {
    let mut os = Map::new();
    os.insert(name.0.into(), lit(name.1));
    os.insert(
        "adminUsername".into(),
        json!("[parameters('adminUsername')]"),
    );
    if c.linux {
        os.insert(
            "linuxConfiguration".into(),
            json!({
                "disablePasswordAuthentication": true,
                "provisionVMAgent": true,
                "ssh": { "publicKeys": [ {
                    "path": "[format('/home/{0}/.ssh/authorized_keys', parameters('adminUsername'))]",
                    "keyData": "[parameters('sshPublicKey')]"
                } ] }
            }),
        );
    } else {
        os.insert(
            "adminPassword".into(),
            json!("[parameters('adminPassword')]"),
        );
        os.insert(
            "windowsConfiguration".into(),
            json!({ "provisionVMAgent": true, "enableAutomaticUpdates": true, "patchSettings": { "patchMode": "AutomaticByOS" } }),
        );
    }
    if c.custom_data.is_some() {
        os.insert("customData".into(), json!("[variables('customData')]"));
    }
    os.insert("allowExtensionOperations".into(), json!(true));
    os
}

/// `imageReference`: a gallery/managed image id, or a marketplace image.
fn image_reference(c: &Compute) -> Value {
    match &c.image.id {
        Some(id) => json!({ "id": lit(id) }),
        None => json!({
            "publisher": lit(c.image.publisher.as_deref().unwrap_or_default()),
            "offer": lit(c.image.offer.as_deref().unwrap_or_default()),
            "sku": lit(c.image.sku.as_deref().unwrap_or_default()),
            "version": lit(c.image.version.as_deref().unwrap_or_default()),
        }),
    }
}

/// `managedDisk` of an OS or data disk, bound to the disk encryption set when there is one.
fn managed_disk(a: &Arm, disk: &Disk) -> Value {
    let mut m = json!({ "storageAccountType": disk.storage_account_type });
    if a.p.compute.disk_encryption_set {
        put(&mut m, "diskEncryptionSet", json!({ "id": x(a.id("des")) }));
    }
    m
}

fn compute(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let c = &p.compute;
    let mut props = Map::new();
    if c.flexible {
        props.insert("orchestrationMode".into(), json!("Flexible"));
        props.insert("platformFaultDomainCount".into(), json!(1));
        props.insert("singlePlacementGroup".into(), json!(false));
    } else {
        props.insert("orchestrationMode".into(), json!("Uniform"));
        props.insert("singlePlacementGroup".into(), json!(true));
        props.insert("overprovision".into(), json!(false));
        props.insert("upgradePolicy".into(), json!({ "mode": "Manual" }));
    }
    if let Some(mix) = c.spot.as_ref().and_then(|s| s.mix.as_ref()) {
        props.insert(
            "priorityMixPolicy".into(),
            json!({ "baseRegularPriorityCount": mix.base_regular, "regularPriorityPercentageAboveBase": mix.regular_percent_above_base }),
        );
    }
    props.insert(
        "scaleInPolicy".into(),
        json!({ "rules": ["Default"], "forceDeletion": false }),
    );
    if let Some(h) = &c.health {
        props.insert("automaticRepairsPolicy".into(), json!({ "enabled": true, "gracePeriod": lit(&h.grace_period), "repairAction": "Replace" }));
    }

    let mut vm = Map::new();
    if let Some(spot) = &c.spot {
        vm.insert("priority".into(), json!("Spot"));
        vm.insert("evictionPolicy".into(), json!(spot.eviction_policy));
        vm.insert(
            "billingProfile".into(),
            json!({ "maxPrice": n(spot.max_price) }),
        );
    }
    let os = os_profile(c, ("computerNamePrefix", &c.computer_name_prefix));
    vm.insert("osProfile".into(), Value::Object(os));

    let image = image_reference(c);
    let managed = |disk: &Disk| managed_disk(a, disk);
    let mut os_disk = json!({
        "createOption": "FromImage",
        "caching": c.os_disk.caching,
        "diskSizeGB": c.os_disk.size_gib,
        "managedDisk": managed(&c.os_disk),
    });
    if c.flexible {
        put(&mut os_disk, "deleteOption", json!("Delete"));
    }
    let mut storage = json!({ "imageReference": image, "osDisk": os_disk });
    if !c.data_disks.is_empty() {
        let disks: Vec<Value> = c
            .data_disks
            .iter()
            .map(|d| {
                let mut disk = json!({
                    "lun": d.lun,
                    "createOption": "Empty",
                    "diskSizeGB": d.size_gib,
                    "caching": d.caching,
                    "managedDisk": managed(d),
                });
                if c.flexible {
                    put(&mut disk, "deleteOption", json!("Delete"));
                }
                disk
            })
            .collect();
        put(&mut storage, "dataDisks", Value::Array(disks));
    }
    vm.insert("storageProfile".into(), storage);
    {
        let mut sp = Map::new();
        if c.encryption_at_host {
            sp.insert("encryptionAtHost".into(), json!(true));
        }
        sp.insert("securityType".into(), json!(c.security_type));
        if c.trusted_launch {
            sp.insert(
                "uefiSettings".into(),
                json!({ "secureBootEnabled": false, "vTpmEnabled": true }),
            );
        }
        vm.insert("securityProfile".into(), Value::Object(sp));
    }
    let mut nic_props = json!({
        "primary": true,
        "enableAcceleratedNetworking": c.accelerated_networking,
        "enableIPForwarding": false,
    });
    if c.flexible {
        put(&mut nic_props, "deleteOption", json!("Delete"));
    }
    put(
        &mut nic_props,
        "ipConfigurations",
        json!([ { "name": "ipconfig1", "properties": { "primary": true, "subnet": { "id": x(a.id("workloadSubnet")) } } } ]),
    );
    let mut net = Map::new();
    if c.flexible {
        net.insert("networkApiVersion".into(), json!(p.api.vmss_network));
    }
    net.insert(
        "networkInterfaceConfigurations".into(),
        json!([ { "name": lit(&c.nic_name), "properties": nic_props } ]),
    );
    vm.insert("networkProfile".into(), Value::Object(net));
    vm.insert(
        "diagnosticsProfile".into(),
        json!({ "bootDiagnostics": { "enabled": true } }),
    );
    if !c.extensions.is_empty() {
        let exts: Vec<Value> = c
            .extensions
            .iter()
            .map(|e| {
                let mut props = json!({
                    "publisher": e.publisher,
                    "type": e.kind,
                    "typeHandlerVersion": e.type_handler_version,
                    "autoUpgradeMinorVersion": true,
                });
                if e.enable_automatic_upgrade {
                    put(&mut props, "enableAutomaticUpgrade", json!(true));
                }
                let settings = if e.identity_auth {
                    ama_settings(a)
                } else {
                    Value::Object(
                        e.settings
                            .iter()
                            .map(|(k, v)| (lit_text(k), literalize(v)))
                            .collect(),
                    )
                };
                put(&mut props, "settings", settings);
                if !e.provision_after.is_empty() {
                    put(
                        &mut props,
                        "provisionAfterExtensions",
                        Value::Array(e.provision_after.iter().map(|s| lit(s)).collect()),
                    );
                }
                json!({ "name": lit(&e.name), "properties": props })
            })
            .collect();
        vm.insert("extensionProfile".into(), json!({ "extensions": exts }));
    }
    props.insert("virtualMachineProfile".into(), Value::Object(vm));

    let mut res = json!({
        "type": "Microsoft.Compute/virtualMachineScaleSets",
        "apiVersion": p.api.vmss,
        "name": lit(&c.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
    });
    if let Some(m) = Arm::meta(&c.suppressions) {
        put(&mut res, "metadata", m);
    }
    if !c.zones.is_empty() {
        put(
            &mut res,
            "zones",
            Value::Array(c.zones.iter().map(|z| lit(z)).collect()),
        );
    }
    put(
        &mut res,
        "sku",
        json!({ "name": lit(&c.vm_size), "tier": "Standard", "capacity": c.capacity }),
    );
    let mut uai = Map::new();
    uai.insert(format!("[{}]", a.id("identity")), json!({}));
    put(
        &mut res,
        "identity",
        json!({ "type": "UserAssigned", "userAssignedIdentities": uai }),
    );
    put(&mut res, "properties", Value::Object(props));
    let mut deps = vec!["identity", "vnet"];
    if let Some(cmk) = p.cmk.as_ref().filter(|_| c.disk_encryption_set) {
        // the disk encryption set must be able to use the key before disks are created
        deps.extend(["des", cmk.key_role]);
    }
    put(&mut res, "dependsOn", a.depends(&deps));
    out.push(res);
}

/// The dev box (see [`crate::plan::devbox`]): NIC, VM, driver extension, the DevTest Labs
/// shutdown schedule, the start workflow and its role on the VM.
fn devbox(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let c = &p.compute;
    let d = p.devbox.as_ref().expect("dev box");
    out.push(json!({
        "type": "Microsoft.Network/networkInterfaces",
        "apiVersion": p.api.network,
        "name": lit(&d.nic_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "enableAcceleratedNetworking": c.accelerated_networking,
            "enableIPForwarding": false,
            "ipConfigurations": [ { "name": "ipconfig1", "properties": {
                "primary": true,
                "privateIPAllocationMethod": "Dynamic",
                "subnet": { "id": x(a.id("workloadSubnet")) }
            } } ]
        },
        "dependsOn": a.depends(&["vnet"])
    }));

    let mut props = Map::new();
    props.insert(
        "hardwareProfile".into(),
        json!({ "vmSize": lit(&c.vm_size) }),
    );
    if let Some(spot) = &c.spot {
        // an eviction deallocates the dev box (its disks stay), never deletes it
        props.insert("priority".into(), json!("Spot"));
        props.insert("evictionPolicy".into(), json!("Deallocate"));
        props.insert(
            "billingProfile".into(),
            json!({ "maxPrice": n(spot.max_price) }),
        );
    }
    let managed = |disk: &Disk| managed_disk(a, disk);
    // a disk kept by `destroy --keep-data` exists under its fixed name: Azure only attaches it
    // (`ConflictingUserInput` for FromImage/Empty); an attached OS disk brings its OS, so the
    // VM has no image and no OS profile
    let kept_id = |name: &str| json!({ "id": x(format!("resourceId('Microsoft.Compute/disks', {})", q(name))) });
    let mut storage = if d.is_kept(&d.os_disk_name) {
        json!({
            "osDisk": {
                "name": lit(&d.os_disk_name),
                "createOption": "Attach",
                "osType": if c.linux { "Linux" } else { "Windows" },
                "caching": c.os_disk.caching,
                "managedDisk": kept_id(&d.os_disk_name),
                "deleteOption": "Detach",
            },
        })
    } else {
        let os = os_profile(c, ("computerName", &d.computer_name));
        props.insert("osProfile".into(), Value::Object(os));
        json!({
            "imageReference": image_reference(c),
            "osDisk": {
                "name": lit(&d.os_disk_name),
                "createOption": "FromImage",
                "caching": c.os_disk.caching,
                "diskSizeGB": c.os_disk.size_gib,
                "managedDisk": managed(&c.os_disk),
                "deleteOption": "Detach",
            },
        })
    };
    if !c.data_disks.is_empty() {
        let disks: Vec<Value> = c
            .data_disks
            .iter()
            .zip(&d.data_disk_names)
            .map(|(disk, name)| {
                if d.is_kept(name) {
                    return json!({
                        "lun": disk.lun,
                        "name": lit(name),
                        "createOption": "Attach",
                        "caching": disk.caching,
                        "managedDisk": kept_id(name),
                        "deleteOption": "Detach",
                    });
                }
                json!({
                    "lun": disk.lun,
                    "name": lit(name),
                    "createOption": "Empty",
                    "diskSizeGB": disk.size_gib,
                    "caching": disk.caching,
                    "managedDisk": managed(disk),
                    "deleteOption": "Detach",
                })
            })
            .collect();
        put(&mut storage, "dataDisks", Value::Array(disks));
    }
    props.insert("storageProfile".into(), storage);
    {
        // explicit security type, as for the scale set (Trusted Launch by default would turn
        // Secure Boot on under the GPU driver)
        let mut sp = Map::new();
        if c.encryption_at_host {
            sp.insert("encryptionAtHost".into(), json!(true));
        }
        sp.insert("securityType".into(), json!(c.security_type));
        if c.trusted_launch {
            sp.insert(
                "uefiSettings".into(),
                json!({ "secureBootEnabled": false, "vTpmEnabled": true }),
            );
        }
        props.insert("securityProfile".into(), Value::Object(sp));
    }
    props.insert(
        "networkProfile".into(),
        json!({ "networkInterfaces": [ { "id": x(a.id("vmNic")), "properties": { "primary": true, "deleteOption": "Detach" } } ] }),
    );
    props.insert(
        "diagnosticsProfile".into(),
        json!({ "bootDiagnostics": { "enabled": true } }),
    );
    let mut vm = json!({
        "type": "Microsoft.Compute/virtualMachines",
        "apiVersion": p.api.vmss,
        "name": lit(&d.vm_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
    });
    if let Some(m) = Arm::meta(&d.suppressions) {
        put(&mut vm, "metadata", m);
    }
    if let Some(z) = &d.zone {
        put(&mut vm, "zones", json!([lit(z)]));
    }
    let mut uai = Map::new();
    uai.insert(format!("[{}]", a.id("identity")), json!({}));
    put(
        &mut vm,
        "identity",
        json!({ "type": "UserAssigned", "userAssignedIdentities": uai }),
    );
    put(&mut vm, "properties", Value::Object(props));
    let mut deps = vec!["identity", "vmNic"];
    if let Some(cmk) = p.cmk.as_ref().filter(|_| c.disk_encryption_set) {
        deps.extend(["des", cmk.key_role]);
    }
    put(&mut vm, "dependsOn", a.depends(&deps));
    out.push(vm);

    for ve in &d.extensions {
        let e = &ve.ext;
        let mut props = json!({
            "publisher": e.publisher,
            "type": e.kind,
            "typeHandlerVersion": e.type_handler_version,
            "autoUpgradeMinorVersion": true,
        });
        if e.enable_automatic_upgrade {
            put(&mut props, "enableAutomaticUpgrade", json!(true));
        }
        let settings = if e.identity_auth {
            ama_settings(a)
        } else {
            Value::Object(
                e.settings
                    .iter()
                    .map(|(k, v)| (lit_text(k), literalize(v)))
                    .collect(),
            )
        };
        put(&mut props, "settings", settings);
        // a VM has no provisionAfterExtensions: the order is dependsOn
        // the agent's settings name the identity (as Bicep's identity.id does)
        let mut deps = a.depends(if e.identity_auth {
            &["vm", "identity"]
        } else {
            &["vm"]
        });
        if let Value::Array(list) = &mut deps {
            for i in &ve.after {
                list.push(x(format!(
                    "resourceId('Microsoft.Compute/virtualMachines/extensions', {}, {})",
                    q(&d.vm_name),
                    q(&d.extensions[*i].ext.name)
                )));
            }
        }
        out.push(json!({
            "type": "Microsoft.Compute/virtualMachines/extensions",
            "apiVersion": p.api.vmss,
            "name": lit(&format!("{}/{}", d.vm_name, e.name)),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": props,
            "dependsOn": deps
        }));
    }

    let sd = &d.shutdown;
    let notes = if sd.notify {
        json!({ "status": "Enabled", "timeInMinutes": 30, "emailRecipient": lit(&sd.email_recipient), "notificationLocale": "en" })
    } else {
        json!({ "status": "Disabled" })
    };
    out.push(json!({
        "type": "Microsoft.DevTestLab/schedules",
        "apiVersion": p.api.dev_test_lab,
        "name": lit(&sd.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "status": "Enabled",
            "taskType": "ComputeVmShutdownTask",
            "dailyRecurrence": { "time": lit(&sd.time) },
            "timeZoneId": lit(&sd.time_zone),
            "notificationSettings": notes,
            "targetResourceId": x(a.id("vm"))
        },
        "dependsOn": a.depends(&["vm"])
    }));

    let st = &d.start;
    out.push(json!({
        "type": "Microsoft.Logic/workflows",
        "apiVersion": p.api.logic,
        "name": lit(&st.workflow_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "identity": { "type": "SystemAssigned" },
        "properties": {
            "state": "Enabled",
            "definition": {
                "contentVersion": "1.0.0.0",
                "triggers": {
                    "Start_on_schedule": {
                        "type": "Recurrence",
                        "recurrence": {
                            "frequency": "Week",
                            "interval": 1,
                            "startTime": "2025-01-01T00:00:00",
                            "timeZone": lit(&st.time_zone),
                            "schedule": {
                                "weekDays": st.week_days,
                                "hours": [st.hour],
                                "minutes": [st.minute]
                            }
                        }
                    }
                },
                "actions": {
                    "Start_VM": {
                        "type": "Http",
                        "runAfter": {},
                        "inputs": {
                            "method": "POST",
                            "uri": x(format!(
                                "uri(environment().resourceManager, format('{{0}}/start?api-version={}', {}))",
                                st.api_version,
                                a.id("vm")
                            )),
                            "authentication": {
                                "type": "ManagedServiceIdentity",
                                "audience": "[environment().resourceManager]"
                            }
                        }
                    }
                },
                "outputs": {}
            }
        },
        "dependsOn": a.depends(&["vm"])
    }));
    out.push(json!({
        "type": "Microsoft.Authorization/roleAssignments",
        "apiVersion": p.api.role_assignments,
        "scope": a.scope("vm"),
        "name": x(format!("guid({}, {}, '{}')", a.id("vm"), a.id("vmStart"), st.role_id)),
        "properties": {
            "roleDefinitionId": x(format!("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '{}')", st.role_id)),
            "principalId": x(format!("reference({}, '{}', 'full').identity.principalId", a.id("vmStart"), p.api.logic)),
            "principalType": "ServicePrincipal",
            "description": "The start workflow of the dev box starts it on working days."
        },
        "dependsOn": a.depends(&["vm", "vmStart"])
    }));
}

/// Plan values (extension settings) as ARM literals.
fn literalize(v: &Value) -> Value {
    match v {
        Value::String(s) => lit(s),
        Value::Array(a) => Value::Array(a.iter().map(literalize).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (lit_text(k), literalize(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn autoscale(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let asp = p.autoscale.as_ref().expect("autoscale");
    let mut deps: Vec<&str> = vec!["vmss"];
    if let Some(qu) = &p.queue
        && qu.create
    {
        match qu.kind {
            QueueKind::ServiceBus => {
                out.push(json!({
                    "type": "Microsoft.ServiceBus/namespaces",
                    "apiVersion": p.api.service_bus,
                    "name": lit(&qu.parent),
                    "location": "[parameters('location')]",
                    "tags": a.tags(),
                    "sku": { "name": qu.sku, "tier": qu.sku },
                    "properties": { "disableLocalAuth": true, "minimumTlsVersion": "1.2", "publicNetworkAccess": "Enabled" }
                }));
                out.push(json!({
                    "type": "Microsoft.ServiceBus/namespaces/queues",
                    "apiVersion": p.api.service_bus,
                    "name": x(format!("format('{{0}}/{{1}}', {}, {})", q(&qu.parent), q(&qu.queue))),
                    "properties": { "lockDuration": "PT5M", "maxDeliveryCount": 10, "deadLetteringOnMessageExpiration": true },
                    "dependsOn": a.depends(&["sbNamespace"])
                }));
            }
            QueueKind::Storage => {
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts",
                    "apiVersion": p.api.storage,
                    "name": lit(&qu.parent),
                    "location": "[parameters('location')]",
                    "tags": a.tags(),
                    "kind": "StorageV2",
                    "sku": { "name": qu.sku },
                    "properties": {
                        "accessTier": "Hot",
                        "allowBlobPublicAccess": false,
                        "allowSharedKeyAccess": false,
                        "defaultToOAuthAuthentication": true,
                        "minimumTlsVersion": "TLS1_2",
                        "supportsHttpsTrafficOnly": true,
                        "publicNetworkAccess": "Disabled",
                        "networkAcls": { "bypass": "AzureServices", "defaultAction": "Deny", "ipRules": [], "virtualNetworkRules": [] }
                    }
                }));
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts/queueServices",
                    "apiVersion": p.api.storage,
                    "name": x(format!("format('{{0}}/{{1}}', {}, 'default')", q(&qu.parent))),
                    "dependsOn": a.depends(&["storage"])
                }));
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts/queueServices/queues",
                    "apiVersion": p.api.storage,
                    "name": x(format!("format('{{0}}/{{1}}/{{2}}', {}, 'default', {})", q(&qu.parent), q(&qu.queue))),
                    "dependsOn": a.depends(&["storageQueueService"])
                }));
                if let Some(pe) = &qu.private_endpoint {
                    private_endpoint(a, out, pe, "queue", "storage");
                }
            }
        }
    }
    if let Some(qu) = &p.queue {
        // what the rules' metricResourceUri names (depends() leaves out existing resources)
        match qu.kind {
            QueueKind::ServiceBus => deps.push("sbNamespace"),
            QueueKind::Storage => deps.extend(["storage", "storageQueue"]),
        }
    }
    let rules: Vec<Value> = asp
        .rules
        .iter()
        .map(|r| {
            let uri = if r.metric_on_namespace {
                x(a.id("sbNamespace"))
            } else {
                x(format!("format('{{0}}/services/queue/queues/{{1}}', {}, {})", a.id("storage"), q(&p.queue.as_ref().expect("queue").queue)))
            };
            let mut trigger = json!({
                "metricName": r.metric_name,
                "metricNamespace": r.metric_namespace,
                "metricResourceUri": uri,
                "timeGrain": r.time_grain,
                "statistic": r.statistic,
                "timeWindow": lit(&r.time_window),
                "timeAggregation": r.time_aggregation,
                "operator": r.operator,
                "threshold": r.threshold,
                "dividePerInstance": r.divide_per_instance,
            });
            if let Some(entity) = &r.entity_dimension {
                put(&mut trigger, "dimensions", json!([ { "DimensionName": "EntityName", "Operator": "Equals", "Values": [ lit(entity) ] } ]));
            }
            json!({
                "metricTrigger": trigger,
                "scaleAction": { "direction": r.direction, "type": "ChangeCount", "value": r.change, "cooldown": lit(&r.cooldown) }
            })
        })
        .collect();
    let profiles: Vec<Value> = asp
        .profiles
        .iter()
        .map(|pr| {
            let mut o = json!({
                "name": lit(&pr.name),
                "capacity": { "minimum": pr.min.to_string(), "maximum": pr.max.to_string(), "default": pr.default.to_string() },
            });
            if let Some(rec) = &pr.recurrence {
                put(
                    &mut o,
                    "recurrence",
                    json!({
                        "frequency": "Week",
                        "schedule": { "timeZone": lit(&rec.time_zone), "days": rec.days, "hours": [rec.hour], "minutes": [rec.minute] }
                    }),
                );
            }
            put(&mut o, "rules", if pr.has_rules { Value::Array(rules.clone()) } else { json!([]) });
            o
        })
        .collect();
    out.push(json!({
        "type": "Microsoft.Insights/autoscaleSettings",
        "apiVersion": p.api.autoscale,
        "name": lit(&asp.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "name": lit(&asp.name),
            "enabled": true,
            "targetResourceUri": x(a.id("vmss")),
            "profiles": profiles,
            "notifications": [ {
                "operation": "Scale",
                "email": {
                    "sendToSubscriptionAdministrator": false,
                    "sendToSubscriptionCoAdministrators": false,
                    "customEmails": asp.emails.iter().map(|e| lit(e)).collect::<Vec<_>>()
                },
                "webhooks": []
            } ],
            "predictiveAutoscalePolicy": { "scaleMode": "Disabled" }
        },
        "dependsOn": a.depends(&deps)
    }));
}

fn monitoring(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let m = &p.monitoring;
    if m.workspace.existing.is_none() {
        out.push(json!({
            "type": "Microsoft.OperationalInsights/workspaces",
            "apiVersion": p.api.log_analytics,
            "name": lit(&m.workspace.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": {
                "sku": { "name": "PerGB2018" },
                "retentionInDays": m.workspace.retention_days,
                "features": { "enableLogAccessUsingOnlyResourcePermissions": true }
            }
        }));
    }
    for d in &m.diagnostics {
        out.push(json!({
            "type": "Microsoft.Insights/diagnosticSettings",
            "apiVersion": p.api.diagnostic_settings,
            "scope": a.scope(d.target),
            "name": d.name,
            "properties": {
                "workspaceId": x(a.id("workspace")),
                "logs": d.log_categories.iter().map(|c| json!({ "category": c, "enabled": true })).collect::<Vec<_>>(),
                "metrics": d.metrics_categories.iter().map(|c| json!({ "category": c, "enabled": true })).collect::<Vec<_>>()
            },
            "dependsOn": a.depends(&[d.target, "workspace"])
        }));
    }
    if let Some(ag) = &m.action_group {
        out.push(json!({
            "type": "Microsoft.Insights/actionGroups",
            "apiVersion": p.api.action_groups,
            "name": lit(&ag.name),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "groupShortName": lit(&ag.short_name),
                "enabled": true,
                "emailReceivers": ag.receivers.iter().map(|r| json!({ "name": lit(&r.name), "emailAddress": lit(&r.email), "useCommonAlertSchema": true })).collect::<Vec<_>>()
            }
        }));
    }
    for al in &m.alerts {
        let mut criterion = json!({
            "criterionType": "StaticThresholdCriterion",
            "name": al.metric_name,
            "metricNamespace": al.metric_namespace,
            "metricName": al.metric_name,
            "operator": al.operator,
            "threshold": n(al.threshold),
            "timeAggregation": al.time_aggregation,
        });
        if let Some(dim) = &al.dimension {
            put(
                &mut criterion,
                "dimensions",
                json!([ { "name": dim.name, "operator": "Include", "values": [ lit(&dim.value) ] } ]),
            );
        }
        // metricAlerts `actions[].actionGroupId`
        // (https://learn.microsoft.com/azure/templates/microsoft.insights/metricalerts)
        let actions = Value::Array(
            action_group_ids(a)
                .into_iter()
                .map(|id| json!({ "actionGroupId": id }))
                .collect(),
        );
        let mut deps = vec![al.scope];
        if m.action_group.is_some() {
            deps.push("actionGroup");
        }
        out.push(json!({
            "type": "Microsoft.Insights/metricAlerts",
            "apiVersion": p.api.metric_alerts,
            "name": lit(&al.name),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "description": lit(&al.description),
                "severity": al.severity,
                "enabled": true,
                "autoMitigate": true,
                "scopes": [ x(a.id(al.scope)) ],
                "evaluationFrequency": al.evaluation_frequency,
                "windowSize": al.window_size,
                "criteria": {
                    "odata.type": "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
                    "allOf": [ criterion ]
                },
                "actions": actions
            },
            "dependsOn": a.depends(&deps)
        }));
    }
    if let Some(b) = &m.budget {
        let mut notes = Map::new();
        for nt in &b.notifications {
            let mut o = json!({ "enabled": true, "operator": "GreaterThanOrEqualTo", "threshold": n(nt.threshold), "thresholdType": "Actual" });
            // (the plan has notifications only when there are emails to send them to)
            put(
                &mut o,
                "contactEmails",
                Value::Array(b.emails.iter().map(|e| lit(e)).collect()),
            );
            if m.notifies {
                put(&mut o, "contactGroups", Value::Array(action_group_ids(a)));
            }
            notes.insert(nt.key.clone(), o);
        }
        let mut res = json!({
            "type": "Microsoft.Consumption/budgets",
            "apiVersion": p.api.budgets,
            "name": lit(&b.name),
            "properties": {
                "category": "Cost",
                "amount": n(b.amount),
                "timeGrain": "Monthly",
                "timePeriod": { "startDate": "[parameters('budgetStartDate')]" }
            }
        });
        if !notes.is_empty() {
            put(
                &mut res["properties"],
                "notifications",
                Value::Object(notes),
            );
        }
        if m.action_group.is_some() {
            put(&mut res, "dependsOn", a.depends(&["actionGroup"]));
        }
        out.push(res);
    }
}

/// The action groups every alert and budget notification names: the created one, then the
/// landing zone's existing ones (`monitoring.existingActionGroups`), as literal ids.
fn action_group_ids(a: &Arm) -> Vec<Value> {
    let m = &a.p.monitoring;
    let mut ids = Vec::new();
    if m.action_group.is_some() {
        ids.push(x(a.id("actionGroup")));
    }
    ids.extend(m.existing_action_groups.iter().map(|id| lit(id)));
    ids
}

/// Azure Monitor Agent settings: sign in with the pool's user-assigned identity.
fn ama_settings(a: &Arm) -> Value {
    json!({ "authentication": { "managedIdentity": {
        "identifier-name": "mi_res_id",
        "identifier-value": x(a.id("identity"))
    } } })
}

fn dcr_policy(g: &GpuMonitoring) -> &DcrPolicy {
    g.dcr_policy
        .as_ref()
        .expect("a DCR policy symbol without the policy")
}

/// `guid(resourceGroup().id, <assignment id>, role)`, as the Bicep template names it.
fn dcr_policy_role_name(pol: &DcrPolicy, role_id: &str) -> String {
    format!(
        "guid(resourceGroup().id, resourceId('Microsoft.Authorization/policyAssignments', {}), '{role_id}')",
        q(&pol.assignment_name)
    )
}

fn gpu_workbook_name(g: &GpuMonitoring) -> String {
    format!("guid(resourceGroup().id, {})", q(&g.workbook.name_seed))
}

/// GPU monitoring (templates/gpu_monitoring.bicep.hbs): table, DCE, DCR, association, log
/// alerts, workbook.
fn gpu_monitoring(a: &Arm, g: &GpuMonitoring, out: &mut Vec<Value>) {
    let p = a.p;
    // in a landing zone's central workspace the table is a prerequisite (`plan::shared`)
    if p.monitoring.workspace.existing.is_none() {
        out.push(json!({
        "type": "Microsoft.OperationalInsights/workspaces/tables",
        "apiVersion": p.api.log_analytics_tables,
        "name": lit(&format!("{}/{}", p.monitoring.workspace.name, g.table)),
        "properties": {
            "plan": "Analytics",
            "retentionInDays": g.retention_days,
            "schema": {
                "name": g.table,
                "description": "GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.",
                "columns": g.columns.iter().map(|c| json!({ "name": c.name, "type": c.table_type, "description": lit(c.description) })).collect::<Vec<_>>()
            }
        },
        "dependsOn": a.depends(&["workspace"])
    }));
    }
    // an existing workspace may be in another region, and a DCE's logs ingestion must be in the
    // workspace's; without Private Link the agent needs no DCE (facts::monitor::DCE)
    let dce = p.monitoring.workspace.existing.is_none();
    if dce {
        out.push(json!({
        "type": "Microsoft.Insights/dataCollectionEndpoints",
        "apiVersion": p.api.data_collection,
        "name": lit(&g.dce_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": g.kind,
        "properties": {
            "description": lit(&format!("Data collection endpoint of the GPU telemetry of {}.", p.name)),
            "networkAcls": { "publicNetworkAccess": "Enabled" }
        }
    }));
    }
    let mut streams = Map::new();
    streams.insert(
        g.stream.to_string(),
        json!({ "columns": g.columns.iter().map(|c| json!({ "name": c.name, "type": c.stream_type })).collect::<Vec<_>>() }),
    );
    let mut dcr = json!({
        "type": "Microsoft.Insights/dataCollectionRules",
        "apiVersion": p.api.data_collection,
        "name": lit(&g.dcr_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": g.kind,
        "properties": {
            "description": lit(&format!("GPU telemetry (JSON lines of the gpuform collector) into {}.", g.table)),
            "dataCollectionEndpointId": x(a.id("gpuDce")),
            "streamDeclarations": streams,
            "dataSources": { "logFiles": [ {
                "name": "gpuTelemetry",
                "streams": [ g.stream ],
                "filePatterns": [ lit(g.file_pattern) ],
                "format": "json"
            } ] },
            "destinations": { "logAnalytics": [ { "name": "workspace", "workspaceResourceId": x(a.id("workspace")) } ] },
            "dataFlows": [ {
                "streams": [ "[variables('gpuStream')]" ],
                "destinations": [ "workspace" ],
                "transformKql": lit(&g.transform_kql),
                "outputStream": format!("Custom-{}", g.table)
            } ]
        },
        "dependsOn": a.depends(if dce { &["gpuDce", "workspace", "gpuTable"] } else { &["workspace", "gpuTable"] })
    });
    if !dce {
        dcr["properties"]
            .as_object_mut()
            .expect("DCR properties")
            .remove("dataCollectionEndpointId");
    }
    out.push(dcr);
    if let Some(pol) = &g.dcr_policy {
        // a Flexible scale set: the built-in policy associates each VM (templates/gpu_monitoring.bicep.hbs)
        out.push(json!({
            "type": "Microsoft.Authorization/policyAssignments",
            "apiVersion": p.api.policy_assignments,
            "name": lit(&pol.assignment_name),
            "location": "[parameters('location')]",
            "identity": { "type": "SystemAssigned" },
            "properties": {
                "displayName": lit(&pol.display_name),
                "description": lit(&format!("Associates each VM of the pool with {}, including the VMs scale-outs add.", g.dcr_name)),
                "policyDefinitionId": x(format!("tenantResourceId('Microsoft.Authorization/policyDefinitions', '{}')", pol.definition_id)),
                "parameters": {
                    "dcrResourceId": { "value": x(a.id("gpuDcr")) },
                    "resourceType": { "value": "Microsoft.Insights/dataCollectionRules" },
                    "scopeToSupportedImages": { "value": false }
                }
            },
            "dependsOn": a.depends(&["gpuDcr"])
        }));
        let mut remediation_deps = vec!["gpuDcrPolicy", "vmss"];
        for r in &pol.roles {
            out.push(json!({
                "type": "Microsoft.Authorization/roleAssignments",
                "apiVersion": p.api.role_assignments,
                "name": x(dcr_policy_role_name(pol, r.id)),
                "properties": {
                    "roleDefinitionId": x(format!("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '{}')", r.id)),
                    "principalId": x(format!("reference({}, '{}', 'full').identity.principalId", a.id("gpuDcrPolicy"), p.api.policy_assignments)),
                    "principalType": "ServicePrincipal",
                    "description": "The GPU telemetry policy associates each VM with the data collection rule."
                },
                "dependsOn": a.depends(&["gpuDcrPolicy"])
            }));
            remediation_deps.push(r.sym.as_str());
        }
        out.push(json!({
            "type": "Microsoft.PolicyInsights/remediations",
            "apiVersion": p.api.policy_remediations,
            "name": lit(&pol.remediation_name),
            "properties": {
                "policyAssignmentId": x(a.id("gpuDcrPolicy")),
                "resourceDiscoveryMode": "ReEvaluateCompliance"
            },
            "dependsOn": a.depends(&remediation_deps)
        }));
    } else {
        // a Uniform scale set's VMs, or the dev box VM (an extension resource on it either way)
        let (target, what) = if p.devbox.is_some() {
            ("vm", "The dev box sends")
        } else {
            ("vmss", "Every VM of the scale set sends")
        };
        out.push(json!({
            "type": "Microsoft.Insights/dataCollectionRuleAssociations",
            "apiVersion": p.api.data_collection,
            "scope": a.scope(target),
            "name": lit(g.association_name),
            "properties": {
                "description": lit(&format!("{what} GPU telemetry through {}.", g.dcr_name)),
                "dataCollectionRuleId": x(a.id("gpuDcr"))
            },
            "dependsOn": a.depends(&[target, "gpuDcr"])
        }));
    }
    let ag = p.monitoring.action_group.is_some();
    for al in &g.alerts {
        // scheduledQueryRules `actions.actionGroups`: action group resource ids
        // (https://learn.microsoft.com/azure/templates/microsoft.insights/scheduledqueryrules)
        let groups = Value::Array(action_group_ids(a));
        let actions = if p.monitoring.notifies {
            json!({ "actionGroups": groups, "actionProperties": { "Email.Subject": lit(&al.email_subject) } })
        } else {
            json!({ "actionGroups": groups })
        };
        let mut condition = json!({
            "query": lit(&al.query),
            "timeAggregation": al.time_aggregation,
            "metricMeasureColumn": al.measure,
            "operator": al.operator,
            "threshold": al.threshold,
            "failingPeriods": { "numberOfEvaluationPeriods": 1, "minFailingPeriodsToAlert": 1 }
        });
        if !al.dimensions.is_empty() {
            // one alert per combination of these values
            condition["dimensions"] = al
                .dimensions
                .iter()
                .map(|d| json!({ "name": d, "operator": "Include", "values": ["*"] }))
                .collect();
        }
        let mut deps = vec!["workspace", "gpuTable"];
        if ag {
            deps.push("actionGroup");
        }
        out.push(json!({
            "type": "Microsoft.Insights/scheduledQueryRules",
            "apiVersion": p.api.scheduled_query_rules,
            "name": lit(&al.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "kind": "LogAlert",
            "properties": {
                "displayName": lit(&al.display_name),
                "description": lit(&al.description),
                "severity": al.severity,
                "enabled": true,
                "scopes": [ x(a.id("workspace")) ],
                "evaluationFrequency": al.evaluation_frequency,
                "windowSize": lit(&al.window_size),
                "criteria": { "allOf": [ condition ] },
                "autoMitigate": true,
                "actions": actions
            },
            "dependsOn": a.depends(&deps)
        }));
    }
    out.push(json!({
        "type": "Microsoft.Insights/workbooks",
        "apiVersion": p.api.workbooks,
        "name": x(gpu_workbook_name(g)),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": "shared",
        "properties": {
            "displayName": lit(&g.workbook.display_name),
            "category": "workbook",
            "sourceId": x(a.id("workspace")),
            "serializedData": lit(&g.workbook.serialized_data)
        },
        "dependsOn": a.depends(&["workspace", "gpuTable"])
    }));
}

/// `azuredeploy.parameters.json`: the values `main.bicepparam` sets (never a secret).
pub fn parameters_file(p: &Plan) -> Value {
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
    json!({
        "$schema": PARAMETERS_SCHEMA,
        "contentVersion": "1.0.0.0",
        "parameters": m,
    })
}
