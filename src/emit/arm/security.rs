//! Identity and Key Vault (templates/identity.bicep.hbs, templates/keyvault.bicep.hbs).

use crate::emit::value::Value;

use crate::emit::value::json;

use super::expr::{lit, put, q, x};
use super::private_endpoint::private_endpoint;
use super::symbols::Arm;

pub(super) fn identity(a: &Arm, out: &mut Vec<Value>) {
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

pub(super) fn keyvault(a: &Arm, out: &mut Vec<Value>) {
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
