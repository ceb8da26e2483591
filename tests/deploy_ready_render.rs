//! Every rendered template against what Azure needs on day two (issue 38), held against the
//! sources, never against gpuform's constants.
//!
//! - A hibernated pool of Linux VMs carries the guest setup: "Once you've created a VM with
//!   hibernation enabled, you need to configure the guest OS", by the extension Learn installs
//!   (publisher, type and version from the dated excerpt `tests/fixtures/sources/hibernation.json`,
//!   hibernate-resume-linux.md @ 007f5cb); only the portal installs it by itself.
//! - The pool's VMs are built after the pool's PUT, and DeployIfNotExists acts on a VM when it is
//!   created under an assignment that applies ("around five minutes" after it is assigned,
//!   get-compliance-data.md @ 01a70e6, in `deploy-refusals.json`): the pool waits for the GPU
//!   telemetry policy and its roles, and the remediation waits for the pool.
//! - The `vaultUri` output is built from the vault's name and the cloud's Key Vault DNS suffix
//!   (`environment().suffixes.keyvaultDns`), never read with `reference()`: a landing zone's
//!   vault is in another subscription, where the deployer may have no read.

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

#[test]
fn the_vault_uri_output_never_reads_the_vault() {
    let mut existing = 0;
    for r in render_all() {
        let name = r.spec.display();
        let v = r.arm["outputs"]["vaultUri"]["value"].as_str().unwrap();
        assert!(!v.contains("reference("), "{name}: {v}");
        assert!(
            v.contains("environment().suffixes.keyvaultDns"),
            "{name}: {v}"
        );
        assert!(v.starts_with("[format('https://{0}{1}/', "), "{name}: {v}");
        let bicep = r
            .bicep
            .lines()
            .find(|l| l.starts_with("output vaultUri "))
            .unwrap();
        assert!(!bicep.contains("properties.vaultUri"), "{name}: {bicep}");
        assert!(
            bicep.contains("environment().suffixes.keyvaultDns"),
            "{name}: {bicep}"
        );
        // a landing zone's vault: its literal name, no expression on the other subscription
        if r.arm.to_string().contains("existingKeyVault") || !v.contains("variables('vaultName')") {
            existing += 1;
        }
    }
    assert!(existing >= 1, "no render with an existing vault");
}

/// Microsoft's troubleshooting of a pool that does not fill starts from its execution log
/// (`SVMPoolExecutionLog`, standby-pools-configure-permissions): every rendered pool sends its
/// log categories, as the supported-logs page lists them (log-categories.json), to the workspace.
#[test]
fn every_standby_pool_sends_its_logs_to_the_workspace() {
    let doc = read_json(&sources::source_path(
        "azure/log-categories.json",
        "log-categories.json",
    ));
    let mut want: Vec<String> = doc["logCategories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["resourceType"] == POOL)
        .map(|c| c["category"].as_str().unwrap().to_string())
        .collect();
    want.sort();
    assert!(!want.is_empty(), "the source lists no category of {POOL}");
    let mut pools = 0;
    for r in render_all() {
        let Some(pool) = of_type(&r, POOL).into_iter().next() else {
            continue;
        };
        pools += 1;
        let name = r.spec.display();
        let scope = format!("{POOL}/{}", pool["name"].as_str().unwrap());
        let setting = of_type(&r, "Microsoft.Insights/diagnosticSettings")
            .into_iter()
            .find(|d| d["scope"] == scope.as_str())
            .unwrap_or_else(|| panic!("{name}: no diagnostic setting on the pool"));
        let mut got: Vec<String> = setting["properties"]["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["category"].as_str().unwrap().to_string())
            .collect();
        got.sort();
        assert_eq!(got, want, "{name}");
        assert!(
            setting["properties"]["workspaceId"]
                .as_str()
                .unwrap()
                .contains("Microsoft.OperationalInsights/workspaces"),
            "{name}"
        );
        assert!(r.bicep.contains("  scope: standbyPool\n"), "{name}");
    }
    assert!(pools >= 2);
}
