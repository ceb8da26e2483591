//! Azure Monitor names held against their sources, never against the code's own constants.
//!
//! - Every metric in `gpuform::facts::monitor::METRICS` is in Microsoft's supported-metrics
//!   tables (`metrics.json`) under its resource type, with the aggregations and dimensions it is
//!   used with; every log and metric category in `LOG_CATEGORIES` is in `log-categories.json` /
//!   `diagnosticSettingsMetricCategories`; the storage queue trigger is the one the autoscale
//!   "common metrics" page documents.
//! - In every rendered template: every autoscale `metricTrigger`, every metric alert criterion
//!   and every diagnostic setting (resource type from its `scope`) passes the same check.
//!
//! The files are `../shared/azure/` when the team's reference data is beside the checkout,
//! else the dated copies in `tests/fixtures/sources/`.

mod sources;

use std::collections::{BTreeMap, BTreeSet};

use gpuform::facts::monitor::{LOG_CATEGORIES, METRICS, STORAGE_QUEUE_LENGTH};
use serde_json::Value;
use sources::{objects, read_json, render_all, source_path, str_of};

struct Metric {
    aggregations: Vec<String>,
    dimensions: Vec<String>,
}

struct Known {
    /// (resource type, metric name), lowercase → the record (name compared exactly too)
    metrics: BTreeMap<(String, String), (String, Metric)>,
    /// (resource type, category), lowercase
    logs: BTreeSet<(String, String)>,
    /// resource type lowercase → metric categories of diagnostic settings
    metric_categories: BTreeMap<String, Vec<String>>,
    /// the autoscale special queue metrics: (metricName, metricNamespace, resource path)
    special: Vec<(String, String, String)>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_owned))
        .collect()
}

fn known() -> Known {
    let m = read_json(&source_path("azure/metrics.json", "metrics.json"));
    let mut metrics = BTreeMap::new();
    for r in m["metrics"].as_array().unwrap() {
        let t = r["resourceType"].as_str().unwrap().to_ascii_lowercase();
        let name = r["name"].as_str().unwrap();
        metrics.insert(
            (t, name.to_ascii_lowercase()),
            (
                name.to_owned(),
                Metric {
                    aggregations: strings(&r["aggregations"]),
                    dimensions: strings(&r["dimensions"]),
                },
            ),
        );
    }
    let mut metric_categories = BTreeMap::new();
    for r in m["diagnosticSettingsMetricCategories"].as_array().unwrap() {
        metric_categories.insert(
            r["resourceType"].as_str().unwrap().to_ascii_lowercase(),
            strings(&r["categories"]),
        );
    }
    let l = read_json(&source_path(
        "azure/log-categories.json",
        "log-categories.json",
    ));
    let logs = l["logCategories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["resourceType"].as_str().unwrap().to_ascii_lowercase(),
                r["category"].as_str().unwrap().to_ascii_lowercase(),
            )
        })
        .collect();
    let a = read_json(&sources::root().join("tests/fixtures/sources/autoscale-queue-metrics.json"));
    let special = a["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let uri = r["metricResourceUri"].as_str().unwrap();
            // what follows the parent resource (account or namespace) in the example URI
            let parts: Vec<&str> = uri.split('/').collect();
            let i = parts.iter().position(|p| *p == "providers").unwrap() + 4;
            (
                r["metricName"].as_str().unwrap().to_owned(),
                r["metricNamespace"].as_str().unwrap().to_owned(),
                parts[i..parts.len() - 1].join("/"),
            )
        })
        .collect();
    assert!(metrics.len() > 300, "metrics.json looks truncated");
    Known {
        metrics,
        logs,
        metric_categories,
        special,
    }
}

/// Is `metric` of `resource_type` documented, with `aggregation` and `dimensions`?
fn check_metric(
    k: &Known,
    resource_type: &str,
    metric: &str,
    aggregation: &str,
    dimensions: &[String],
) -> Result<(), String> {
    let key = (
        resource_type.to_ascii_lowercase(),
        metric.to_ascii_lowercase(),
    );
    let Some((name, m)) = k.metrics.get(&key) else {
        return Err(format!(
            "{resource_type}: metric {metric} is not in the supported-metrics table"
        ));
    };
    if name != metric {
        return Err(format!(
            "{resource_type}: metric {metric} is spelled {name}"
        ));
    }
    if !m
        .aggregations
        .iter()
        .any(|a| a.eq_ignore_ascii_case(aggregation))
    {
        return Err(format!(
            "{resource_type}/{metric}: aggregation {aggregation} is not listed ({:?})",
            m.aggregations
        ));
    }
    for d in dimensions {
        if !m.dimensions.iter().any(|x| x.eq_ignore_ascii_case(d)) {
            return Err(format!(
                "{resource_type}/{metric}: dimension {d} is not listed ({:?})",
                m.dimensions
            ));
        }
    }
    Ok(())
}

fn check_categories(
    k: &Known,
    resource_type: &str,
    logs: &[String],
    metrics: &[String],
) -> Result<(), String> {
    let t = resource_type.to_ascii_lowercase();
    for c in logs {
        if !k.logs.contains(&(t.clone(), c.to_ascii_lowercase())) {
            return Err(format!(
                "{resource_type}: log category {c} is not documented"
            ));
        }
    }
    let known = k.metric_categories.get(&t).cloned().unwrap_or_default();
    for c in metrics {
        if !known.iter().any(|x| x.eq_ignore_ascii_case(c)) {
            return Err(format!(
                "{resource_type}: metric category {c} is not one of {known:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn the_checker_refuses_what_the_tables_do_not_list() {
    let k = known();
    let none: &[String] = &[];
    assert!(
        check_metric(
            &k,
            "Microsoft.ServiceBus/namespaces",
            "ActiveMessages",
            "Average",
            &["EntityName".into()]
        )
        .is_ok()
    );
    assert!(
        check_metric(
            &k,
            "Microsoft.ServiceBus/namespaces",
            "ActiveMessage",
            "Average",
            none
        )
        .is_err()
    );
    assert!(
        check_metric(
            &k,
            "Microsoft.ServiceBus/namespaces",
            "activemessages",
            "Average",
            none
        )
        .is_err()
    );
    assert!(
        check_metric(
            &k,
            "Microsoft.ServiceBus/namespaces",
            "ActiveMessages",
            "Average",
            &["Queue".into()]
        )
        .is_err()
    );
    assert!(
        check_categories(
            &k,
            "Microsoft.KeyVault/vaults",
            &["AuditEvent".into()],
            &["AllMetrics".into()]
        )
        .is_ok()
    );
    assert!(check_categories(&k, "Microsoft.KeyVault/vaults", &["Audit".into()], none).is_err());
    assert!(
        check_categories(
            &k,
            "Microsoft.Storage/storageAccounts/queueServices",
            none,
            &["AllMetrics".into()]
        )
        .is_err()
    );
}

#[test]
fn every_metric_and_category_in_the_facts_layer_is_documented() {
    let k = known();
    let mut problems = Vec::new();
    for m in METRICS {
        let dims: Vec<String> = m.dimensions.iter().map(|d| d.to_string()).collect();
        for a in m.aggregations {
            if let Err(e) = check_metric(&k, m.namespace, m.metric, a, &dims) {
                problems.push(e);
            }
        }
        assert!(!m.source.assumption && m.source.what.contains("supported-metrics"));
    }
    for e in LOG_CATEGORIES {
        let logs: Vec<String> = e.log_categories.iter().map(|c| c.to_string()).collect();
        let metrics: Vec<String> = e.metric_categories.iter().map(|c| c.to_string()).collect();
        if let Err(p) = check_categories(&k, e.resource_type, &logs, &metrics) {
            problems.push(p);
        }
        assert!(!e.source.assumption && e.source.what.contains("supported-logs"));
    }
    let s = STORAGE_QUEUE_LENGTH;
    assert!(
        k.special.contains(&(
            s.metric.to_owned(),
            s.namespace.to_owned(),
            s.resource_path.to_owned()
        )),
        "{s:?} is not the documented storage queue trigger ({:?})",
        k.special
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The resource type a diagnostic setting's `scope` names: `NS/type/name[/child/name…]`,
/// literally or inside `format('…', …)`.
fn scope_type(scope: &str) -> Option<String> {
    let s = scope
        .strip_prefix("[format('")
        .map(|r| r.split('\'').next().unwrap_or_default())
        .unwrap_or(scope);
    let parts: Vec<&str> = s.split('/').collect();
    if parts.len() < 3 || parts.len().is_multiple_of(2) || !parts[0].contains('.') {
        return None;
    }
    let mut t = vec![parts[0]];
    t.extend(parts[1..].iter().step_by(2));
    Some(t.join("/"))
}

fn dimension_names(v: Option<&Value>, key: &str) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| d[key].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn scopes_name_their_resource_type() {
    assert_eq!(
        scope_type("[format('Microsoft.KeyVault/vaults/{0}', variables('vaultName'))]").as_deref(),
        Some("Microsoft.KeyVault/vaults")
    );
    assert_eq!(
        scope_type("Microsoft.Storage/storageAccounts/st/queueServices/default").as_deref(),
        Some("Microsoft.Storage/storageAccounts/queueServices")
    );
    assert_eq!(scope_type("[resourceId('x')]"), None);
}

#[test]
fn every_rendered_metric_and_diagnostic_category_is_documented() {
    let k = known();
    let (mut triggers, mut criteria, mut settings) = (0, 0, 0);
    let mut problems = BTreeSet::new();
    for r in render_all() {
        let mut objs = Vec::new();
        objects(&r.arm, "$".into(), &mut objs);
        let at = |path: &str, e: String| format!("{} {path}: {e}", r.spec.display());
        for (path, m) in &objs {
            if let Some(Value::Object(t)) = m.get("metricTrigger") {
                triggers += 1;
                let name = str_of(t, "metricName").unwrap_or_default();
                let ns = str_of(t, "metricNamespace").unwrap_or_default();
                let agg = str_of(t, "timeAggregation").unwrap_or_default();
                let stat = str_of(t, "statistic").unwrap_or_default();
                if ns.is_empty() {
                    let uri = str_of(t, "metricResourceUri").unwrap_or_default();
                    let ok = k
                        .special
                        .iter()
                        .any(|(n, _, p)| n == name && uri.contains(&format!("/{p}/")));
                    if !ok {
                        problems.insert(at(path, format!("autoscale metric {name} without a namespace is not a documented special metric ({uri})")));
                    }
                } else if app_insights_custom(ns) {
                    // a custom metric gpuform's collector sends to Application Insights: autoscale
                    // reads those only in the namespaces Microsoft's page names (serving_gpu.rs
                    // holds the name against what the collector sends)
                    let uri = str_of(t, "metricResourceUri").unwrap_or_default();
                    if !uri.contains("Microsoft.Insights/components") {
                        problems.insert(at(path, format!("custom metric {name} in {ns} not read from an Application Insights component ({uri})")));
                    }
                } else {
                    let dims = dimension_names(t.get("dimensions"), "DimensionName");
                    for a in [agg, stat] {
                        if let Err(e) = check_metric(&k, ns, name, a, &dims) {
                            problems.insert(at(path, e));
                        }
                    }
                }
            }
            if str_of(m, "criterionType") == Some("StaticThresholdCriterion") {
                criteria += 1;
                let dims = dimension_names(m.get("dimensions"), "name");
                if let Err(e) = check_metric(
                    &k,
                    str_of(m, "metricNamespace").unwrap_or_default(),
                    str_of(m, "metricName").unwrap_or_default(),
                    str_of(m, "timeAggregation").unwrap_or_default(),
                    &dims,
                ) {
                    problems.insert(at(path, e));
                }
            }
            if str_of(m, "type")
                .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.Insights/diagnosticSettings"))
            {
                settings += 1;
                let scope = str_of(m, "scope").unwrap_or_default();
                let Some(t) = scope_type(scope) else {
                    problems.insert(at(
                        path,
                        format!("diagnostic setting scope {scope} names no resource type"),
                    ));
                    continue;
                };
                let p = &m["properties"];
                let cats = |k: &str, f: &str| -> Vec<String> {
                    p[k].as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|x| x[f].as_str().map(str::to_owned))
                        .collect()
                };
                let groups = cats("logs", "categoryGroup");
                if let Some(g) = groups
                    .iter()
                    .find(|g| !["allLogs", "audit"].contains(&g.as_str()))
                {
                    problems.insert(at(path, format!("{t}: category group {g}")));
                }
                if let Err(e) = check_categories(
                    &k,
                    &t,
                    &cats("logs", "category"),
                    &cats("metrics", "category"),
                ) {
                    problems.insert(at(path, e));
                }
            }
        }
    }
    assert!(
        triggers >= 20 && criteria >= 30 && settings >= 30,
        "{triggers} triggers, {criteria} criteria, {settings} settings: the scan is broken"
    );
    assert!(
        problems.is_empty(),
        "metrics and categories not in the sources:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The dev box's missing-telemetry alert reads the agents' heartbeat table as "the VM runs":
/// the table's name and the one-a-minute rate are the Learn page's (dated excerpt).
#[test]
fn the_heartbeat_fact_is_the_learn_pages() {
    use gpuform::facts::monitor::HEARTBEAT;
    let src = read_json(&source_path("azure/heartbeat.json", "heartbeat.json"));
    let text: Vec<&str> = src["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    let all = text.join("\n");
    assert!(
        all.contains(&format!("\n{}\n| where", HEARTBEAT.table)),
        "{all}"
    );
    assert_eq!(HEARTBEAT.every_minutes, 1);
    assert!(all.contains("generate Heartbeat event every minute"));
    assert!(HEARTBEAT.source.what.contains(src["url"].as_str().unwrap()));
    assert!(!HEARTBEAT.source.assumption);
    // the rendered dev-box rule reads that table
    let devbox = render_all()
        .into_iter()
        .filter(|r| {
            let arm = r.arm.to_string();
            arm.contains("gpu-telemetry-missing")
                && arm.contains(&format!("toscalar({}", HEARTBEAT.table))
                && r.bicep.contains(&format!("toscalar({}", HEARTBEAT.table))
        })
        .count();
    assert!(
        devbox > 0,
        "no rendered dev box with the missing-telemetry alert"
    );
}

/// The built-in DCR-association definitions, one per cloud, held against the files of
/// Azure/azure-policy (the dated excerpt `tests/fixtures/sources/dcr-association-policy.json`:
/// name, version, regions, roles of the public and the Azure Government copy). 21Vianet has no
/// copy in the repository, so gpuform knows none there.
#[test]
fn each_clouds_dcr_association_definition_is_its_file_in_azure_policy() {
    use gpuform::facts::monitoring::{DCRA_VM_LINUX, DCRA_VM_WINDOWS};
    let doc = sources::read_json(
        &sources::root().join("tests/fixtures/sources/dcr-association-policy.json"),
    );
    let commit = doc["commit"].as_str().unwrap();
    let mut seen = 0;
    for d in doc["definitions"].as_array().unwrap() {
        let s = |k: &str| d[k].as_str().unwrap();
        let def = if s("os") == "Linux" {
            DCRA_VM_LINUX
        } else {
            DCRA_VM_WINDOWS
        };
        assert_eq!(def.id, s("name"));
        assert_eq!(def.display_name, s("displayName"));
        let c = def
            .in_cloud(s("cloud"))
            .unwrap_or_else(|| panic!("{} {}: no definition", s("cloud"), s("os")));
        assert_eq!(c.version, s("version"), "{} {}", s("cloud"), s("os"));
        let want: Vec<&str> = d["locations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert_eq!(c.locations, want.as_slice(), "{} {}", s("cloud"), s("os"));
        assert!(
            c.source.what.contains(s("path")) && c.source.what.contains(commit),
            "{}",
            c.source.what
        );
        let roles: Vec<String> = d["roleDefinitionIds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().rsplit('/').next().unwrap().to_string())
            .collect();
        assert_eq!(def.role_ids, roles.as_slice());
        seen += 1;
    }
    assert_eq!(seen, 4);
    // the regions issue 38 names: in the public copy now, and the Government copy's own
    for r in ["indonesiacentral", "malaysiawest", "newzealandnorth"] {
        assert!(DCRA_VM_LINUX.acts_in("AzureCloud", r), "{r}");
    }
    assert!(DCRA_VM_LINUX.acts_in("AzureUSGovernment", "usgovvirginia"));
    assert!(!DCRA_VM_LINUX.acts_in("AzureCloud", "usgovvirginia"));
    assert!(DCRA_VM_LINUX.in_cloud("AzureChinaCloud").is_none());
}

/// Where the definition acts, a Flexible Linux pool is associated by it; where it does not, the
/// collector posts through the Logs Ingestion API. Azure Government's copy lists usgovvirginia,
/// so the US Government variant now takes the policy (before: the ingestion path, chosen on the
/// public copy's list).
#[test]
fn the_delivery_path_follows_the_pools_clouds_definition() {
    let rendered = sources::render_all();
    let arm = |name: &str| {
        &rendered
            .iter()
            .find(|r| r.spec.ends_with(name))
            .unwrap_or_else(|| panic!("{name} not rendered"))
            .arm
    };
    let has = |v: &Value, ty: &str| {
        v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["type"] == ty)
    };
    let usgov = arm("cloud-usgov.yaml");
    assert!(has(usgov, "Microsoft.Authorization/policyAssignments"));
    assert!(!usgov.to_string().contains("logsIngestion.endpoint"));
    let china = arm("cloud-china.yaml");
    assert!(!has(china, "Microsoft.Authorization/policyAssignments"));
}

/// Is `ns` a namespace in which Microsoft's autoscale page says custom Application Insights
/// metrics can drive autoscale? Read from the dated excerpt of autoscale-custom-metric.md in
/// tests/fixtures/sources/app-insights.json ("supported only for metrics published to
/// **Standard** and **Azure.ApplicationInsights** namespaces").
fn app_insights_custom(ns: &str) -> bool {
    let d = read_json(&sources::root().join("tests/fixtures/sources/app-insights.json"));
    let text = d["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "autoscale-namespaces")
        .and_then(|e| e["text"].as_str())
        .unwrap_or_default()
        .to_owned();
    let named: Vec<&str> = text
        .split("**")
        .skip(1)
        .step_by(2)
        .filter(|w| !w.contains(' '))
        .collect();
    assert!(named.contains(&"Azure.ApplicationInsights"), "{text}");
    ns != "Standard" && named.contains(&ns)
}
