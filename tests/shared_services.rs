//! Landing zones (issue 13): shared monitoring and keys. A central Log Analytics workspace,
//! existing action groups and an existing Key Vault are referenced, never deployed; what the
//! platform team must do is listed; cost leaves out what the shared resources' owners pay.

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::cost::{self, Options, PriceBook};
use gpuform::emit;
use gpuform::plan::Plan;
use gpuform::spec::{Checked, policy::Policy};
use serde_json::Value;

const WS: &str = "/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/Microsoft.OperationalInsights/workspaces/log-platform-central";
const WS_ID_EXPR: &str = "[resourceId('99999999-8888-7777-6666-555555555555', 'rg-platform-management', 'Microsoft.OperationalInsights/workspaces', 'log-platform-central')]";
const AG: &str = "/subscriptions/99999999-8888-7777-6666-555555555555/resourceGroups/rg-platform-management/providers/microsoft.insights/actionGroups/ag-platform-oncall";
const KV: &str = "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg-spoke-keys/providers/Microsoft.KeyVault/vaults/kv-spoke-gpu";

fn check_text(text: String) -> Checked {
    gpuform::check::check_source(
        text,
        "shared.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

/// The shortvideo example (GPU monitoring on, alert e-mails, a budget) with `extra` lines
/// appended to its `monitoring:` block and `security` lines added.
fn shortvideo_with(monitoring: &str, security: &str) -> Checked {
    let text = std::fs::read_to_string("examples/shortvideo-transcode.yaml").unwrap();
    let at = text.find("  monitoring:\n").expect("a monitoring block");
    let text = format!(
        "{}  monitoring:\n{monitoring}{}",
        &text[..at],
        &text[at + "  monitoring:\n".len()..]
    );
    let text = if security.is_empty() {
        text
    } else {
        let at = text.find("  security:\n").expect("a security block");
        format!(
            "{}  security:\n{security}{}",
            &text[..at],
            &text[at + "  security:\n".len()..]
        )
    };
    check_text(text)
}

fn arm_of(c: &Checked) -> Value {
    serde_json::from_str(&emit::arm_template(c).unwrap()).unwrap()
}

fn of<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"].as_str().unwrap().eq_ignore_ascii_case(ty))
        .collect()
}

fn variant() -> Checked {
    let c = gpuform::check::check_file(
        std::path::Path::new("tests/fixtures/render/variants/shared-services.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c
}

#[test]
fn the_central_workspace_and_the_vault_are_referenced_not_deployed() {
    let c = variant();
    let arm = arm_of(&c);
    for ty in [
        "Microsoft.OperationalInsights/workspaces",
        "Microsoft.OperationalInsights/workspaces/tables",
        "Microsoft.KeyVault/vaults",
        "Microsoft.KeyVault/vaults/keys",
        "Microsoft.Network/privateDnsZones",
        "Microsoft.Network/privateEndpoints",
        "Microsoft.Insights/actionGroups",
    ] {
        assert!(of(&arm, ty).is_empty(), "{ty} is deployed");
    }
    // nothing is scoped to the vault (no diagnostic setting, no role assignment)
    let text = serde_json::to_string(&arm).unwrap();
    assert!(
        !text.contains("vaultName"),
        "the vault name variable is gone"
    );
    for r in of(&arm, "Microsoft.Authorization/roleAssignments") {
        assert!(!r["name"].as_str().unwrap().contains("KeyVault"), "{r}");
    }
    // every place that logs or queries points at the central workspace
    // (the variant has no autoscale setting; the shortvideo pool has one, and a queue)
    let sv = shortvideo_with(&format!("    existingWorkspace: {WS}\n"), "");
    assert!(!sv.has_errors(), "{:?}", sv.diagnostics);
    let sv = arm_of(&sv);
    assert!(of(&sv, "Microsoft.OperationalInsights/workspaces").is_empty());
    let mut diags = of(&arm, "Microsoft.Insights/diagnosticSettings");
    diags.extend(of(&sv, "Microsoft.Insights/diagnosticSettings"));
    assert!(diags.len() >= 2, "{diags:?}");
    for d in diags {
        assert_eq!(d["properties"]["workspaceId"], WS_ID_EXPR);
    }
    // the pool's own vault still logs (to the central workspace); an existing one is its owner's
    assert!(
        of(&arm, "Microsoft.Insights/diagnosticSettings")
            .iter()
            .all(|d| !d["scope"].as_str().unwrap().contains("KeyVault"))
    );
    let dcr = of(&arm, "Microsoft.Insights/dataCollectionRules")[0];
    assert_eq!(
        dcr["properties"]["destinations"]["logAnalytics"][0]["workspaceResourceId"],
        WS_ID_EXPR
    );
    assert_eq!(
        dcr["properties"]["dataFlows"][0]["outputStream"],
        "Custom-GpuTelemetry_CL"
    );
    let alerts = of(&arm, "Microsoft.Insights/scheduledQueryRules");
    // idle, VRAM, faults and missing telemetry (issue 20)
    assert_eq!(alerts.len(), 4);
    for a in &alerts {
        assert_eq!(a["properties"]["scopes"], serde_json::json!([WS_ID_EXPR]));
        // no dependency on a table the template does not deploy
        assert!(
            a.get("dependsOn")
                .is_none_or(|d| !d.to_string().contains("tables"))
        );
    }
    let wb = of(&arm, "Microsoft.Insights/workbooks")[0];
    assert_eq!(wb["properties"]["sourceId"], WS_ID_EXPR);
    assert_eq!(
        arm["outputs"]["logAnalyticsWorkspaceId"]["value"],
        WS_ID_EXPR
    );
    // the landing zone's vault URI is built from its name and the cloud's Key Vault DNS suffix
    // (no reference() on a vault in another subscription the deployment may not read; issue 38)
    let uri = arm["outputs"]["vaultUri"]["value"].as_str().unwrap();
    assert!(uri.contains("'kv-spoke-gpu'"), "{uri}");
    assert!(uri.contains("environment().suffixes.keyvaultDns"), "{uri}");
    assert!(!uri.contains("reference("), "{uri}");
    // Bicep declares both `existing`, in their own subscription and group
    let r = emit::render(&c).unwrap();
    let bicep = &r
        .files
        .iter()
        .find(|(n, _)| *n == emit::MAIN_BICEP)
        .unwrap()
        .1;
    assert!(bicep.contains("resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' existing = {\n  name: 'log-platform-central'\n  scope: resourceGroup('99999999-8888-7777-6666-555555555555', 'rg-platform-management')\n}"), "{bicep}");
    assert!(bicep.contains("resource vault 'Microsoft.KeyVault/vaults@2025-05-01' existing = {\n  name: 'kv-spoke-gpu'\n  scope: resourceGroup('11111111-2222-3333-4444-555555555555', 'rg-spoke-keys')\n}"));
    assert!(!bicep.contains("gpuTable"));
}

#[test]
fn existing_action_groups_receive_every_alert_and_budget_notification() {
    // alone (the variant: no alertEmails)
    let arm = arm_of(&variant());
    for a in of(&arm, "Microsoft.Insights/metricAlerts") {
        assert_eq!(
            a["properties"]["actions"],
            serde_json::json!([{ "actionGroupId": AG }])
        );
    }
    for a in of(&arm, "Microsoft.Insights/scheduledQueryRules") {
        assert_eq!(
            a["properties"]["actions"]["actionGroups"],
            serde_json::json!([AG])
        );
    }
    let budget = of(&arm, "Microsoft.Consumption/budgets")[0];
    let notes = budget["properties"]["notifications"].as_object().unwrap();
    assert_eq!(notes.len(), 3);
    for n in notes.values() {
        assert_eq!(n["contactEmails"], serde_json::json!([]));
        assert_eq!(n["contactGroups"], serde_json::json!([AG]));
    }

    // next to alertEmails: the created group first, then the existing ones
    let c = shortvideo_with(&format!("    existingActionGroups: [{AG}]\n"), "");
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let arm = arm_of(&c);
    let created = "[resourceId('Microsoft.Insights/actionGroups', 'ag-shortvideo-transcode')]";
    for a in of(&arm, "Microsoft.Insights/metricAlerts") {
        assert_eq!(
            a["properties"]["actions"],
            serde_json::json!([{ "actionGroupId": created }, { "actionGroupId": AG }])
        );
    }
    for a in of(&arm, "Microsoft.Insights/scheduledQueryRules") {
        assert_eq!(
            a["properties"]["actions"]["actionGroups"],
            serde_json::json!([created, AG])
        );
    }
    let budget = of(&arm, "Microsoft.Consumption/budgets")[0];
    for n in budget["properties"]["notifications"]
        .as_object()
        .unwrap()
        .values()
    {
        assert!(!n["contactEmails"].as_array().unwrap().is_empty());
        assert_eq!(n["contactGroups"], serde_json::json!([created, AG]));
    }
}

#[test]
fn a_budget_with_only_an_existing_action_group_is_not_refused() {
    let text = std::fs::read_to_string("tests/fixtures/invalid/budget-no-contacts.yaml").unwrap();
    let text = text.replace(
        "  monitoring: {budget: {monthly: 500}}",
        &format!("  monitoring: {{budget: {{monthly: 500}}, existingActionGroups: [{AG}]}}"),
    );
    let c = check_text(text);
    assert!(
        !c.diagnostics.iter().any(|d| d.rule == "budget-no-contacts"),
        "{:?}",
        c.diagnostics
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
}

#[test]
fn the_platform_team_gets_the_table_and_the_role_to_grant() {
    let plan = Plan::build(&variant()).unwrap();
    let p = &plan.prerequisites;
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].kind, "table");
    assert_eq!(p[0].scope, WS);
    assert!(p[0].what.contains("GpuTelemetry_CL"));
    // every column of the table, with its type
    for c in gpuform::plan::gpu_monitoring::COLUMNS {
        assert!(
            p[0].what.contains(&format!("{}={}", c.name, c.table_type)),
            "{}",
            c.name
        );
    }
    assert_eq!(p[1].kind, "role");
    assert_eq!(p[1].role_name, Some("Key Vault Secrets User"));
    assert_eq!(p[1].role_id, Some("4633458b-17de-408a-b874-0445c86b69e6"));
    assert_eq!(p[1].scope, KV);
    assert!(
        p[1].principal
            .as_deref()
            .unwrap()
            .contains("id-variant-shared")
    );

    // GPU monitoring off: no table to create
    let c = shortvideo_with(
        &format!("    existingWorkspace: {WS}\n    gpu: {{enabled: false}}\n"),
        "",
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    assert!(Plan::build(&c).unwrap().prerequisites.is_empty());

    // the examples that use no shared services have none (the landing-zone spoke uses the
    // central workspace, so it lists the GPU table)
    for e in std::fs::read_dir("examples").unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "yaml") {
            if path.ends_with("landing-zone-spoke.yaml") {
                let c =
                    gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
                let p = Plan::build(&c).unwrap().prerequisites;
                assert_eq!(p.len(), 1, "{p:?}");
                assert_eq!(p[0].kind, "table");
                continue;
            }
            let c = gpuform::check::check_file(&path, &Policy::default(), PriceTable::embedded());
            assert!(
                Plan::build(&c).unwrap().prerequisites.is_empty(),
                "{}",
                path.display()
            );
            assert!(
                !c.diagnostics
                    .iter()
                    .any(|d| d.rule == "shared-services-prerequisite")
            );
        }
    }
}

#[test]
fn cost_leaves_the_central_workspace_and_vault_to_their_owners() {
    let c = variant();
    let plan = Plan::build(&c).unwrap();
    let est = cost::estimate(
        c.spec.as_ref().unwrap(),
        &plan,
        "shared-services.yaml",
        c.size().unwrap(),
        c.auto_sized,
        &PriceBook::embedded(),
        &Options::default(),
    );
    for id in [
        "log-ingestion",
        "log-retention",
        "gpu-telemetry-ingestion",
        "kv-operations",
    ] {
        assert!(
            !est.lines.iter().any(|l| l.id == id),
            "{id} is billed to the spoke"
        );
    }
    // the log alert rules live in the spoke's resource group: still its cost
    assert_eq!(
        est.lines
            .iter()
            .filter(|l| l.id.starts_with("log-alert-gpu-"))
            .count(),
        4
    );
    let a = est.assumptions.join("\n");
    assert!(
        a.contains("central workspace log-platform-central") && a.contains("its owner's cost"),
        "{a}"
    );
    assert!(a.contains("existing vault kv-spoke-gpu"), "{a}");
}

#[test]
fn ids_are_matched_case_insensitively() {
    let upper = WS.to_ascii_uppercase();
    let c = shortvideo_with(&format!("    existingWorkspace: {upper}\n"), "");
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let plan = Plan::build(&c).unwrap();
    let ws = plan.monitoring.workspace.existing.as_ref().unwrap();
    assert_eq!(ws.name, "LOG-PLATFORM-CENTRAL");
    assert_eq!(ws.resource_group, "RG-PLATFORM-MANAGEMENT");
    // a child resource, or another type, is refused by the schema, at the field
    for bad in [format!("{WS}/tables/GpuTelemetry_CL"), KV.to_string()] {
        let c = shortvideo_with(&format!("    existingWorkspace: {bad}\n"), "");
        assert!(
            c.diagnostics.iter().any(|d| d.rule == "invalid-value"
                && d.pointer.as_deref() == Some("/spec/monitoring/existingWorkspace")),
            "{bad}: {:?}",
            c.diagnostics
        );
    }
}

#[test]
fn an_existing_vault_with_a_customer_managed_key_is_refused_and_cannot_be_downgraded() {
    let c = shortvideo_with(
        "",
        // (the example has diskEncryption: customerManagedKey)
        &format!("    existingKeyVault: {KV}\n"),
    );
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "existing-key-vault-cmk"),
        "{:?}",
        c.diagnostics
    );
    assert!(c.has_errors());
    let rule = gpuform::diag::rules::find("existing-key-vault-cmk").unwrap();
    assert!(!rule.overridable());
}

/// `existingActionGroups` is left out of the serialised spec when empty, so the generic
/// defaults walk (tests/validate_rules.rs) cannot compare it: compare it here.
#[test]
fn the_schema_default_of_existing_action_groups_is_the_model_default() {
    let schema = gpuform::spec::schema::schema_json();
    let d = schema
        .pointer("/$defs/monitoring/properties/existingActionGroups/default")
        .expect("a schema default");
    let model = gpuform::spec::model::Monitoring::default();
    assert_eq!(d, &serde_json::json!(model.existing_action_groups));
    assert!(model.existing_workspace.is_none());
    assert!(
        gpuform::spec::model::Security::default()
            .existing_key_vault
            .is_none()
    );
    // no default in the schema for the ids: absent means "create"
    for p in [
        "/$defs/monitoring/properties/existingWorkspace/default",
        "/$defs/security/properties/existingKeyVault/default",
    ] {
        assert!(schema.pointer(p).is_none(), "{p}");
    }
}
