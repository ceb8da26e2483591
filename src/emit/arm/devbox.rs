//! The dev box VM (templates/devbox.bicep.hbs).

use crate::emit::value::{Map, Value};

use crate::emit::value::json;

use crate::plan::*;

use super::compute::{extension_properties, image_reference, managed_disk, os_profile};
use super::expr::{lit, n, put, q, x};
use super::symbols::Arm;

/// The dev box (see [`crate::plan::devbox`]): NIC, VM, driver extension, the DevTest Labs
/// shutdown schedule, the start workflow and its role on the VM.
pub(super) fn devbox(a: &Arm, out: &mut Vec<Value>) {
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
    uai.insert(format!("[{}]", a.id("identity")).into(), json!({}));
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
        let props = extension_properties(a, e);
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
                                "weekDays": &st.week_days,
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
