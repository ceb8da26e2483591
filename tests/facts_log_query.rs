//! The Logs Query API (issue 19/20): where `status` sends its workspace query, held against
//! Microsoft's sources (`tests/fixtures/sources/log-query-api.json`: Learn's request, response
//! and access pages, the retirement of the route through Resource Manager, the Azure CLI's
//! hosts and token scopes per cloud), never against gpuform's own constants. The client runs
//! through a transport that records the URL it meant to reach (real cloud hosts) and sends it
//! to the fake of `tests/common/log_query.rs` instead.

mod common;

use common::SUB;
use common::log_query::{excerpt, learn_version, mount, table, workspace_versions};
use common::recorder::connect;
use gpuform::azure::{Cloud, Op};
use serde_json::{Value, json};
use url::Url;
use wiremock::MockServer;

const GUID: &str = "6f0c2b1e-4d3a-4c5b-8e7f-9a0b1c2d3e4f";

fn workspace_id() -> String {
    format!(
        "/subscriptions/{SUB}/resourceGroups/rg-gpu/providers/Microsoft.OperationalInsights/workspaces/log-gpu"
    )
}

/// The query URL the sources give for `cloud`: Learn's endpoint template for the public cloud,
/// the Azure CLI's host for the others, with Learn's version and the workspace GUID.
fn expected_url(cloud: Cloud) -> String {
    let doc = excerpt();
    let template = doc["requestFormat"]["endpoint"].as_str().unwrap();
    let template = template.split('?').next().unwrap();
    let template = match cloud {
        Cloud::AzureCloud => template.to_string(),
        c => {
            let host = doc["clouds"]["endpoints"][c.name()].as_str().unwrap();
            template.replace("https://api.loganalytics.azure.com", host)
        }
    };
    template
        .replace("{apiVersion}", &learn_version())
        .replace("{workspaceId}", GUID)
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn the_query_goes_where_the_sources_say_in_every_cloud() {
    for cloud in Cloud::ALL {
        run(async {
            let server = MockServer::start().await;
            let answer = excerpt()["responseFormat"]["example"].clone();
            mount(&server, &workspace_id(), GUID, answer).await;
            let (arm, seen) = connect(&server, cloud).await;
            let rows = arm
                .log_query(&workspace_id(), "GpuTelemetry_CL | take 1", "PT15M", 10)
                .await
                .unwrap_or_else(|e| panic!("{cloud}: {e}"));
            // Learn's response example, read as rows keyed by column
            assert_eq!(rows.len(), 4, "{cloud}");
            assert_eq!(rows[0]["Category"], "Administrative");
            assert_eq!(rows[0]["count_"], 20839);
            let seen = seen.lock().unwrap().clone();
            let query: Vec<&(Url, Vec<u8>)> = seen
                .iter()
                .filter(|(u, _)| u.path().ends_with("/query"))
                .collect();
            assert_eq!(query.len(), 1, "{cloud}: {seen:?}");
            let (url, body) = query[0];
            assert_eq!(url.as_str(), expected_url(cloud), "{cloud}");
            // body: only the parameters Learn's table lists, `timespan` an ISO 8601 duration
            let body: Value = serde_json::from_slice(body).unwrap();
            let params = excerpt()["requestFormat"]["parameters"].clone();
            for k in body.as_object().unwrap().keys() {
                assert!(
                    params.get(k).is_some(),
                    "{cloud}: body key {k} is not a parameter"
                );
            }
            assert_eq!(body["timespan"], "PT15M");
            // the logs token was asked for the audience the CLI uses in that cloud
            let scope = excerpt()["clouds"]["scopes"][cloud.name()]
                .as_str()
                .unwrap()
                .to_string();
            let enc: String = url::form_urlencoded::byte_serialize(scope.as_bytes()).collect();
            assert!(
                seen.iter()
                    .any(|(u, b)| u.path().ends_with("/oauth2/v2.0/token")
                        && String::from_utf8_lossy(b).contains(&enc)),
                "{cloud}: no token request for {scope}"
            );
            // the workspace GUID came from ARM with a version the type data lists
            let ws = seen
                .iter()
                .find(|(u, _)| u.path().eq_ignore_ascii_case(&workspace_id()))
                .unwrap();
            assert_eq!(
                ws.0.host_str(),
                Url::parse(cloud.arm_endpoint()).unwrap().host_str()
            );
            let v =
                ws.0.query_pairs()
                    .find(|(k, _)| k == "api-version")
                    .unwrap()
                    .1
                    .into_owned();
            assert!(workspace_versions().contains(&v), "{v}");
        });
    }
}

#[test]
fn the_version_is_the_one_learn_names_and_beta_is_retired() {
    assert_eq!(gpuform::facts::api::LOG_QUERY_API, learn_version());
    let doc = excerpt();
    assert!(
        doc["accessApi"]["beta"]
            .as_str()
            .unwrap()
            .contains("deprecated")
    );
    assert_ne!(learn_version(), "beta");
}

#[test]
fn the_retired_route_through_resource_manager_is_refused() {
    // what the code sent before: POST {workspace}/api/query?api-version=2017-10-01 through ARM
    let doc = excerpt();
    assert!(
        doc["migrateBatchAndBeta"]["armNote"]
            .as_str()
            .unwrap()
            .contains("should migrate to the Logs Query API `v1`")
    );
    run(async {
        let server = MockServer::start().await;
        mount(&server, &workspace_id(), GUID, json!({"tables": []})).await;
        let (arm, _) = connect(&server, Cloud::AzureCloud).await;
        for route in ["api/query", "query"] {
            let url = arm
                .client
                .url(&format!("{}/{route}", workspace_id()), "2017-10-01", &[]);
            let err = arm
                .client
                .post_json::<Value>(&Op::new("query", "-"), url, &json!({"query": "x"}))
                .await
                .unwrap_err();
            assert_eq!(err.status, Some(404), "{route}: {err}");
        }
    });
}

#[test]
fn every_cloud_has_the_sources_endpoint_and_scope() {
    let doc = excerpt();
    for cloud in Cloud::ALL {
        assert_eq!(
            cloud.logs_query_scope(),
            doc["clouds"]["scopes"][cloud.name()].as_str().unwrap(),
            "{cloud}"
        );
        let expected = match cloud {
            // Learn: `api.loganalytics.io` "is being replaced by `api.loganalytics.azure.com`"
            Cloud::AzureCloud => "https://api.loganalytics.azure.com".to_string(),
            c => doc["clouds"]["endpoints"][c.name()]
                .as_str()
                .unwrap()
                .to_string(),
        };
        assert_eq!(
            cloud.logs_query_endpoint().trim_end_matches('/'),
            expected,
            "{cloud}"
        );
    }
    assert!(
        doc["clouds"]["publicReplacement"]
            .as_str()
            .unwrap()
            .contains("replaced by `api.loganalytics.azure.com`")
    );
}

/// The cells of a workspace's answer as the REST specification's example writes them
/// (`restSpecExample`: a `datetime` as RFC 3339 UTC with `Z`, a `long` as a JSON string): the
/// pull (`simulate -g`) reads the per-minute table and the totals in that form, with the
/// example's own cells put in gpuform's columns, not gpuform's way of writing them.
#[test]
fn the_pull_reads_the_cells_as_the_rest_specifications_example_writes_them() {
    use gpuform::simulate::measured::Counts;
    use gpuform::simulate::pull::{add_minutes, totals};
    let ex = &excerpt()["restSpecExample"]["tables"][0];
    let cols = ex["columns"].as_array().unwrap();
    let row = ex["rows"][0].as_array().unwrap();
    let cell = |ty: &str, nth: usize| -> Value {
        let i = cols
            .iter()
            .enumerate()
            .filter(|(_, c)| c["type"] == ty)
            .nth(nth)
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("the example has no {nth}th {ty} column"));
        row[i].clone()
    };
    let (generated, start) = (cell("datetime", 0), cell("datetime", 1));
    let one = cell("long", 0);
    assert!(one.is_string(), "the example writes a long as a string");
    let tot = totals(
        "log-gpu",
        &table(
            &[
                ("Rows", "long"),
                ("Computers", "long"),
                ("Impossible", "long"),
            ],
            vec![json!([one, one, "0"])],
        ),
    )
    .unwrap()
    .expect("one row in the window");
    assert_eq!((tot.rows, tot.vms, tot.impossible), (1, 1, 0));
    // the window starts at the example's StartTime; its TimeGenerated is 59 min 59 s later
    let t0: jiff::Timestamp = start.as_str().unwrap().parse().unwrap();
    let mut counts = Counts::default();
    add_minutes(
        &mut counts,
        "log-gpu",
        t0,
        60,
        &table(
            &[
                ("Minute", "datetime"),
                ("Instances", "long"),
                ("Idle", "long"),
                ("Samples", "long"),
            ],
            vec![
                json!([start, one, "0", one]),
                json!([generated, one, one, one]),
            ],
        ),
    )
    .unwrap();
    assert_eq!(counts.per_minute.get(&0), Some(&(1, 0)));
    assert_eq!(counts.per_minute.get(&59), Some(&(1, 1)));
    assert_eq!(counts.rows_in_window, 2);
}
