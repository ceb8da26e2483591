//! The GPU telemetry table (issue 19/20): in every rendered template, the custom table, the data
//! collection rule's stream declaration and its transform's output agree with the schema
//! gpuform writes once (`plan::gpu_monitoring::COLUMNS`) and obey Azure's rules for custom tables
//! as the sources state them (`tests/fixtures/sources/custom-tables.json`: Learn's "_CL" suffix,
//! the required `TimeGenerated`, `outputStream` `Custom-<table>`, and the column types of the type
//! data), not as gpuform's facts restate them.

mod sources;

use gpuform::plan::gpu_monitoring::{COLUMNS, TABLE};
use serde_json::{Map, Value};
use sources::{objects, read_json, render_all, root};

fn excerpt() -> Value {
    read_json(&root().join("tests/fixtures/sources/custom-tables.json"))
}

fn types(key: &str) -> Vec<String> {
    excerpt()["types"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// The suffix Learn names ("Custom tables have a suffix of **_CL**").
fn learn_suffix() -> String {
    let t = excerpt()["learn"]["suffix"].as_str().unwrap().to_string();
    t.split("suffix of **")
        .nth(1)
        .unwrap()
        .split("**")
        .next()
        .unwrap()
        .to_string()
}

/// `[variables('x')]` resolved against the template's variables.
fn resolve(arm: &Value, v: &str) -> String {
    match v
        .strip_prefix("[variables('")
        .and_then(|r| r.strip_suffix("')]"))
    {
        Some(name) => arm["variables"][name].as_str().unwrap().to_string(),
        None => v.to_string(),
    }
}

fn columns(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["type"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The output column names of `source | project a = f(x), b, ...`.
fn projected(kql: &str) -> Vec<String> {
    let p = kql
        .split("| project ")
        .nth(1)
        .expect("the transform projects");
    p.split(',')
        .map(|i| i.split('=').next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn rendered_tables_streams_and_transforms_follow_the_schema_and_azures_rules() {
    let suffix = learn_suffix();
    assert_eq!(suffix, "_CL");
    let table_types =
        types("Microsoft.OperationalInsights/workspaces/tables@2025-02-01 Column.type");
    let stream_types =
        types("Microsoft.Insights/dataCollectionRules@2023-03-11 ColumnDefinition.type");
    let example_time = &excerpt()["learn"]["tableExample"]["columns"][0];
    let schema: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
    let mut tables = 0;
    for r in render_all() {
        let at = r.spec.display().to_string();
        let mut objs: Vec<(String, &Map<String, Value>)> = Vec::new();
        objects(&r.arm, String::new(), &mut objs);
        for (_, o) in objs.iter().filter(|(_, o)| {
            o.get("type").and_then(Value::as_str).is_some_and(|t| {
                t.eq_ignore_ascii_case("Microsoft.OperationalInsights/workspaces/tables")
            })
        }) {
            tables += 1;
            let name = o["name"].as_str().unwrap().rsplit('/').next().unwrap();
            assert!(name.ends_with(&suffix), "{at}: table {name}");
            assert_eq!(name, TABLE, "{at}");
            let cols = columns(&o["properties"]["schema"]["columns"]);
            assert_eq!(o["properties"]["schema"]["name"], name, "{at}");
            // TimeGenerated, typed as Learn's example types it
            assert!(
                cols.iter()
                    .any(|(n, t)| n == example_time["name"].as_str().unwrap()
                        && t == example_time["type"].as_str().unwrap()),
                "{at}: {cols:?}"
            );
            for (n, t) in &cols {
                assert!(table_types.contains(t), "{at}: column {n} type {t}");
            }
            let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, schema, "{at}: the table is the schema");
        }
        // the data collection rules that write to it
        for (_, o) in objs.iter().filter(|(_, o)| {
            o.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.Insights/dataCollectionRules"))
        }) {
            let p = &o["properties"];
            for flow in p["dataFlows"].as_array().unwrap() {
                let Some(out) = flow["outputStream"].as_str() else {
                    continue;
                };
                if !out.ends_with(&suffix) {
                    continue;
                }
                // Learn's example: outputStream `Custom-myTable_CL` for the table myTable_CL
                let example = &excerpt()["learn"]["dataFlowExample"];
                let prefix = example["outputStream"]
                    .as_str()
                    .unwrap()
                    .strip_suffix("myTable_CL")
                    .unwrap()
                    .to_string();
                assert_eq!(out, format!("{prefix}{TABLE}"), "{at}");
                for s in flow["streams"].as_array().unwrap() {
                    let s = resolve(&r.arm, s.as_str().unwrap());
                    let decl = columns(&p["streamDeclarations"][&s]["columns"]);
                    for (n, t) in &decl {
                        assert!(
                            stream_types.contains(t),
                            "{at}: stream {s} column {n} type {t}"
                        );
                    }
                    // "columns includes the same columns you defined when you created the table"
                    let names: Vec<&str> = decl.iter().map(|(n, _)| n.as_str()).collect();
                    assert_eq!(names, schema, "{at}: stream {s}");
                    for (c, (n, t)) in COLUMNS.iter().zip(&decl) {
                        assert_eq!(
                            c.table_type.to_ascii_lowercase(),
                            t.to_ascii_lowercase(),
                            "{at}: {n}: the stream and the table type it differently"
                        );
                    }
                }
                let kql = flow["transformKql"].as_str().unwrap();
                assert_eq!(projected(kql), schema, "{at}: transform {kql}");
            }
        }
    }
    assert!(tables > 0, "no rendered custom table");
}

#[test]
fn the_checks_catch_a_wrong_transform_and_a_wrong_type() {
    assert_eq!(
        projected("source | project TimeGenerated = todatetime(TimeGenerated), Computer"),
        vec!["TimeGenerated", "Computer"]
    );
    assert!(
        !types("Microsoft.Insights/dataCollectionRules@2023-03-11 ColumnDefinition.type")
            .contains(&"dateTime".to_string())
    );
    assert!(
        !types("Microsoft.OperationalInsights/workspaces/tables@2025-02-01 Column.type")
            .contains(&"datetime".to_string())
    );
}

#[test]
fn the_excerpt_types_are_the_shared_type_data() {
    // when the team's type data is beside the checkout, the excerpt's lists are its lists
    let shared = root().join("../shared/conformance/types");
    if !shared.is_dir() {
        return;
    }
    for (file, res, obj, key) in [
        (
            "microsoft.operationalinsights.json",
            "Microsoft.OperationalInsights/workspaces/tables@2025-02-01",
            "Column",
            "Microsoft.OperationalInsights/workspaces/tables@2025-02-01 Column.type",
        ),
        (
            "microsoft.insights.json",
            "Microsoft.Insights/dataCollectionRules@2023-03-11",
            "ColumnDefinition",
            "Microsoft.Insights/dataCollectionRules@2023-03-11 ColumnDefinition.type",
        ),
    ] {
        let d = read_json(&shared.join(file));
        let t = d["types"].as_array().unwrap();
        let deref = |v: &Value| {
            let i: usize = v["$ref"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            &t[i]
        };
        // the resource's body type, then every object type named `obj` reachable from it
        let start = &t[d["resources"][res]["body"].as_u64().unwrap() as usize];
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![start];
        let mut found = None;
        while let Some(x) = stack.pop() {
            if !seen.insert(x as *const Value) {
                continue;
            }
            if x["$type"] == "ObjectType" && x["name"] == obj {
                found = Some(x);
                break;
            }
            for k in ["body", "itemType"] {
                if x.get(k).is_some_and(|v| v.get("$ref").is_some()) {
                    stack.push(deref(&x[k]));
                }
            }
            if let Some(props) = x["properties"].as_object() {
                for p in props.values() {
                    stack.push(deref(&p["type"]));
                }
            }
            if let Some(els) = x["elements"].as_array() {
                for e in els {
                    stack.push(deref(e));
                }
            }
            if x.get("additionalProperties")
                .is_some_and(|v| v.get("$ref").is_some())
            {
                stack.push(deref(&x["additionalProperties"]));
            }
        }
        let col = found.unwrap_or_else(|| panic!("{res}: no {obj}"));
        let union = deref(&col["properties"]["type"]["type"]);
        let list: Vec<String> = union["elements"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| deref(e)["value"].as_str().map(str::to_string))
            .collect();
        assert_eq!(list, types(key), "{res}");
    }
}
