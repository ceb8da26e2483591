//! The standby pool in every rendered template (issue 38): what Azure needs around the pool, held
//! against the sources, never against gpuform's constants.
//!
//! - A hibernated pool of Linux VMs carries the guest setup: "Once you've created a VM with
//!   hibernation enabled, you need to configure the guest OS", by the extension Learn installs
//!   (publisher, type and version from the dated excerpt `tests/fixtures/sources/hibernation.json`,
//!   hibernate-resume-linux.md @ 007f5cb); only the portal installs it by itself.
//! - The pool's VMs are built after the pool's PUT, and DeployIfNotExists acts on a VM when it is
//!   created under an assignment that applies ("around five minutes" after it is assigned,
//!   get-compliance-data.md @ 01a70e6, in `deploy-refusals.json`): the pool waits for the GPU
//!   telemetry policy and its roles, and the remediation waits for the pool.

mod sources;

use serde_json::Value;
use sources::{Rendered, read_json, render_all, root};

fn resources(r: &Rendered) -> Vec<&Value> {
    r.arm["resources"].as_array().unwrap().iter().collect()
}

fn of_type<'a>(r: &'a Rendered, ty: &str) -> Vec<&'a Value> {
    resources(r)
        .into_iter()
        .filter(|x| {
            x["type"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case(ty))
        })
        .collect()
}

fn depends(x: &Value) -> Vec<String> {
    x["dependsOn"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

const POOL: &str = "Microsoft.StandbyPool/standbyVirtualMachinePools";
const VMSS: &str = "Microsoft.Compute/virtualMachineScaleSets";
const REMEDIATION: &str = "Microsoft.PolicyInsights/remediations";
const ASSIGNMENT: &str = "Microsoft.Authorization/policyAssignments";

#[test]
fn every_linux_hibernated_pool_carries_the_guest_setup_learn_installs() {
    let src = read_json(&root().join("tests/fixtures/sources/hibernation.json"));
    let ext = &src["extensions"][0];
    let (publisher, kind) = (
        ext["publisher"].as_str().unwrap(),
        ext["type"].as_str().unwrap(),
    );
    let accepted: Vec<&str> = ext["typeHandlerVersion"]["accepted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // the page's command is what the excerpt records
    let page = &src["sources"]["hibernate-resume-linux"]["excerpts"];
    assert!(page.as_array().unwrap().iter().any(|e| {
        let e = e.as_str().unwrap();
        e.contains(kind) && e.contains(publisher) && e.contains("--version 1.0")
    }));
    let mut hibernated = 0;
    for r in render_all() {
        let Some(pool) = of_type(&r, POOL).into_iter().next() else {
            continue;
        };
        let vmss = of_type(&r, VMSS)[0];
        let linux = vmss["properties"]["virtualMachineProfile"]["osProfile"]
            .get("linuxConfiguration")
            .is_some();
        let exts: Vec<&Value> =
            vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
        let setup = exts
            .iter()
            .find(|e| e["properties"]["publisher"] == publisher && e["properties"]["type"] == kind);
        let name = r.spec.display();
        if pool["properties"]["virtualMachineState"] == "Hibernated" && linux {
            hibernated += 1;
            let e =
                setup.unwrap_or_else(|| panic!("{name}: a Linux hibernated pool without {kind}"));
            let v = e["properties"]["typeHandlerVersion"].as_str().unwrap();
            assert!(
                accepted.contains(&v),
                "{name}: {kind} {v}, documented {accepted:?}"
            );
            assert_eq!(
                vmss["properties"]["additionalCapabilities"]["hibernationEnabled"], true,
                "{name}"
            );
            assert!(
                r.bicep.contains(&format!("publisher: '{publisher}'")),
                "{name}"
            );
            assert!(r.bicep.contains(&format!("type: '{kind}'")), "{name}");
        } else {
            assert!(setup.is_none(), "{name}: {kind} without a hibernated pool");
        }
    }
    assert!(
        hibernated >= 1,
        "no rendered spec has a Linux hibernated pool"
    );
}

#[test]
fn the_pool_waits_for_the_telemetry_policy_and_the_remediation_for_the_pool() {
    let mut both = 0;
    for r in render_all() {
        let (Some(pool), Some(remediation)) = (
            of_type(&r, POOL).into_iter().next(),
            of_type(&r, REMEDIATION).into_iter().next(),
        ) else {
            continue;
        };
        both += 1;
        let name = r.spec.display();
        let pool_name = pool["name"].as_str().unwrap();
        let rem = depends(remediation);
        assert!(
            rem.iter()
                .any(|d| d.contains(&format!("'{POOL}'")) && d.contains(&format!("'{pool_name}'"))),
            "{name}: the remediation does not wait for the pool: {rem:?}"
        );
        let assignment = of_type(&r, ASSIGNMENT)[0]["name"].as_str().unwrap();
        let waits = depends(pool);
        assert!(
            waits
                .iter()
                .any(|d| d.contains(&format!("'{ASSIGNMENT}'")) && d.contains(assignment)),
            "{name}: the pool does not wait for the policy assignment: {waits:?}"
        );
        // and for the roles of the assignment's identity (their names embed the assignment's id)
        let policy_roles = resources(&r)
            .into_iter()
            .filter(|x| {
                x["type"] == "Microsoft.Authorization/roleAssignments"
                    && x["properties"]["principalId"]
                        .as_str()
                        .is_some_and(|p| p.contains(ASSIGNMENT))
            })
            .count();
        assert!(policy_roles >= 1, "{name}");
        assert_eq!(
            waits
                .iter()
                .filter(|d| d.contains(ASSIGNMENT) && d.contains("roleAssignments"))
                .count(),
            policy_roles,
            "{name}: {waits:?}"
        );
        // the same in Bicep: the remediation's dependsOn names the pool
        let start = r.bicep.find("resource gpuDcrRemediation ").unwrap();
        let block = &r.bicep[start..start + r.bicep[start..].find("\n}\n").unwrap()];
        assert!(block.contains("\n    standbyPool\n"), "{name}: {block}");
        let start = r.bicep.find("resource standbyPool ").unwrap();
        let block = &r.bicep[start..start + r.bicep[start..].find("\n}\n").unwrap()];
        assert!(block.contains("\n    gpuDcrPolicy\n"), "{name}: {block}");
    }
    assert!(both >= 2, "pools with a telemetry remediation: {both}");
}
