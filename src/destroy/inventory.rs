//! What a destroy deletes, and in which order: the resources of the spec's deployments (resource
//! ids taken apart, their stage, a dev box's disks), and what stays.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::azure::operate::DeploymentRecord;

/// A resource id taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub id: String,
    /// `Microsoft.Network/virtualNetworks/subnets`.
    #[serde(rename = "type")]
    pub resource_type: String,
    pub name: String,
    /// The resource group in the id, if any (budgets can sit on the subscription).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
    /// An extension resource (role assignment, diagnostic setting): the id of what it is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    pub stage: u8,
}

/// Parse `/subscriptions/s/resourceGroups/g/providers/NS/t1/n1[/t2/n2...]` (extension resources
/// `.../providers/NS2/t/n` on another resource too). `None` for what is not a resource id.
pub fn parse_id(id: &str) -> Option<Target> {
    let segs: Vec<&str> = id.trim_matches('/').split('/').collect();
    let last = segs
        .iter()
        .rposition(|s| s.eq_ignore_ascii_case("providers"))?;
    let ns = segs.get(last + 1)?;
    let rest = &segs[last + 2..];
    if rest.is_empty() || !rest.len().is_multiple_of(2) {
        return None;
    }
    let mut ty = ns.to_string();
    for pair in rest.chunks(2) {
        ty.push('/');
        ty.push_str(pair[0]);
    }
    let name = rest[rest.len() - 1].to_string();
    let rg = segs
        .iter()
        .position(|s| s.eq_ignore_ascii_case("resourceGroups"))
        .and_then(|i| segs.get(i + 1))
        .map(|s| s.to_string());
    // an extension resource: another `providers` before the last one, with a resource between
    let earlier = segs[..last]
        .iter()
        .rposition(|s| s.eq_ignore_ascii_case("providers"));
    let on = earlier
        .filter(|e| last > e + 2)
        .map(|_| format!("/{}", segs[..last].join("/")));
    let mut t = Target {
        id: format!("/{}", segs.join("/")),
        resource_type: ty,
        name,
        resource_group: rg,
        on,
        stage: 0,
    };
    t.stage = stage(&t.resource_type);
    Some(t)
}

/// When a type is deleted (lower first). Types gpuform never renders go with the rest (6).
///
/// 0. what watches, grants on or acts on other resources: autoscale, alerts, budget, diagnostic
///    settings, role assignments, data collection rule associations, and a dev box's shutdown
///    schedule (`Microsoft.DevTestLab/schedules`) and start Logic App (`Microsoft.Logic/workflows`),
///    so nothing starts the VM while it is being deleted; VM extensions whose VM is not listed
///    (with their VM listed, they go with it)
/// 1. the compute: the scale set, a dev box's VM
/// 2. what the VM held: its NIC (Azure refuses to delete a NIC attached to a VM, and a VNet whose
///    subnet holds a NIC: InUseSubnetCannotBeDeleted) and the disks the VM created; a private
///    endpoint's DNS zone groups (before the endpoint, `facts::deletion`); a serving pool's
///    Private Link service (Azure refuses to delete the load balancer whose
///    frontend it uses: CannotDeleteLoadBalancerWithPrivateLinkService, `facts::serving_ops`)
/// 3. private endpoints, the action group, the disk encryption set (after the disks it encrypts),
///    a private DNS zone's virtual network links (Azure refuses to delete the zone while they
///    exist: `facts::deletion`); a serving pool's internal load balancer and Application
///    Gateway, after the scale set that joins their backend pools
///    (LoadBalancerInUseByVirtualMachineScaleSet) and before the virtual network whose subnets
///    they sit in (InUseSubnetCannotBeDeleted)
/// 4. virtual networks, private DNS zones
/// 5. NAT gateways, network security groups
/// 6. the rest (public IPs, identity, workspace, data collection rules, ...)
/// 7. the Key Vault (its keys encrypt the disks until they and the disk encryption set are gone)
pub fn stage(resource_type: &str) -> u8 {
    match resource_type.to_ascii_lowercase().as_str() {
        "microsoft.insights/autoscalesettings"
        | "microsoft.insights/metricalerts"
        | "microsoft.insights/activitylogalerts"
        | "microsoft.insights/diagnosticsettings"
        // GPU monitoring (issue 12): log alerts and the workbook read the workspace; the
        // association goes before its rule
        | "microsoft.insights/scheduledqueryrules"
        | "microsoft.insights/workbooks"
        | "microsoft.insights/datacollectionruleassociations"
        // a Flexible pool's DCR-association policy (it would associate VMs being deleted)
        // and its remediation
        | "microsoft.authorization/policyassignments"
        | "microsoft.policyinsights/remediations"
        | "microsoft.consumption/budgets"
        | "microsoft.authorization/roleassignments"
        // a dev box: nothing stops or starts the VM while it goes
        | "microsoft.devtestlab/schedules"
        | "microsoft.logic/workflows"
        | "microsoft.compute/virtualmachines/extensions" => 0,
        "microsoft.compute/virtualmachinescalesets" | "microsoft.compute/virtualmachines" => 1,
        "microsoft.network/networkinterfaces"
        | "microsoft.compute/disks"
        | "microsoft.network/privateendpoints/privatednszonegroups"
        | "microsoft.network/privatelinkservices" => 2,
        "microsoft.network/privateendpoints"
        | "microsoft.insights/actiongroups"
        | "microsoft.compute/diskencryptionsets"
        | "microsoft.network/privatednszones/virtualnetworklinks"
        | "microsoft.network/loadbalancers"
        | "microsoft.network/applicationgateways" => 3,
        "microsoft.network/virtualnetworks" | "microsoft.network/privatednszones" => 4,
        "microsoft.network/natgateways" | "microsoft.network/networksecuritygroups" => 5,
        "microsoft.keyvault/vaults" => 7,
        _ => 6,
    }
}

pub use crate::facts::api::DISKS_API;

/// The managed disks a dev box's VM created (its OS disk `FromImage`, data disks `Empty`), which
/// are not among the deployment's output resources: the VM declares them inline with
/// `deleteOption: Detach`, so deleting the VM leaves them. Disks attached to the VM by hand
/// (`createOption: Attach`, or any other than FromImage/Empty) were not created by the spec and
/// are returned apart, to be left alone.
///
/// `vm`: the VM as `GET virtualMachines` returns it, or `None` when it is gone already (a run that
/// stopped after the VM): then the disks the template names (`planned`) in the VM's resource
/// group are the candidates (the caller checks they exist).
pub fn vm_disks(
    vm_id: &str,
    vm: Option<&crate::azure::deployments::VirtualMachine>,
    planned: &[String],
) -> (Vec<Target>, Vec<String>) {
    let mut created = Vec::new();
    let mut attached = Vec::new();
    let push = |t: Target, list: &mut Vec<Target>| {
        if !list.iter().any(|x| x.id.eq_ignore_ascii_case(&t.id)) {
            list.push(t);
        }
    };
    match vm {
        Some(vm) => {
            let sp = vm
                .properties
                .as_ref()
                .and_then(|p| p.storage_profile.as_ref());
            let disks = sp
                .into_iter()
                .flat_map(|sp| sp.os_disk.iter().chain(sp.data_disks.iter()));
            for d in disks {
                let Some(t) = d
                    .managed_disk
                    .as_ref()
                    .and_then(|m| m.id.as_deref())
                    .and_then(parse_id)
                    .filter(|t| {
                        t.resource_type
                            .eq_ignore_ascii_case("Microsoft.Compute/disks")
                    })
                else {
                    continue; // an unmanaged (VHD) or ephemeral disk: nothing to delete apart
                };
                let by_vm = d.create_option.as_deref().is_some_and(|c| {
                    c.eq_ignore_ascii_case("FromImage") || c.eq_ignore_ascii_case("Empty")
                });
                if by_vm {
                    // ARM may spell the group in upper case in disk ids: show the VM's spelling
                    let mut t = t;
                    if let Some(vm_rg) = parse_id(vm_id).and_then(|v| v.resource_group)
                        && t.resource_group
                            .as_deref()
                            .is_some_and(|g| g.eq_ignore_ascii_case(&vm_rg))
                    {
                        t.resource_group = Some(vm_rg);
                    }
                    push(t, &mut created);
                } else if !attached
                    .iter()
                    .any(|a: &String| a.eq_ignore_ascii_case(&t.id))
                {
                    attached.push(t.id);
                }
            }
        }
        None => {
            let lower = vm_id.to_ascii_lowercase();
            let Some(at) = lower.rfind("/providers/microsoft.compute/virtualmachines/") else {
                return (created, attached);
            };
            for name in planned {
                if let Some(t) = parse_id(&format!(
                    "{}/providers/Microsoft.Compute/disks/{name}",
                    &vm_id[..at]
                )) {
                    push(t, &mut created);
                }
            }
        }
    }
    (created, attached)
}

/// Add a dev box's disks to the inventory: deleted after the VM, or kept with `--keep-data`.
pub fn add_disks(inv: &mut Inventory, disks: Vec<Target>, keep_data: bool) {
    for d in disks {
        let listed = |l: &[Target]| l.iter().any(|x| x.id.eq_ignore_ascii_case(&d.id));
        if listed(&inv.delete) || listed(&inv.keep) {
            continue;
        }
        if keep_data {
            inv.keep.push(d);
        } else {
            inv.delete.push(d);
        }
    }
    inv.delete.sort_by(|a, b| {
        (a.stage, &a.resource_type, &a.name).cmp(&(b.stage, &b.resource_type, &b.name))
    });
}

/// Is this kept by `--keep-data`? (the vault and what is in or on it, managed disks)
pub fn is_data(t: &Target, all: &[Target]) -> bool {
    let ty = t.resource_type.to_ascii_lowercase();
    if ty.starts_with("microsoft.keyvault/vaults") || ty == "microsoft.compute/disks" {
        return true;
    }
    // diagnostic settings on the vault stay with it; role assignments on it are orphans once
    // the identity is gone, so they go
    t.on.as_deref().is_some_and(|on| {
        ty == "microsoft.insights/diagnosticsettings"
            && all
                .iter()
                .any(|v| v.id.eq_ignore_ascii_case(on) && is_data(v, &[]))
    })
}

/// The spec's deployments among the group's: `base-<8 hex>` or a name given explicitly.
pub fn spec_deployments<'a>(
    records: &'a [DeploymentRecord],
    base: &str,
    extra: &[String],
) -> Vec<&'a DeploymentRecord> {
    records
        .iter()
        .filter(|d| crate::deploy::landed::is_spec_deployment(&d.name, base, extra))
        .collect()
}

/// The deployment-name base for a spec name (as `deploy::deployment_name` builds it).
pub fn name_base(spec_name: &str) -> String {
    crate::deploy::landed::name_base(spec_name)
}

/// Types (lower case) → API version, from the rendered template (nested deployments too).
pub fn api_versions(template: &Value) -> BTreeMap<String, String> {
    fn walk(rs: &Value, out: &mut BTreeMap<String, String>) {
        for r in rs.as_array().into_iter().flatten() {
            if let (Some(t), Some(v)) = (
                r.get("type").and_then(Value::as_str),
                r.get("apiVersion").and_then(Value::as_str),
            ) {
                out.entry(t.to_ascii_lowercase()).or_insert(v.to_string());
            }
            walk(r.get("resources").unwrap_or(&Value::Null), out);
            if let Some(inner) = r.pointer("/properties/template/resources") {
                walk(inner, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(template.get("resources").unwrap_or(&Value::Null), &mut out);
    out
}

/// What destroy will delete, in order, and what it keeps.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inventory {
    pub deployments: Vec<String>,
    /// Deleted in `stage` order.
    pub delete: Vec<Target>,
    /// Kept by `--keep-data`.
    pub keep: Vec<Target>,
    /// Children that go with their parent.
    #[serde(skip)]
    pub with_parent: usize,
    /// Output resources of a type the spec's template does not declare (left alone).
    pub foreign: Vec<String>,
}

/// Build the inventory from the deployments' output resources.
pub fn inventory(
    records: &[&DeploymentRecord],
    apis: &BTreeMap<String, String>,
    keep_data: bool,
) -> Inventory {
    let mut inv = Inventory {
        deployments: records.iter().map(|d| d.name.clone()).collect(),
        ..Default::default()
    };
    let mut all: Vec<Target> = Vec::new();
    let mut undeclared: Vec<Target> = Vec::new();
    for d in records {
        for r in &d.properties.output_resources {
            let Some(t) = parse_id(&r.id) else { continue };
            let list = if apis.contains_key(&t.resource_type.to_ascii_lowercase()) {
                &mut all
            } else {
                &mut undeclared
            };
            if !list.iter().any(|x| x.id.eq_ignore_ascii_case(&t.id)) {
                list.push(t);
            }
        }
    }
    // a child whose parent is in the list goes with it (extension resources do not), unless
    // Azure refuses to delete the parent while the child exists (`facts::deletion`): then it is
    // deleted itself, before its parent (its stage is lower)
    let parent_listed = |t: &Target| {
        t.on.is_none()
            && !crate::facts::deletion::child_rule(&t.resource_type)
                .is_some_and(|c| c.rule == crate::facts::deletion::Rule::BeforeParent)
            && all.iter().any(|p| {
                p.id.len() < t.id.len()
                    && t.id
                        .to_ascii_lowercase()
                        .starts_with(&format!("{}/", p.id.to_ascii_lowercase()))
                    && p.on.is_none()
            })
    };
    // a child of a type the template declares only inline (a VNet's subnets) goes with its
    // parent too; anything else of an undeclared type is left alone
    for t in &undeclared {
        if parent_listed(t) {
            inv.with_parent += 1;
        } else {
            inv.foreign.push(t.id.clone());
        }
    }
    for t in &all {
        let parent_listed = parent_listed(t);
        if keep_data && is_data(t, &all) {
            if !parent_listed {
                inv.keep.push(t.clone());
            }
            continue;
        }
        if parent_listed {
            inv.with_parent += 1;
            continue;
        }
        inv.delete.push(t.clone());
    }
    inv.delete.sort_by(|a, b| {
        (a.stage, &a.resource_type, &a.name).cmp(&(b.stage, &b.resource_type, &b.name))
    });
    inv
}

/// What a destroy without `--yes` and without a terminal to ask on prints: what would be
/// deleted, in order (a dry run; nothing is deleted and the exit code stays 2).
pub fn dry_run_json(rg: &str, inv: &Inventory, live: &[&Target]) -> Value {
    serde_json::json!({
        "schemaVersion": 1,
        "resourceGroup": rg,
        "dryRun": true,
        "deployments": inv.deployments,
        "succeeded": false,
        "deleted": 0, "alreadyGone": inv.delete.len() - live.len(), "failed": 0, "notAttempted": live.len(),
        "wouldDelete": live,
        "kept": inv.keep,
        "results": [],
        "notes": ["dry run: no terminal to ask on and no --yes; nothing was deleted. Run again with --yes to delete these."],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::azure::deployments::VirtualMachine;
    use crate::azure::operate::{RecordProperties, ResourceId};

    const RG: &str = "/subscriptions/s/resourceGroups/rg/providers";

    #[test]
    fn ids_parse_into_type_name_and_scope() {
        let t = parse_id(&format!(
            "{RG}/Microsoft.Network/virtualNetworks/v/subnets/workload"
        ))
        .unwrap();
        assert_eq!(t.resource_type, "Microsoft.Network/virtualNetworks/subnets");
        assert_eq!(
            (
                t.name.as_str(),
                t.resource_group.as_deref(),
                t.on.as_deref()
            ),
            ("workload", Some("rg"), None)
        );
        let ra = parse_id(&format!(
            "{RG}/Microsoft.KeyVault/vaults/kv/providers/Microsoft.Authorization/roleAssignments/g1"
        ))
        .unwrap();
        assert_eq!(ra.resource_type, "Microsoft.Authorization/roleAssignments");
        assert_eq!(
            ra.on.as_deref(),
            Some("/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv")
        );
        assert_eq!(ra.stage, 0);
        let budget =
            parse_id("/subscriptions/s/providers/Microsoft.Consumption/budgets/b").unwrap();
        assert_eq!(
            (budget.resource_group, budget.on, budget.stage),
            (None, None, 0)
        );
        assert!(parse_id("/subscriptions/s/resourceGroups/rg").is_none());
    }

    #[test]
    fn the_inventory_orders_skips_children_and_keeps_data() {
        let ids = [
            "Microsoft.KeyVault/vaults/kv",
            "Microsoft.KeyVault/vaults/kv/keys/disk-cmk",
            "Microsoft.Network/virtualNetworks/v",
            "Microsoft.Network/virtualNetworks/v/subnets/workload",
            "Microsoft.Compute/virtualMachineScaleSets/vmss",
            "Microsoft.Insights/autoscaleSettings/as",
            "Microsoft.KeyVault/vaults/kv/providers/Microsoft.Insights/diagnosticSettings/to-log-analytics",
            "Microsoft.Web/sites/not-ours",
        ];
        let d = record("pool-0a1b2c3d", &ids);
        let mut apis = BTreeMap::new();
        for t in [
            "microsoft.keyvault/vaults",
            "microsoft.keyvault/vaults/keys",
            "microsoft.network/virtualnetworks",
            "microsoft.network/virtualnetworks/subnets",
            "microsoft.compute/virtualmachinescalesets",
            "microsoft.insights/autoscalesettings",
            "microsoft.insights/diagnosticsettings",
        ] {
            apis.insert(t.to_string(), "2024-01-01".to_string());
        }
        let inv = inventory(&[&d], &apis, false);
        let names: Vec<&str> = inv.delete.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["as", "to-log-analytics", "vmss", "v", "kv"]);
        assert_eq!(inv.with_parent, 2);
        assert_eq!(inv.foreign.len(), 1);
        let kept = inventory(&[&d], &apis, true);
        let names: Vec<&str> = kept.delete.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["as", "vmss", "v"]);
        assert_eq!(
            kept.keep
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["kv", "to-log-analytics"]
        );
    }

    /// A deployment record whose output resources are `ids` in the test resource group.
    fn record(name: &str, ids: &[&str]) -> DeploymentRecord {
        DeploymentRecord {
            name: name.into(),
            properties: RecordProperties {
                output_resources: ids
                    .iter()
                    .map(|i| ResourceId {
                        id: format!("{RG}/{i}"),
                    })
                    .collect(),
                ..Default::default()
            },
        }
    }

    /// The output resources of a dev box (examples/dev-notebook-t4.yaml), by type.
    const DEV_BOX: [&str; 16] = [
        "Microsoft.Network/networkSecurityGroups/nsg-dev-notebook-workload",
        "Microsoft.Network/publicIPAddresses/pip-dev-notebook-nat",
        "Microsoft.Network/natGateways/ng-dev-notebook",
        "Microsoft.Network/virtualNetworks/vnet-dev-notebook",
        "Microsoft.Network/virtualNetworks/vnet-dev-notebook/subnets/workload",
        "Microsoft.Network/networkInterfaces/nic-vm-dev-notebook",
        "Microsoft.Compute/virtualMachines/vm-dev-notebook",
        "Microsoft.Compute/virtualMachines/vm-dev-notebook/extensions/NvidiaGpuDriverLinux",
        "Microsoft.DevTestLab/schedules/shutdown-computevm-vm-dev-notebook",
        "Microsoft.Logic/workflows/logic-dev-notebook-start",
        "Microsoft.Compute/virtualMachines/vm-dev-notebook/providers/Microsoft.Authorization/roleAssignments/g-start",
        "Microsoft.Compute/virtualMachines/vm-dev-notebook/providers/Microsoft.Insights/dataCollectionRuleAssociations/gpu-telemetry",
        "Microsoft.Insights/dataCollectionRules/dcr-dev-notebook-gpu",
        "Microsoft.Compute/diskEncryptionSets/des-dev-notebook",
        "Microsoft.Network/privateEndpoints/pep-dev-notebook-vault",
        "Microsoft.KeyVault/vaults/kv",
    ];

    fn dev_box_apis() -> BTreeMap<String, String> {
        DEV_BOX
            .iter()
            .filter_map(|i| parse_id(&format!("{RG}/{i}")))
            .map(|t| (t.resource_type.to_ascii_lowercase(), "2024-01-01".into()))
            .collect()
    }

    #[test]
    fn a_dev_box_goes_in_an_order_azure_accepts() {
        let d = record("dev-notebook-0a1b2c3d", &DEV_BOX);
        let mut inv = inventory(&[&d], &dev_box_apis(), false);
        let vm: VirtualMachine = serde_json::from_value(serde_json::json!({"properties": {
            "storageProfile": {"osDisk": {"name": "osdisk-vm-dev-notebook", "createOption": "FromImage",
                "deleteOption": "Detach", "managedDisk": {"id": format!("{RG}/Microsoft.Compute/disks/osdisk-vm-dev-notebook")}}}}}))
        .unwrap();
        let (disks, _) = vm_disks(
            &format!("{RG}/Microsoft.Compute/virtualMachines/vm-dev-notebook"),
            Some(&vm),
            &[],
        );
        add_disks(&mut inv, disks, false);
        let names: Vec<&str> = inv.delete.iter().map(|t| t.name.as_str()).collect();
        let at = |n: &str| {
            names
                .iter()
                .position(|x| *x == n)
                .unwrap_or_else(|| panic!("{n}: {names:?}"))
        };
        // nothing starts or stops the VM while it goes; what acts on it goes first
        for first in [
            "shutdown-computevm-vm-dev-notebook",
            "logic-dev-notebook-start",
            "g-start",
            "gpu-telemetry",
        ] {
            assert!(at(first) < at("vm-dev-notebook"), "{first}: {names:?}");
        }
        // the VM, then its NIC and disk, then the network (InUseSubnetCannotBeDeleted otherwise)
        assert!(at("vm-dev-notebook") < at("nic-vm-dev-notebook"));
        assert!(at("vm-dev-notebook") < at("osdisk-vm-dev-notebook"));
        assert!(at("nic-vm-dev-notebook") < at("vnet-dev-notebook"));
        assert!(at("nic-vm-dev-notebook") < at("pep-dev-notebook-vault"));
        // the disk encryption set and the vault after the disks they encrypt
        assert!(at("osdisk-vm-dev-notebook") < at("des-dev-notebook"));
        assert!(at("des-dev-notebook") < at("kv"));
        assert!(at("vnet-dev-notebook") < at("ng-dev-notebook"));
        assert!(at("ng-dev-notebook") < at("pip-dev-notebook-nat"));
        // the extension and the subnet go with their parents
        assert!(!names.contains(&"NvidiaGpuDriverLinux") && !names.contains(&"workload"));
        assert_eq!(inv.with_parent, 2);
        assert_eq!(
            inv.delete
                .iter()
                .find(|t| t.name == "gpu-telemetry")
                .and_then(|t| t.on.as_deref()),
            Some(&*format!(
                "{RG}/Microsoft.Compute/virtualMachines/vm-dev-notebook"
            ))
        );
        // the subnets, declared only inline in the VNet, go with it too (not "left alone")
        let mut inline = dev_box_apis();
        inline.remove("microsoft.network/virtualnetworks/subnets");
        let inv = inventory(&[&d], &inline, false);
        assert_eq!((inv.with_parent, inv.foreign.len()), (2, 0));
        assert!(!inv.delete.iter().any(|t| t.name == "workload"));
        // stages by type
        assert_eq!(
            stage("Microsoft.Compute/virtualMachines"),
            stage("Microsoft.Compute/virtualMachineScaleSets")
        );
        assert!(
            stage("Microsoft.Compute/virtualMachines")
                < stage("Microsoft.Network/networkInterfaces")
        );
        assert!(
            stage("Microsoft.Network/networkInterfaces")
                < stage("Microsoft.Network/virtualNetworks")
        );
        assert!(stage("Microsoft.Compute/disks") < stage("Microsoft.Compute/diskEncryptionSets"));
        assert!(
            stage("Microsoft.Compute/virtualMachines/extensions")
                < stage("Microsoft.Compute/virtualMachines")
        );
    }

    #[test]
    fn the_disks_the_vm_created_go_after_it_or_are_kept_and_attached_ones_stay() {
        let disk = |n: &str| format!("{RG}/Microsoft.Compute/disks/{n}");
        let vm: VirtualMachine = serde_json::from_value(serde_json::json!({"properties": {
            "storageProfile": {
                "osDisk": {"name": "osdisk-vm", "createOption": "FromImage", "deleteOption": "Detach",
                    "managedDisk": {"id": disk("osdisk-vm"), "storageAccountType": "Premium_LRS"}},
                "dataDisks": [
                    {"lun": 0, "name": "datadisk-vm-0", "createOption": "Empty", "deleteOption": "Detach",
                        "managedDisk": {"id": disk("datadisk-vm-0")}},
                    {"lun": 1, "name": "scratch", "createOption": "Attach", "deleteOption": "Detach",
                        "managedDisk": {"id": disk("scratch")}}
                ]}}}))
        .unwrap();
        let vm_id = format!("{RG}/Microsoft.Compute/virtualMachines/vm");
        let (created, attached) = vm_disks(&vm_id, Some(&vm), &["ignored".into()]);
        let names: Vec<&str> = created.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["osdisk-vm", "datadisk-vm-0"]);
        assert!(
            created
                .iter()
                .all(|t| t.stage == stage("Microsoft.Compute/disks"))
        );
        assert_eq!(attached, [disk("scratch")]);
        // the VM is gone already (a run that stopped after it): the disks the template names
        let (fallback, attached) =
            vm_disks(&vm_id, None, &["osdisk-vm".into(), "datadisk-vm-0".into()]);
        assert!(attached.is_empty());
        assert_eq!(
            fallback.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            [disk("osdisk-vm"), disk("datadisk-vm-0")]
        );
        // deleted after the VM, or kept (and kept only) with --keep-data
        let d = record(
            "dev-notebook-0a1b2c3d",
            &["Microsoft.Compute/virtualMachines/vm"],
        );
        let apis: BTreeMap<String, String> = [(
            "microsoft.compute/virtualmachines".to_string(),
            "2025-04-01".to_string(),
        )]
        .into();
        let mut inv = inventory(&[&d], &apis, false);
        add_disks(&mut inv, created.clone(), false);
        let names: Vec<&str> = inv.delete.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["vm", "datadisk-vm-0", "osdisk-vm"]);
        let mut kept = inventory(&[&d], &apis, true);
        add_disks(&mut kept, created, true);
        assert_eq!(kept.delete.len(), 1);
        assert_eq!(
            kept.keep
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["osdisk-vm", "datadisk-vm-0"]
        );
        assert!(kept.keep.iter().all(|t| is_data(t, &[])));
    }

    #[test]
    fn zone_links_go_before_their_zones_and_other_children_with_their_parents() {
        use crate::facts::deletion::{CHILDREN, Rule};
        let ids = [
            "Microsoft.Network/privateDnsZones/privatelink.vaultcore.azure.net",
            "Microsoft.Network/privateDnsZones/privatelink.vaultcore.azure.net/virtualNetworkLinks/link-vnet",
            "Microsoft.Network/privateEndpoints/pep-vault",
            "Microsoft.Network/privateEndpoints/pep-vault/privateDnsZoneGroups/default",
            "Microsoft.Network/virtualNetworks/vnet",
            "Microsoft.KeyVault/vaults/kv",
            "Microsoft.KeyVault/vaults/kv/keys/disk-cmk",
        ];
        let d = record("pool-0a1b2c3d", &ids);
        let apis: BTreeMap<String, String> = ids
            .iter()
            .filter_map(|i| parse_id(&format!("{RG}/{i}")))
            .map(|t| (t.resource_type.to_ascii_lowercase(), "2024-01-01".into()))
            .collect();
        let inv = inventory(&[&d], &apis, false);
        let names: Vec<&str> = inv.delete.iter().map(|t| t.name.as_str()).collect();
        let at = |n: &str| {
            names
                .iter()
                .position(|x| *x == n)
                .unwrap_or_else(|| panic!("{n}: {names:?}"))
        };
        // Azure refuses the zone while its link exists (409 CannotDeleteResource)
        assert!(
            at("link-vnet") < at("privatelink.vaultcore.azure.net"),
            "{names:?}"
        );
        // the endpoint's zone group (and its records) go with the endpoint (facts::deletion)
        assert!(!names.contains(&"default"), "{names:?}");
        // the link also goes before the VNet it links
        assert!(at("link-vnet") < at("vnet"), "{names:?}");
        // the key goes with its vault
        assert!(!names.contains(&"disk-cmk"));
        assert_eq!(inv.with_parent, 2);
        // every pair Azure refuses: the child's stage is before its parent's
        for c in CHILDREN.iter().filter(|c| c.rule == Rule::BeforeParent) {
            assert!(stage(c.child) < stage(c.parent), "{}", c.child);
        }
    }

    #[test]
    fn only_the_specs_deployments_count() {
        let rec = |n: &str| DeploymentRecord {
            name: n.into(),
            ..Default::default()
        };
        let all = [
            rec("pool-0a1b2c3d"),
            rec("pool-extra-0a1b2c3d"),
            rec("pool-xyz"),
            rec("other-0a1b2c3d"),
            rec("mine"),
        ];
        let got: Vec<&str> = spec_deployments(&all, &name_base("pool"), &["mine".into()])
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(got, ["pool-0a1b2c3d", "mine"]);
    }
}
