//! A standby pool after its deployment, as Azure answers (issue 38), in the shapes of the dated
//! copies in `tests/fixtures/sources/standby-runtime-view.json`:
//!
//! - `GET {pool}`: the pool with the state the subscription holds ([`AzureFacts::pool_state`]);
//! - `GET {pool}/runtimeViews/latest`: after each change of state the provider needs `settle`
//!   reads before every VM is in the new state; before that they are on their way (`Creating`
//!   for a new pool, `Starting`, `Deallocating` or `Hibernating` after a change);
//! - `PATCH {pool}` (`StandbyVirtualMachinePools_Update`): a change between Deallocated and
//!   Hibernated is refused as Learn says Azure refuses it ([`AzureFacts::pool_transition_refusal`]);
//! - `PUT .../Microsoft.PolicyInsights/remediations/{name}`: refused while a remediation of that
//!   name is active ([`AzureFacts::start_remediation`]).

use std::path::PathBuf;

use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::FakeAzure;
use super::refuse::AzureFacts;

/// The dated copies.
pub fn sources() -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sources/standby-runtime-view.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// `/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{name}`.
pub fn pool_path(sub: &str, rg: &str, name: &str) -> String {
    format!(
        "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{name}"
    )
}

/// The runtime view with `size` VMs in `state` (in zone 1; the others empty), in the example's
/// shape.
pub fn view(id: &str, size: u64, state: &str) -> Value {
    let mut v = sources()["runtimeView"]["body"].clone();
    for (z, zone) in v["properties"]["instanceCountSummary"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        for c in zone["instanceCountsByState"].as_array_mut().unwrap() {
            let here = z == 0 && c["state"].as_str().unwrap().eq_ignore_ascii_case(state);
            c["count"] = json!(if here { size } else { 0 });
        }
    }
    v["id"] = json!(format!("{id}/runtimeViews/latest"));
    v["name"] = json!(id.rsplit('/').next().unwrap());
    v
}

struct RuntimeView {
    facts: AzureFacts,
    name: String,
    id: String,
    size: u64,
    settle: u32,
}

impl Respond for RuntimeView {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let Some(state) = self.facts.pool_state(&self.name) else {
            return ResponseTemplate::new(404).set_body_json(json!({"error": {
                "code": "ResourceNotFound",
                "message": format!("The Resource 'Microsoft.StandbyPool/standbyVirtualMachinePools/{}' under resource group was not found.", self.name)
            }}));
        };
        let (before, reads) = self.facts.pool_read(&self.name);
        let on_the_way = match (before, state.to_ascii_lowercase().as_str()) {
            (None, _) => "Creating",
            (Some(_), "running") => "Starting",
            (Some(_), "hibernated") => "Hibernating",
            (Some(_), _) => "Deallocating",
        };
        let now = if reads > self.settle {
            state.as_str()
        } else {
            on_the_way
        };
        ResponseTemplate::new(200).set_body_json(view(&self.id, self.size, now))
    }
}

struct PoolGet {
    facts: AzureFacts,
    name: String,
    id: String,
}

impl Respond for PoolGet {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        match self.facts.pool_state(&self.name) {
            Some(state) => ResponseTemplate::new(200).set_body_json(pool_body(&self.id, &state)),
            None => ResponseTemplate::new(404).set_body_json(json!({"error": {
                "code": "ResourceNotFound",
                "message": "The Resource was not found."
            }})),
        }
    }
}

fn pool_body(id: &str, state: &str) -> Value {
    json!({"id": id, "name": id.rsplit('/').next().unwrap(),
        "type": "Microsoft.StandbyPool/standbyVirtualMachinePools", "location": "westeurope", "tags": {},
        "properties": {"virtualMachineState": state, "provisioningState": "Succeeded",
            "elasticityProfile": {"maxReadyCapacity": 2, "minReadyCapacity": 1}}})
}

struct PoolPatch {
    facts: AzureFacts,
    name: String,
    id: String,
}

impl Respond for PoolPatch {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let Some(to) = body["properties"]["virtualMachineState"].as_str() else {
            let state = self.facts.pool_state(&self.name).unwrap_or_default();
            return ResponseTemplate::new(200).set_body_json(pool_body(&self.id, &state));
        };
        if let Some((code, message)) = self.facts.pool_transition_refusal(&self.name, to) {
            return ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"code": code, "message": message}}));
        }
        self.facts.set_pool_state(&self.name, to);
        ResponseTemplate::new(200).set_body_json(pool_body(&self.id, to))
    }
}

struct RemediationPut {
    facts: AzureFacts,
}

impl Respond for RemediationPut {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let id = request.url.path().to_string();
        let name = id.rsplit('/').next().unwrap().to_string();
        if let Err((code, message)) = self.facts.start_remediation(&name) {
            return ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"code": code, "message": message}}));
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let r = &sources()["remediation"];
        let mut answer = r["body"].clone();
        answer["id"] = json!(id);
        answer["name"] = json!(name);
        answer["properties"]["policyAssignmentId"] =
            body["properties"]["policyAssignmentId"].clone();
        if let Some(m) = body["properties"]["resourceDiscoveryMode"].as_str() {
            answer["properties"]["resourceDiscoveryMode"] = json!(m);
        }
        ResponseTemplate::new(r["status"].as_u64().unwrap() as u16).set_body_json(answer)
    }
}

/// Mount the pool `name` of `sub`/`rg` (the state held by `facts`), `size` VMs settling after
/// `settle` reads of the runtime view per change, and the remediations of the group.
pub fn mount(
    fake: &FakeAzure,
    facts: &AzureFacts,
    (sub, rg): (&str, &str),
    name: &str,
    size: u64,
    settle: u32,
) {
    let id = pool_path(sub, rg, name);
    fake.mount(
        Mock::given(method("GET"))
            .and(path(format!("{id}/runtimeViews/latest")))
            .respond_with(RuntimeView {
                facts: facts.clone(),
                name: name.into(),
                id: id.clone(),
                size,
                settle,
            })
            .with_priority(6),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(id.clone()))
            .respond_with(PoolGet {
                facts: facts.clone(),
                name: name.into(),
                id: id.clone(),
            })
            .with_priority(6),
    );
    fake.mount(
        Mock::given(method("PATCH"))
            .and(path(id.clone()))
            .respond_with(PoolPatch {
                facts: facts.clone(),
                name: name.into(),
                id,
            })
            .with_priority(6),
    );
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(format!(
                r"(?i)^/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft\.PolicyInsights/remediations/[^/]+$"
            )))
            .respond_with(RemediationPut {
                facts: facts.clone(),
            })
            .with_priority(6),
    );
}

/// A deployment PUT in the group is accepted and succeeds at once; its GET and operations
/// answer so.
pub fn accepting_deployments(fake: &FakeAzure, (sub, rg): (&str, &str)) {
    let re = format!(
        r"(?i)^/subscriptions/{sub}/resourcegroups/{rg}/providers/Microsoft\.Resources/deployments/[^/]+$"
    );
    let done = json!({"name": "d", "properties": {"provisioningState": "Succeeded", "mode": "Incremental", "outputs": {}}});
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(re.as_str()))
            .respond_with(ResponseTemplate::new(201).set_body_json(done.clone())),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(re.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_json(done)),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"(?i)^/subscriptions/{sub}/resourcegroups/{rg}/providers/Microsoft\.Resources/deployments/[^/]+/operations$"
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": []}))),
    );
}
