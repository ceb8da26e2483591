//! The symbols of main.bicep as ARM sees them: each symbol's type and name (`resourceId()`,
//! `scope`, `dependsOn`), found in the plan.

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::gpu_monitoring::{DcrPolicy, GpuMonitoring};
use crate::plan::*;

use super::expr::{lit, push_q, q, x};

pub(super) struct Arm<'a> {
    pub(super) p: &'a Plan,
}

/// One segment of a resource name: literal text, or an ARM expression.
/// Literal text is borrowed from the plan (symbols are looked up for every reference and
/// `dependsOn` of every resource: no copy of each name each time).
pub(super) enum Name<'a> {
    Lit(&'a str),
    Expr(String),
}

impl<'a> Name<'a> {
    pub(super) fn lit(s: &'a str) -> Name<'a> {
        Name::Lit(s)
    }

    /// The segment as an argument of an ARM function.
    pub(super) fn arg(&self) -> String {
        match self {
            Name::Lit(s) => q(s),
            Name::Expr(e) => e.clone(),
        }
    }

    /// The segment as a `name` value.
    pub(super) fn value(&self) -> Value {
        match self {
            Name::Lit(s) => lit(s),
            Name::Expr(e) => x(e),
        }
    }
}

/// Where the resource of a Bicep symbol is: what `resourceId()` and `scope` paths need.
pub(super) struct Target<'a> {
    pub(super) ty: &'static str,
    /// One segment per level of the type.
    pub(super) names: Vec<Name<'a>>,
    /// Resource group of an existing resource outside the deployment's group.
    pub(super) rg: Option<&'a str>,
    /// Subscription of an existing resource in another subscription (with `rg`): the shared
    /// services of a landing zone (`plan::shared`).
    pub(super) sub: Option<&'a str>,
    /// Extension resources (role assignments): the symbol of the resource they are scoped to.
    pub(super) scope: Option<&'static str>,
    /// The template deploys it (otherwise main.bicep declares it `existing`).
    pub(super) deployed: bool,
}

impl<'a> Arm<'a> {
    /// The one table of symbols: each symbol's type and name, found in the plan.
    pub(super) fn target(&self, sym: &str) -> Target<'a> {
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
        let shared = |ty, e: &'a shared::ExistingRef| Target {
            ty,
            names: vec![Name::lit(&e.name)],
            rg: Some(e.resource_group.as_str()),
            sub: Some(e.subscription.as_str()),
            scope: None,
            deployed: false,
        };
        // landing zones: a subnet (or its VNet) of the platform team's, `existing` in main.bicep
        let elsewhere = |ty, r: &'a landing_zone::SubnetRef, subnet: bool| Target {
            ty,
            names: if subnet {
                vec![Name::lit(&r.vnet), Name::lit(&r.subnet)]
            } else {
                vec![Name::lit(&r.vnet)]
            },
            rg: Some(r.resource_group.as_str()),
            sub: Some(r.subscription.as_str()),
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
            rg: queue().resource_group.as_deref(),
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
        let serving = || p.serving.as_ref().expect("serving symbol without serving");
        match sym {
            "nsgWorkload" => here(
                "Microsoft.Network/networkSecurityGroups",
                vec![Name::lit(
                    &net.nsg_workload.as_ref().expect("workload nsg").name,
                )],
            ),
            "nsgGateway" => here(
                "Microsoft.Network/networkSecurityGroups",
                vec![Name::lit(
                    &net.nsg_gateway.as_ref().expect("gateway nsg").name,
                )],
            ),
            "gatewaySubnet" => here(
                landing_zone::SUBNET_TYPE,
                vec![
                    Name::lit(&net.vnet_name),
                    Name::lit(&net.gateway_subnet.as_ref().expect("gateway subnet").name),
                ],
            ),
            "privateLinkSubnet" => here(
                landing_zone::SUBNET_TYPE,
                vec![
                    Name::lit(&net.vnet_name),
                    Name::lit(
                        &net.private_link_subnet
                            .as_ref()
                            .expect("private link subnet")
                            .name,
                    ),
                ],
            ),
            "lb" => here(
                crate::facts::serving::LOAD_BALANCER_TYPE,
                vec![Name::lit(
                    &serving().load_balancer.as_ref().expect("lb").name,
                )],
            ),
            "agw" => here(
                crate::facts::serving::GATEWAY_TYPE,
                vec![Name::lit(
                    &serving().gateway.as_ref().expect("gateway").name,
                )],
            ),
            "appi" => here(
                crate::facts::app_insights::COMPONENT_TYPE,
                vec![Name::lit(
                    &serving()
                        .gpu_scaling
                        .as_ref()
                        .expect("gpu scaling")
                        .component_name,
                )],
            ),
            "pls" => here(
                crate::facts::serving::PRIVATE_LINK_SERVICE_TYPE,
                vec![Name::lit(
                    &serving().private_link.as_ref().expect("private link").name,
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
            "gpuDce" => Target {
                deployed: gpu().dce,
                ..here(
                    "Microsoft.Insights/dataCollectionEndpoints",
                    vec![Name::lit(&gpu().dce_name)],
                )
            },
            "gpuDcr" => here(
                "Microsoft.Insights/dataCollectionRules",
                vec![Name::lit(&gpu().dcr_name)],
            ),
            "gpuWorkbook" => here(
                "Microsoft.Insights/workbooks",
                vec![Name::Expr(gpu_workbook_name(gpu()))],
            ),
            "standbyPool" => here(
                "Microsoft.StandbyPool/standbyVirtualMachinePools",
                vec![Name::lit(
                    &p.standby
                        .as_ref()
                        .expect("a standby pool symbol without the pool")
                        .name,
                )],
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
    pub(super) fn id(&self, sym: &str) -> String {
        let mut out = String::with_capacity(96);
        self.push_id(&mut out, sym);
        out
    }

    /// [`Arm::id`], appended to `out`: one string per id, not one per part of it (ids are
    /// written for every reference and `dependsOn` of every resource).
    fn push_id(&self, out: &mut String, sym: &str) {
        self.push_target_id(out, &self.target(sym));
    }

    /// The id of target `t`, appended to `out`.
    fn push_target_id(&self, out: &mut String, t: &Target) {
        match (t.scope, &t.sub, &t.rg) {
            (Some(scope), _, _) => {
                out.push_str("extensionResourceId(");
                self.push_id(out, scope);
                out.push_str(", ");
            }
            (None, Some(sub), Some(rg)) => {
                out.push_str("resourceId(");
                push_q(out, sub);
                out.push_str(", ");
                push_q(out, rg);
                out.push_str(", ");
            }
            (None, _, Some(rg)) => {
                out.push_str("resourceId(");
                push_q(out, rg);
                out.push_str(", ");
            }
            (None, _, None) => out.push_str("resourceId("),
        }
        push_q(out, t.ty);
        out.push_str(", ");
        for (i, name) in t.names.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match name {
                Name::Lit(s) => push_q(out, s),
                Name::Expr(e) => out.push_str(e),
            }
        }
        out.push(')');
    }

    /// The `scope` value of an extension resource (role assignment, diagnostic setting) on
    /// `sym`: the path `Namespace/type/name[/type/name]`, a literal when every name is one.
    pub(super) fn scope(&self, sym: &str) -> Value {
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
    pub(super) fn role_name(&self, r: &RoleAssignment) -> String {
        format!(
            "guid({}, {}, '{}')",
            self.id(r.scope),
            self.id(r.principal),
            r.role_id
        )
    }

    pub(super) fn zone_name(&self, pe: &PrivateEndpoint) -> Name<'a> {
        Name::Expr(pe.zone.arm_expr(pe.storage_service))
    }

    /// `dependsOn` the resources of `syms` that the template deploys: an `existing` resource
    /// (a queue the spec does not create) is not part of the deployment.
    pub(super) fn depends(&self, syms: &[&str]) -> Value {
        // each symbol looked up once (a role assignment's name is itself built of two ids)
        Value::Array(
            syms.iter()
                .map(|s| self.target(s))
                .filter(|t| t.deployed)
                .map(|t| {
                    let mut id = String::with_capacity(96);
                    id.push('[');
                    self.push_target_id(&mut id, &t);
                    id.push(']');
                    Value::String(id.into())
                })
                .collect(),
        )
    }

    pub(super) fn tags(&self) -> Value {
        Value::from("[variables('tags')]")
    }

    pub(super) fn meta(suppressions: &[Suppression]) -> Option<Value> {
        (!suppressions.is_empty()).then(|| {
            json!({ "checkov": suppressions.iter().map(|s| Value::from(format!("{}: {}", s.check, s.reason))).collect::<Vec<_>>() })
        })
    }
}

pub(super) fn dcr_policy(g: &GpuMonitoring) -> &DcrPolicy {
    g.dcr_policy
        .as_ref()
        .expect("a DCR policy symbol without the policy")
}

/// `guid(resourceGroup().id, <assignment id>, role)`, as the Bicep template names it.
pub(super) fn dcr_policy_role_name(pol: &DcrPolicy, role_id: &str) -> String {
    format!(
        "guid(resourceGroup().id, resourceId('Microsoft.Authorization/policyAssignments', {}), '{role_id}')",
        q(&pol.assignment_name)
    )
}

pub(super) fn gpu_workbook_name(g: &GpuMonitoring) -> String {
    format!("guid(resourceGroup().id, {})", q(&g.workbook.name_seed))
}
