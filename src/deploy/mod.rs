//! `gpuform deploy`: the request (the rendered template byte for byte, its parameters, secure
//! parameters from the environment, a deterministic name), following the long-running
//! deployment with progress, what-if, and making failures actionable ([`errors`]).

// `ArmError` is built once per failed call (see crate::azure), never in a hot loop.
#![allow(clippy::result_large_err)]

pub mod alternates;
pub mod ask;
pub mod context;
pub mod day_two;
pub mod errors;
pub mod failover;
pub mod finished;
pub mod fixes;
pub mod gate;
pub mod landed;
pub mod pool;
pub mod preview;
pub mod progress;
pub mod report;
pub mod retry;
pub mod run;
pub mod stop;
pub mod whatif;

use std::time::Duration;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::azure::deployments::{Accepted, Operation, WhatIfResult};
use crate::azure::{Arm, ArmError, ErrorKind};
pub use finished::Finished;
use progress::{Progress, is_terminal};

/// A parameter the template needs that gpuform never writes to a file (`securestring` without
/// a default, e.g. the Windows `adminPassword`): its value comes from `env`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecureParam {
    pub name: String,
    pub env: String,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
}

/// `adminPassword` → `GPUFORM_ADMIN_PASSWORD`.
pub fn env_name(param: &str) -> String {
    let mut out = String::from("GPUFORM_");
    let mut prev_lower = false;
    for c in param.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push('_');
        }
    }
    out
}

/// Secure parameters of `template` without a default that `given` does not set.
pub fn secure_params(template: &Value, given: &Map<String, Value>) -> Vec<SecureParam> {
    let Some(params) = template.get("parameters").and_then(Value::as_object) else {
        return Vec::new();
    };
    params
        .iter()
        .filter(|(name, p)| {
            let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
            (ty.eq_ignore_ascii_case("securestring") || ty.eq_ignore_ascii_case("secureobject"))
                && p.get("defaultValue").is_none()
                && !given.contains_key(name.as_str())
        })
        .map(|(name, p)| SecureParam {
            name: name.clone(),
            env: env_name(name),
            min_length: p
                .get("minLength")
                .and_then(Value::as_u64)
                .map(|n| n as usize),
            max_length: p
                .get("maxLength")
                .and_then(Value::as_u64)
                .map(|n| n as usize),
        })
        .collect()
}

/// Why a secure parameter's value cannot be used (never containing the value).
pub fn check_secret(p: &SecureParam, value: Option<&str>) -> Result<(), String> {
    let Some(v) = value.filter(|v| !v.is_empty()) else {
        return Err(format!(
            "the template needs the secure parameter `{}`: set the environment variable {} (from a pipeline secret); gpuform never takes secrets on the command line",
            p.name, p.env
        ));
    };
    if is_pipeline_macro(v) {
        // Azure Pipelines leaves `$(NAME)` as is when the variable does not exist. Not even then
        // is the value printed: a real secret may look like one.
        return Err(format!(
            "{} holds what looks like an unexpanded pipeline macro `$(...)`: define that (secret) variable in the pipeline",
            p.env
        ));
    }
    let n = v.chars().count();
    if p.min_length.is_some_and(|m| n < m) || p.max_length.is_some_and(|m| n > m) {
        return Err(format!(
            "{} is {n} characters long; `{}` must be {}-{} characters",
            p.env,
            p.name,
            p.min_length.unwrap_or(0),
            p.max_length
                .map(|m| m.to_string())
                .unwrap_or_else(|| "any".into())
        ));
    }
    Ok(())
}

/// `$(NAME)` with a pipeline variable name inside (letters, digits, `_`, `.`, `-`).
fn is_pipeline_macro(v: &str) -> bool {
    v.strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .is_some_and(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        })
}

/// Everything sent to ARM, prepared once.
#[derive(Debug, Clone)]
pub struct Request {
    /// The rendered `azuredeploy.json`, byte for byte.
    pub template: String,
    /// The same, parsed.
    pub template_json: Value,
    /// `parameters` of the rendered `azuredeploy.parameters.json` (no secrets).
    pub parameters: Map<String, Value>,
    /// The deployment name.
    pub name: String,
}

impl Request {
    /// `parameters_file` is the rendered `azuredeploy.parameters.json`.
    pub fn new(
        spec_name: &str,
        template: String,
        parameters_file: &str,
        name: Option<&str>,
    ) -> Result<Self, String> {
        let template_json: Value = serde_json::from_str(&template)
            .map_err(|e| format!("the rendered template is not JSON: {e}"))?;
        let file: Value = serde_json::from_str(parameters_file)
            .map_err(|e| format!("the rendered parameters file is not JSON: {e}"))?;
        let parameters = file
            .get("parameters")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let name = match name {
            Some(n) => {
                check_name(n)?;
                n.to_string()
            }
            None => deployment_name(spec_name, &template, parameters_file),
        };
        Ok(Self {
            template,
            template_json,
            parameters,
            name,
        })
    }

    /// The request body of the PUT (and of what-if): the template text is embedded verbatim.
    /// `secrets` are (parameter, value) pairs added to the parameters.
    pub fn body(&self, secrets: &[(String, String)]) -> Vec<u8> {
        let mut params = self.parameters.clone();
        for (k, v) in secrets {
            params.insert(k.clone(), serde_json::json!({ "value": v }));
        }
        let params = serde_json::to_string(&Value::Object(params)).expect("JSON serialises");
        let mut out = String::with_capacity(self.template.len() + params.len() + 80);
        out.push_str(r#"{"properties":{"mode":"Incremental","template":"#);
        out.push_str(&self.template);
        out.push_str(r#","parameters":"#);
        out.push_str(&params);
        out.push_str("}}");
        out.into_bytes()
    }

    /// The name of the budget the template creates, when it has one and takes its start date
    /// as the `budgetStartDate` parameter.
    pub fn budget_name(&self) -> Option<String> {
        let t = &self.template_json;
        t.get("parameters")?.get("budgetStartDate")?;
        t.get("resources")?
            .as_array()?
            .iter()
            .find(|r| {
                r.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|ty| ty.eq_ignore_ascii_case("Microsoft.Consumption/budgets"))
            })
            .and_then(|r| r.get("name")?.as_str().map(str::to_string))
            .filter(|n| !n.starts_with('['))
    }

    /// Keep an existing budget's start date (Azure refuses to change it on a later month's
    /// redeployment). The deployment name does not change: it hashes the rendered files.
    pub fn keep_budget_start(&mut self, start: &str) {
        self.parameters.insert(
            "budgetStartDate".into(),
            serde_json::json!({ "value": start }),
        );
    }

    /// Pass `value` for the template parameter `name` (not part of the deployment name, which
    /// hashes the rendered files).
    pub fn set_parameter(&mut self, name: &str, value: Value) {
        self.parameters
            .insert(name.into(), serde_json::json!({ "value": value }));
    }

    /// Resources in the template (top level).
    pub fn resource_count(&self) -> usize {
        self.template_json
            .get("resources")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    /// Secure parameters the template needs that the rendered parameters do not set.
    pub fn secure_params(&self) -> Vec<SecureParam> {
        secure_params(&self.template_json, &self.parameters)
    }
}

/// Deployment names: 1-64 of letters, digits, `-`, `_`, `.`, `(`, `)` (ARM's rule).
pub fn check_name(n: &str) -> Result<(), String> {
    let ok = !n.is_empty()
        && n.chars().count() <= 64
        && n.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '(' | ')'))
        && !n.ends_with('.');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{n}` is not a deployment name: 1-64 letters, digits, -, _, ., ( or ), not ending in a period"
        ))
    }
}

/// `metadata.name-<8 hex>`: the name changes when the template or its (non-secret) parameters
/// do, and only then, so a re-run of the same spec re-applies the same deployment.
pub fn deployment_name(spec_name: &str, template: &str, parameters: &str) -> String {
    let mut h = Sha256::new();
    h.update(template.as_bytes());
    h.update([0u8]);
    h.update(parameters.as_bytes());
    let hex: String = h.finalize()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let base: String = spec_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(64 - 9)
        .collect();
    let base = base.trim_end_matches('.');
    format!("{base}-{hex}")
}

// ---------------------------------------------------------------------------------------------
// Following a deployment

/// How long to wait between polls.
#[derive(Debug, Clone, Copy)]
pub struct Polling {
    /// Without `Retry-After`.
    pub interval: Duration,
    /// Never wait longer than this, whatever `Retry-After` says.
    pub max_wait: Duration,
    /// Give up following after this many polls in a row failed (the deployment keeps running).
    pub max_failures: u32,
}

impl Default for Polling {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(5),
            max_wait: Duration::from_secs(60),
            max_failures: 8,
        }
    }
}

/// Poll the deployment until it ends, showing progress. Errors are failures to *follow* (the
/// deployment may still be running).
pub async fn follow(
    arm: &Arm,
    rg: &str,
    name: &str,
    accepted: &Accepted,
    polling: Polling,
    progress: &mut Progress,
) -> Result<Finished, ArmError> {
    let what = format!("read the status of deployment {name}");
    // the Azure-AsyncOperation URL stays the same for the whole operation; a Location may move
    let by_location = accepted.async_operation.is_none();
    let mut url = accepted
        .async_operation
        .clone()
        .or_else(|| accepted.location.clone());
    let mut wait = accepted.retry_after.unwrap_or(polling.interval);
    let mut failures = 0u32;
    let mut ops: Vec<Operation> = Vec::new();
    let initial = accepted
        .body
        .pointer("/properties/provisioningState")
        .and_then(Value::as_str)
        .unwrap_or("Accepted")
        .to_string();
    progress.update(&initial, &ops);
    loop {
        tokio::time::sleep(wait.min(polling.max_wait)).await;
        // `None`: the operation is over without saying how (a Location's empty 200/204)
        let status: Result<(Option<String>, Option<Duration>), ArmError> = match &url {
            Some(u) => match arm.poll(&what, u).await {
                Ok(p) => {
                    let state = p
                        .lro_status()
                        .or_else(|| {
                            p.body
                                .pointer("/properties/provisioningState")
                                .and_then(Value::as_str)
                        })
                        .map(str::to_string)
                        .or_else(|| (p.status == 202).then(|| "Running".to_string()));
                    if by_location && p.status == 202 && p.location.is_some() {
                        url = p.location;
                    }
                    Ok((state, p.retry_after))
                }
                Err(e) => Err(e),
            },
            None => arm.deployment(rg, name).await.map(|d| {
                (
                    Some(
                        d.properties
                            .provisioning_state
                            .unwrap_or_else(|| "Running".into()),
                    ),
                    None,
                )
            }),
        };
        let (state, retry_after) = match status {
            Ok(s) => {
                failures = 0;
                s
            }
            Err(e) if stops_following(&e) => return Err(e),
            Err(e) => {
                failures += 1;
                if failures >= polling.max_failures {
                    return Err(e);
                }
                progress.note(&format!(
                    "could not read the deployment status ({}); trying again",
                    e.summary()
                ));
                wait = polling.interval;
                continue;
            }
        };
        let Some(state) = state else {
            break; // the deployment itself says how it ended
        };
        match arm.operations(rg, name).await {
            Ok(o) => ops = o,
            Err(e) if stops_following(&e) => return Err(e),
            Err(_) => {} // the view just stays as it was
        }
        progress.update(&state, &ops);
        if is_terminal(&state) {
            break;
        }
        wait = retry_after.unwrap_or(polling.interval);
    }
    let deployment = retried(polling, || arm.deployment(rg, name)).await?;
    if let Ok(o) = arm.operations(rg, name).await {
        progress.update(
            deployment
                .properties
                .provisioning_state
                .as_deref()
                .unwrap_or("Unknown"),
            &o,
        );
        ops = o;
    }
    progress.finish();
    Ok(Finished {
        deployment,
        operations: ops,
    })
}

/// Errors that end following at once because trying again cannot help: settings, the
/// credential, TLS, a rejected token. Outages, timeouts, throttling and 5xx are tried again, up
/// to [`Polling::max_failures`] in a row.
fn stops_following(e: &ArmError) -> bool {
    matches!(
        e.kind,
        ErrorKind::Config | ErrorKind::Credential | ErrorKind::Tls
    ) || e.status == Some(401)
}

/// `call` until it succeeds, [`Polling::max_failures`] times at most.
async fn retried<T, F, Fut>(polling: Polling, mut call: F) -> Result<T, ArmError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, ArmError>>,
{
    let mut failures = 0u32;
    loop {
        match call().await {
            Ok(v) => return Ok(v),
            Err(e) if stops_following(&e) => return Err(e),
            Err(e) => {
                failures += 1;
                if failures >= polling.max_failures {
                    return Err(e);
                }
                tokio::time::sleep(polling.interval.min(polling.max_wait)).await;
            }
        }
    }
}

/// Poll a what-if until its answer: 202 + `Location` while it runs, then 200 with the result.
/// The result is at the `Location`, so that is what is polled (never `Azure-AsyncOperation`,
/// whose `{"status": ...}` has no changes).
/// Which of the dev box's disks (`names`, fixed by the spec) exist already in the resource group
/// `rg`: kept by `destroy --keep-data`, they must be attached, not created again (Azure answers
/// `ConflictingUserInput` to `FromImage` / `Empty` for a disk name that exists). One GET per
/// disk (`Microsoft.Compute/disks`, [`crate::facts::api::DISKS_API`]); 404 means absent.
pub async fn kept_disks(
    arm: &Arm,
    subscription: &str,
    rg: &str,
    names: &[String],
) -> Result<Vec<String>, ArmError> {
    let mut kept = Vec::new();
    for n in names {
        let id = format!(
            "/subscriptions/{subscription}/resourceGroups/{rg}/providers/Microsoft.Compute/disks/{n}"
        );
        if arm
            .get_resource(&id, crate::facts::api::DISKS_API)
            .await?
            .is_some()
        {
            kept.push(n.clone());
        }
    }
    Ok(kept)
}

pub async fn what_if(
    arm: &Arm,
    accepted: Accepted,
    polling: Polling,
) -> Result<WhatIfResult, ArmError> {
    let what = "read the what-if result";
    if what_if_done(accepted.status, &accepted.body) {
        return decode_what_if(accepted.body);
    }
    let Some(mut url) = accepted.location.or(accepted.async_operation) else {
        return Err(ArmError::new(
            ErrorKind::Decode,
            what,
            "ARM accepted the what-if request but gave no Location to poll",
        ));
    };
    let mut wait = accepted.retry_after.unwrap_or(polling.interval);
    let mut failures = 0u32;
    loop {
        tokio::time::sleep(wait.min(polling.max_wait)).await;
        match arm.poll(what, &url).await {
            Ok(p) if what_if_done(p.status, &p.body) => return decode_what_if(p.body),
            Ok(p) => {
                failures = 0;
                if let Some(n) = p.location {
                    url = n;
                }
                wait = p.retry_after.unwrap_or(polling.interval);
            }
            Err(e) if stops_following(&e) => return Err(e),
            Err(e) => {
                failures += 1;
                if failures >= polling.max_failures {
                    return Err(e);
                }
                wait = polling.interval;
            }
        }
    }
}

/// A 200 with a body whose `status`, if any, is final (`{"status": "Running"}` is not).
fn what_if_done(status: u16, body: &Value) -> bool {
    status == 200
        && !body.is_null()
        && body
            .get("status")
            .and_then(Value::as_str)
            .is_none_or(is_terminal)
}

fn decode_what_if(body: Value) -> Result<WhatIfResult, ArmError> {
    serde_json::from_value(body).map_err(|e| {
        ArmError::new(
            ErrorKind::Decode,
            "read the what-if result",
            format!("ARM's what-if answer is not in the documented shape: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_errors_a_retry_cannot_fix_stop_following() {
        let e = |kind, status| {
            let mut e = ArmError::new(kind, "read the status of deployment d", "x");
            e.status = status;
            e
        };
        for gone in [
            e(ErrorKind::Connection, None),
            e(ErrorKind::Timeout, None),
            e(ErrorKind::Http, Some(503)),
            e(ErrorKind::Http, Some(429)),
        ] {
            assert!(!stops_following(&gone), "{gone:?}");
        }
        for fatal in [
            e(ErrorKind::Credential, None),
            e(ErrorKind::Tls, None),
            e(ErrorKind::Config, None),
            e(ErrorKind::Http, Some(401)),
        ] {
            assert!(stops_following(&fatal), "{fatal:?}");
        }
    }

    #[test]
    fn a_what_if_answer_is_final_only_with_a_final_status() {
        assert!(!what_if_done(202, &Value::Null));
        assert!(!what_if_done(200, &Value::Null));
        assert!(!what_if_done(200, &json!({"status": "Running"})));
        assert!(what_if_done(
            200,
            &json!({"status": "Succeeded", "properties": {}})
        ));
        assert!(what_if_done(200, &json!({"status": "Failed", "error": {}})));
        assert!(what_if_done(200, &json!({"properties": {"changes": []}})));
    }

    #[test]
    fn env_names_for_secure_parameters() {
        assert_eq!(env_name("adminPassword"), "GPUFORM_ADMIN_PASSWORD");
        assert_eq!(env_name("sqlAdminPassword2"), "GPUFORM_SQL_ADMIN_PASSWORD2");
    }

    #[test]
    fn only_secure_parameters_without_values_are_asked_for() {
        let t = json!({"parameters": {
            "location": {"type": "string"},
            "adminPassword": {"type": "securestring", "minLength": 12, "maxLength": 123},
            "withDefault": {"type": "secureString", "defaultValue": ""},
            "given": {"type": "securestring"}
        }});
        let given: Map<String, Value> =
            serde_json::from_value(json!({"given": {"value": "x"}})).unwrap();
        let s = secure_params(&t, &given);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].env, "GPUFORM_ADMIN_PASSWORD");
        assert!(
            check_secret(&s[0], None)
                .unwrap_err()
                .contains("set the environment variable GPUFORM_ADMIN_PASSWORD")
        );
        let short = check_secret(&s[0], Some("Sh0rt!")).unwrap_err();
        assert!(
            short.contains("6 characters") && !short.contains("Sh0rt!"),
            "{short}"
        );
        assert!(check_secret(&s[0], Some("Long-enough-1")).is_ok());
        let macro_ = check_secret(&s[0], Some("$(GPUFORM_ADMIN_PASSWORD)")).unwrap_err();
        assert!(
            macro_.contains("unexpanded pipeline macro")
                && !macro_.contains("GPUFORM_ADMIN_PASSWORD)"),
            "{macro_}"
        );
        // a value that only looks like a macro is never echoed either
        let e = check_secret(&s[0], Some("$(Pa55w0rdXyz)")).unwrap_err();
        assert!(!e.contains("Pa55w0rd"), "{e}");
        // and one that cannot be a macro (`!` is no variable name) is a password
        assert!(check_secret(&s[0], Some("$(Pa55w0rd!xyz)")).is_ok());
    }

    #[test]
    fn names_are_deterministic_and_follow_the_content() {
        let a = deployment_name("shortvideo-transcode", "{}\n", "{\"p\":1}");
        assert_eq!(
            a,
            deployment_name("shortvideo-transcode", "{}\n", "{\"p\":1}")
        );
        assert_ne!(
            a,
            deployment_name("shortvideo-transcode", "{}\n", "{\"p\":2}")
        );
        assert!(
            a.starts_with("shortvideo-transcode-") && a.len() == "shortvideo-transcode-".len() + 8
        );
        let long = deployment_name(&"x".repeat(100), "t", "p");
        assert_eq!(long.len(), 64);
        assert!(check_name(&long).is_ok());
        assert!(check_name("bad name").is_err());
        assert!(check_name("ends.").is_err());
    }

    #[test]
    fn the_body_embeds_the_template_verbatim() {
        let template = "{\n  \"resources\": []\n}\n".to_string();
        let r = Request::new(
            "n",
            template.clone(),
            "{\"parameters\": {\"location\": {\"value\": \"eastus\"}}}",
            None,
        )
        .unwrap();
        let body = String::from_utf8(r.body(&[("adminPassword".into(), "p\"w".into())])).unwrap();
        assert!(body.starts_with(&format!(
            "{{\"properties\":{{\"mode\":\"Incremental\",\"template\":{template},\"parameters\":"
        )));
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["properties"]["parameters"]["adminPassword"]["value"],
            "p\"w"
        );
        assert_eq!(v["properties"]["parameters"]["location"]["value"], "eastus");
        assert_eq!(v["properties"]["mode"], "Incremental");
    }
}
