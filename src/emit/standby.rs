//! The standby pool in ARM JSON (`azuredeploy.json`); the Bicep side is
//! `templates/standby.bicep.hbs`. Both render [`crate::plan::standby::StandbyPool`]: the pool
//! attached to the scale set, and the provider's role assignments when the spec names its
//! principal. Kept apart from `arm.rs` (it imports nothing from it).

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::Plan;
use crate::plan::standby::StandbyPool;

const VMSS_TYPE: &str = "Microsoft.Compute/virtualMachineScaleSets";
const ROLE_TYPE: &str = "Microsoft.Authorization/roleAssignments";
const DES_TYPE: &str = "Microsoft.Compute/diskEncryptionSets";

/// A string literal inside an ARM expression.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A literal string value (`[` at the start escaped as ARM requires).
fn lit(s: &str) -> Value {
    if s.starts_with('[') && s.ends_with(']') {
        Value::from(format!("[{s}"))
    } else {
        Value::from(s.to_string())
    }
}

fn x(expr: String) -> Value {
    Value::from(format!("[{expr}]"))
}

fn vmss_id(p: &Plan) -> String {
    format!("resourceId({}, {})", q(VMSS_TYPE), q(&p.compute.name))
}

/// The name expression of a provider role assignment (as main.bicep writes it).
fn role_name(principal: &str, role_id: &str) -> String {
    format!("guid(resourceGroup().id, {}, {})", q(principal), q(role_id))
}

/// The pool and its role assignments, in the order main.bicep declares them. `waits_for`: what
/// else the pool waits for (the DCR-association policy and its roles: `emit::arm`'s
/// `standby_waits_for`, passed in so this file does not reach up into the ARM emitter).
pub fn arm_resources(p: &Plan, sb: &StandbyPool, waits_for: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    let mut depends = vec![x(vmss_id(p))];
    if let Some(principal) = &sb.provider_principal_id {
        // a role the principal holds there already is left out (RoleAssignmentExists otherwise)
        let unless_held = |role: &str| {
            x(format!(
                "not(contains(parameters({}), {}))",
                q(sb.roles_held_param),
                q(role)
            ))
        };
        let role = |r: &crate::plan::standby::ProviderRoleAssignment| {
            json!({
                "roleDefinitionId": x(format!("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', {})", q(r.role_id))),
                "principalId": lit(principal),
                "principalType": "ServicePrincipal",
                "description": lit(&r.description)
            })
        };
        for r in sb.rendered_roles() {
            let name = role_name(principal, r.role_id);
            out.push(json!({
                "condition": unless_held(r.role_id),
                "type": ROLE_TYPE,
                "apiVersion": p.api.role_assignments,
                "name": x(name.clone()),
                "properties": role(r)
            }));
            depends.push(x(format!("resourceId({}, {name})", q(ROLE_TYPE))));
        }
        if let (Some(r), Some(des)) = (&sb.des_role, &sb.des_name) {
            // scoped to the disk encryption set (an extension resource on it)
            let des_id = format!("resourceId({}, {})", q(DES_TYPE), q(des));
            let name = format!("guid({des_id}, {}, {})", q(principal), q(r.role_id));
            out.push(json!({
                "condition": unless_held(r.role_id),
                "type": ROLE_TYPE,
                "apiVersion": p.api.role_assignments,
                "scope": format!("{DES_TYPE}/{des}"),
                "name": x(name.clone()),
                "properties": role(r),
                "dependsOn": [x(des_id.clone())]
            }));
            depends.push(x(format!(
                "extensionResourceId({des_id}, {}, {name})",
                q(ROLE_TYPE)
            )));
        }
    }
    depends.extend(waits_for);
    let mut elasticity = json!({
        "maxReadyCapacity": sb.max_ready,
        "minReadyCapacity": sb.min_ready
    });
    if let Some(d) = &sb.post_provisioning_delay {
        elasticity["postProvisioningDelay"] = lit(d);
    }
    out.push(json!({
        "type": sb.resource_type,
        "apiVersion": sb.api_version,
        "name": lit(&sb.name),
        "location": "[parameters('location')]",
        "tags": "[variables('tags')]",
        "properties": {
            "attachedVirtualMachineScaleSetId": x(vmss_id(p)),
            "elasticityProfile": elasticity,
            "virtualMachineState": sb.vm_state
        },
        "dependsOn": depends
    }));
    out
}

/// A hibernated pool needs hibernation enabled on the scale set: set
/// `properties.additionalCapabilities.hibernationEnabled` on the rendered scale set.
pub fn arm_extend(sb: &StandbyPool, resources: &mut [Value]) {
    if !sb.hibernation {
        return;
    }
    for r in resources.iter_mut() {
        if r["type"].as_str() == Some(VMSS_TYPE)
            && let Some(props) = r.get_mut("properties").and_then(Value::as_object_mut)
        {
            props.insert(
                "additionalCapabilities".into(),
                json!({ "hibernationEnabled": true }),
            );
        }
    }
}

/// Everything `azuredeploy.json` gains from the plan's standby pool, appended to `resources`
/// (`waits_for`: see [`arm_resources`]).
pub fn arm(p: &Plan, waits_for: Vec<Value>, resources: &mut Vec<Value>) {
    if let Some(sb) = &p.standby {
        arm_extend(sb, resources);
        resources.extend(arm_resources(p, sb, waits_for));
    }
}
