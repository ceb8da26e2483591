//! The scale set (templates/compute.bicep.hbs) and the VM profile pieces the dev box shares.

use crate::emit::value::{Map, Value};

use crate::emit::value::json;

use crate::plan::*;

use super::expr::{lit, lit_text, literalize, n, put, q, x};
use super::monitoring::ama_settings;
use super::symbols::Arm;

/// The `osProfile` a scale set's VM profile and the dev box's VM share; `name` is the one key
/// that differs (`computerNamePrefix` on a scale set, `computerName` on a VM).
pub(super) fn os_profile(c: &Compute, name: (&'static str, &str)) -> Map {
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
pub(super) fn image_reference(c: &Compute) -> Value {
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
pub(super) fn managed_disk(a: &Arm, disk: &Disk) -> Value {
    let mut m = json!({ "storageAccountType": disk.storage_account_type });
    if a.p.compute.disk_encryption_set {
        put(&mut m, "diskEncryptionSet", json!({ "id": x(a.id("des")) }));
    }
    m
}

pub(super) fn compute(a: &Arm, out: &mut Vec<Value>) {
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
    if let Some(u) = p.serving.as_ref().map(|sv| &sv.upgrade) {
        let mut policy = json!({ "mode": u.mode });
        if u.rolling {
            put(
                &mut policy,
                "rollingUpgradePolicy",
                json!({
                    "maxBatchInstancePercent": u.max_batch_instance_percent,
                    "maxUnhealthyInstancePercent": u.max_unhealthy_instance_percent,
                    "maxUnhealthyUpgradedInstancePercent": u.max_unhealthy_upgraded_instance_percent,
                    "pauseTimeBetweenBatches": lit(&u.pause_time_between_batches),
                    "prioritizeUnhealthyInstances": true,
                    "rollbackFailedInstancesOnPolicyBreach": false,
                    "maxSurge": u.max_surge
                }),
            );
        }
        props.insert("upgradePolicy".into(), policy);
    }
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
    let mut os = os_profile(c, ("computerNamePrefix", &c.computer_name_prefix));
    if let Some(cd) = ingestion_custom_data(a) {
        os.insert("customData".into(), cd);
    }
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
    let mut ipconfig = json!({ "primary": true, "subnet": { "id": x(a.id("workloadSubnet")) } });
    // serving: the NICs join the frontends' backend pools
    if let Some(lb) = p.serving.as_ref().and_then(|sv| sv.load_balancer.as_ref()) {
        put(
            &mut ipconfig,
            "loadBalancerBackendAddressPools",
            json!([ { "id": x(format!("format('{{0}}/backendAddressPools/{{1}}', {}, {})", a.id("lb"), q(&lb.pool_name))) } ]),
        );
    }
    if let Some(g) = p.serving.as_ref().and_then(|sv| sv.gateway.as_ref()) {
        put(
            &mut ipconfig,
            "applicationGatewayBackendAddressPools",
            json!([ { "id": x(format!("format('{{0}}/backendAddressPools/{{1}}', {}, {})", a.id("agw"), q(&g.pool_name))) } ]),
        );
    }
    put(
        &mut nic_props,
        "ipConfigurations",
        json!([ { "name": "ipconfig1", "properties": ipconfig } ]),
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
                let mut props = extension_properties(a, e);
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
    uai.insert(format!("[{}]", a.id("identity")).into(), json!({}));
    put(
        &mut res,
        "identity",
        json!({ "type": "UserAssigned", "userAssignedIdentities": uai }),
    );
    put(&mut res, "properties", Value::Object(props));
    let mut deps = vec!["identity", "vnet"];
    if let Some(sv) = &p.serving {
        if sv.load_balancer.is_some() {
            deps.push("lb");
        }
        if sv.gateway.is_some() {
            deps.push("agw");
        }
        if sv.gpu_scaling.is_some() && c.custom_data.is_some() {
            // the custom data carries the component's connection string
            deps.push("appi");
        }
    }
    if p.gpu.as_ref().is_some_and(|g| g.ingestion.is_some()) {
        // the custom data carries the DCE's endpoint and the DCR's immutable id
        deps.extend(["gpuDce", "gpuDcr"]);
    }
    if let Some(cmk) = p.cmk.as_ref().filter(|_| c.disk_encryption_set) {
        // the disk encryption set must be able to use the key before disks are created
        deps.extend(["des", cmk.key_role]);
    }
    put(&mut res, "dependsOn", a.depends(&deps));
    out.push(res);
}

/// The properties every rendered VM extension has, on a scale set or a VM: publisher, type,
/// version with automatic minor upgrades, automatic extension upgrade when asked, and the
/// settings (the Azure Monitor Agent's name the pool's identity).
pub(super) fn extension_properties(a: &Arm, e: &Extension) -> Value {
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
    props
}

/// On the Logs Ingestion path the custom data's placeholders are replaced with the DCE's logs
/// ingestion endpoint, the DCR's immutable id and the identity's client id
/// (`plan::gpu_monitoring::Ingestion`; templates/gpu_monitoring.bicep.hbs `gpuCustomData`).
fn ingestion_custom_data(a: &Arm) -> Option<Value> {
    let p = a.p;
    p.compute.custom_data.as_ref()?;
    let inner = ingestion_replacements(a);
    let Some(g) = p.serving.as_ref().and_then(|sv| sv.gpu_scaling.as_ref()) else {
        return inner.map(|e| x(format!("base64({e})")));
    };
    // a serving pool's GPU scale metric: the component's connection string, and the identity's
    // client id where the Logs Ingestion path has not replaced it already
    let connection = format!(
        "reference({}, '{}').ConnectionString",
        a.id("appi"),
        p.api.app_insights
    );
    let e = match inner {
        Some(e) => format!("replace({e}, '{}', {connection})", g.connection_placeholder),
        None => format!(
            "replace(replace(base64ToString(variables('customData')), '{}', {connection}), '{}', reference({}, '{}').clientId)",
            g.connection_placeholder,
            g.client_id_placeholder,
            a.id("identity"),
            p.api.identity
        ),
    };
    Some(x(format!("base64({e})")))
}

/// The Logs Ingestion path's `replace()` chain over the custom data (without the outer
/// `base64()`), or `None` off that path.
fn ingestion_replacements(a: &Arm) -> Option<String> {
    let p = a.p;
    let ph = &p.gpu.as_ref()?.ingestion.as_ref()?.placeholders;
    let api = &p.api;
    Some(format!(
        "replace(replace(replace(base64ToString(variables('customData')), '{}', reference({}, '{}').logsIngestion.endpoint), '{}', reference({}, '{}').immutableId), '{}', reference({}, '{}').clientId)",
        ph.endpoint,
        a.id("gpuDce"),
        api.data_collection,
        ph.dcr,
        a.id("gpuDcr"),
        api.data_collection,
        ph.client_id,
        a.id("identity"),
        api.identity
    ))
}
