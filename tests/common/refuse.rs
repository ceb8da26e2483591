//! Opt-in: the fake ARM refuses a deployment whose template names an Azure fact Azure does not
//! know, the way Azure answers it. `FakeAzure::refuse_what_azure_refuses()` mounts it ahead of
//! a test's own deployment mocks; a template with nothing to refuse falls through to them.
//!
//! What is refused, with the error Azure gives (code and message shape from these sources, read
//! 2026-12-03):
//! - a role assignment whose role definition GUID is not a built-in role
//!   (`../shared/azure/builtin-roles.json`): `RoleDefinitionDoesNotExist`, "The specified role
//!   definition with ID '<guid>' does not exist." (Azure/azure-powershell RoleDefinition tests;
//!   deployment failures quoted in public Bicep docs);
//! - a resource type/API version pair the type data does not list
//!   (`../shared/conformance/types/all-versions.json`): `NoRegisteredProviderFound`, "No
//!   registered resource provider found for location '<loc>' and API version '<v>' for type
//!   '<type>'. The supported api-versions are '<list>'. The supported locations are '<list>'."
//!   (github.com/Azure/ResourceModules/issues/454, github.com/Azure/bicep-types-az/issues/2319);
//!   an unknown type: `InvalidResourceType`, "The resource type '<type>' could not be found in
//!   the namespace '<ns>' for api version '<v>'." (Azure/ARO-RP frontend tests);
//! - a VM extension whose publisher/type is not published (`../shared/azure/extensions.json`):
//!   `ArtifactNotFound`, "Extension with publisher '<p>', type '<t>', and type handler version
//!   '<v>' could not be found in the extension repository."
//!   (github.com/MicrosoftDocs/azure-docs/issues/10862, github.com/Azure/azure-quickstart-templates/issues/763);
//! - a resource of a namespace the subscription has not registered ([`AzureFacts::unregistered`],
//!   e.g. `Microsoft.StandbyPool` before `az provider register`): `MissingSubscriptionRegistration`,
//!   "The subscription is not registered to use namespace '<ns>'. See https://aka.ms/rps-not-found
//!   for how to register subscriptions." (Learn, "Resolve errors for resource provider
//!   registration", https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-register-resource-provider).
//! - serving (issue 36, `../shared/azure/serving.md`, read 2026-12-05): a private-only
//!   Application Gateway (no public frontend IP) in a subscription without the
//!   `EnableApplicationGatewayNetworkIsolation` registration ([`AzureFacts::without_feature`]):
//!   `ApplicationGatewayFrontendIpCannotHavePublicIpAndSubnet`, "Application Gateway without
//!   Public IP is not supported for the selected SKU tier Standard_v2" (serving.md B1, the
//!   SupportArticles-docs error page); a Basic load balancer (retired 2025-09-30, and no Flexible
//!   scale set takes one: serving.md A3) and a load balancer HTTP probe on a port Azure does not
//!   probe (serving.md A6). Azure's own code and text for those two are NOT FOUND in the sources:
//!   the fake answers ARM's generic `BadRequest` with the sources' sentence, so a test can see the
//!   refusal but must not match a code Azure may not use.
//!
//! - day two (stateful: what the subscription already holds, [`AzureFacts::with_active_remediation`],
//!   [`AzureFacts::tracking_remediations`], [`AzureFacts::with_role_assignment`],
//!   [`AzureFacts::with_standby_pool`]; codes and messages from the dated excerpts in
//!   `tests/fixtures/sources/deploy-refusals.json`, read 2026-12-05):
//!   - a `Microsoft.PolicyInsights/remediations` whose name is an active remediation's:
//!     `InvalidUpdateRemediationRequest`, "The request to update remediation '<name>' is invalid.
//!     A remediation may not be changed or replaced while it is active." (Azure/azure-policy#1234);
//!   - a role assignment of the same role to the same principal at the same scope as an existing
//!     one under another name: `RoleAssignmentExists`, "The role assignment already exists. The ID
//!     of the existing role assignment is <id without dashes>." (HTTP 409 in the reports);
//!   - a standby pool whose `virtualMachineState` goes from Deallocated to Hibernated or back:
//!     Learn's "Transitioning between a Stopped (deallocated) state and a hibernated state is not
//!     supported" (standby-pools-update-delete); its code is an assumption (`BadRequest`).
//!
//! Azure reports the role and extension errors from the failed resource operation (the
//! deployment ends `Failed` with `DeploymentFailed` around them) and the API version error at
//! validation or from the operation; the fake refuses all three when the deployment is
//! submitted (400 `InvalidTemplateDeployment` with the error inside, as the validation
//! procedure answers), which is the earliest point and keeps the tests short.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Match, Request, Respond, ResponseTemplate};

fn source(shared: &str, vendored: &str) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let s = root.join("../shared").join(shared);
    let p = if s.is_file() {
        s
    } else {
        root.join("tests/fixtures/sources").join(vendored)
    };
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// What Azure knows, from the sources.
#[derive(Clone)]
pub struct AzureFacts {
    roles: BTreeSet<String>,
    api: BTreeMap<String, Vec<String>>,
    extensions: BTreeSet<(String, String)>,
    unregistered: BTreeSet<String>,
    /// Subscription features not registered (`namespace/name`, lower case).
    unregistered_features: BTreeSet<String>,
    /// What the subscription holds already (shared by the clones the fake's mocks keep).
    state: Arc<Mutex<Held>>,
    /// The dated excerpts of the day-two refusals.
    day_two: Value,
}

/// A role assignment that exists already: (role GUID, principal, scope, name), lower case.
#[derive(Clone, Debug)]
struct HeldAssignment {
    role: String,
    principal: String,
    scope: String,
    name: String,
}

#[derive(Default)]
struct Held {
    /// Active remediations (names, lower case). A deployment may not start one of these names
    /// again, not even with the same body (a remediation is replaced by any PUT while active).
    remediations: BTreeSet<String>,
    /// Record the remediations of every deployment the fake lets through as active.
    track_remediations: bool,
    assignments: Vec<HeldAssignment>,
    /// Standby pools: name (lower case) → `virtualMachineState`.
    pools: BTreeMap<String, String>,
    /// Standby pools: name (lower case) → (the state before the last change, reads of the
    /// runtime view since it) ([`crate::common::standby_pool`]).
    pool_changes: BTreeMap<String, (Option<String>, u32)>,
}

impl AzureFacts {
    pub fn load() -> Self {
        let r = source("azure/builtin-roles.json", "builtin-roles.json");
        let roles = ["roles", "supplementalRoles"]
            .iter()
            .flat_map(|k| r[*k].as_array().cloned().unwrap_or_default())
            .map(|x| x["id"].as_str().unwrap().to_ascii_lowercase())
            .collect();
        let a = source("conformance/types/all-versions.json", "api-versions.json");
        let mut api: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (t, v) in a["types"].as_object().unwrap() {
            api.entry(t.to_ascii_lowercase()).or_default().extend(
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_owned()),
            );
        }
        let e = source("azure/extensions.json", "extensions.json");
        let extensions: Vec<(String, String)> = e["extensions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["publisher"].as_str().unwrap().to_ascii_lowercase(),
                    x["type"].as_str().unwrap().to_ascii_lowercase(),
                )
            })
            .collect();
        let extensions = extensions
            .into_iter()
            .chain(vendored_extensions())
            .collect();
        let day_two: Value = serde_json::from_str(
            &std::fs::read_to_string(
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/sources/deploy-refusals.json"),
            )
            .unwrap(),
        )
        .unwrap();
        Self {
            roles,
            api,
            extensions,
            unregistered: BTreeSet::new(),
            unregistered_features: BTreeSet::new(),
            state: Arc::new(Mutex::new(Held::default())),
            day_two,
        }
    }

    /// A remediation named `name` is running (started by an earlier deployment or by hand).
    pub fn with_active_remediation(self, name: &str) -> Self {
        self.state
            .lock()
            .unwrap()
            .remediations
            .insert(name.to_ascii_lowercase());
        self
    }

    /// Every remediation a deployment the fake lets through starts stays active (a compliance
    /// scan has no guaranteed end): a later deployment may not replace it.
    pub fn tracking_remediations(self) -> Self {
        self.state.lock().unwrap().track_remediations = true;
        self
    }

    /// The names of the remediations the subscription holds (active).
    pub fn remediations(&self) -> Vec<String> {
        self.state
            .lock()
            .unwrap()
            .remediations
            .iter()
            .cloned()
            .collect()
    }

    /// `principal` holds role `role` (a GUID) at `scope` (`/subscriptions/.../resourceGroups/..`)
    /// under the assignment name `name` (granted by hand, say).
    pub fn with_role_assignment(
        self,
        role: &str,
        principal: &str,
        scope: &str,
        name: &str,
    ) -> Self {
        self.state.lock().unwrap().assignments.push(HeldAssignment {
            role: role.to_ascii_lowercase(),
            principal: principal.to_ascii_lowercase(),
            scope: scope.trim_end_matches('/').to_ascii_lowercase(),
            name: name.to_ascii_lowercase(),
        });
        self
    }

    /// A standby pool `name` exists with `virtualMachineState` `state`.
    pub fn with_standby_pool(self, name: &str, state: &str) -> Self {
        self.state
            .lock()
            .unwrap()
            .pools
            .insert(name.to_ascii_lowercase(), state.to_string());
        self
    }

    /// The pool's `virtualMachineState`, if the subscription holds it.
    pub fn pool_state(&self, name: &str) -> Option<String> {
        self.state
            .lock()
            .unwrap()
            .pools
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    /// A pool changes (or gets) its state: the runtime view starts over from the transition.
    pub fn set_pool_state(&self, name: &str, state: &str) {
        let mut held = self.state.lock().unwrap();
        let key = name.to_ascii_lowercase();
        let before = held.pools.insert(key.clone(), state.to_string());
        held.pool_changes.insert(key, (before, 0));
    }

    /// One read of the pool's runtime view: (the state before the last change, reads since it,
    /// this one included).
    pub fn pool_read(&self, name: &str) -> (Option<String>, u32) {
        let mut held = self.state.lock().unwrap();
        let e = held
            .pool_changes
            .entry(name.to_ascii_lowercase())
            .or_insert((None, 0));
        e.1 += 1;
        e.clone()
    }

    /// A direct change of a pool's state Azure refuses (Deallocated ↔ Hibernated): (code,
    /// message) from the dated excerpt.
    pub fn pool_transition_refusal(&self, name: &str, to: &str) -> Option<(String, String)> {
        let from = self.pool_state(name)?;
        let pair = [from.to_ascii_lowercase(), to.to_ascii_lowercase()];
        if pair == ["deallocated", "hibernated"] || pair == ["hibernated", "deallocated"] {
            let t = &self.day_two["standbyStateTransition"];
            return Some((
                t["code"].as_str().unwrap().into(),
                format!(
                    "Standby pool '{name}' cannot change its virtualMachineState from {from} to {to}: {}",
                    t["quote"].as_str().unwrap()
                ),
            ));
        }
        None
    }

    /// Start a remediation outside a deployment: refused while one of that name is active, as
    /// a deployment's is.
    pub fn start_remediation(&self, name: &str) -> Result<(), (String, String)> {
        let mut held = self.state.lock().unwrap();
        let key = name.to_ascii_lowercase();
        if held.remediations.contains(&key) {
            let r = &self.day_two["activeRemediation"];
            return Err((
                r["code"].as_str().unwrap().into(),
                r["messageTemplate"]
                    .as_str()
                    .unwrap()
                    .replace("{name}", name),
            ));
        }
        held.remediations.insert(key);
        Ok(())
    }

    /// Azure without this built-in role (a test's way to see a refusal of a template gpuform
    /// really renders).
    pub fn without_role(mut self, guid: &str) -> Self {
        self.roles.remove(&guid.to_ascii_lowercase());
        self
    }

    /// Azure without this API version of a resource type.
    pub fn without_api_version(mut self, resource_type: &str, version: &str) -> Self {
        if let Some(v) = self.api.get_mut(&resource_type.to_ascii_lowercase()) {
            v.retain(|x| x != version);
        }
        self
    }

    /// A subscription that has not registered resource provider `namespace`.
    pub fn unregistered(mut self, namespace: &str) -> Self {
        self.unregistered.insert(namespace.to_ascii_lowercase());
        self
    }

    /// A subscription that has not registered the preview/opt-in feature `namespace/name`.
    pub fn without_feature(mut self, namespace: &str, name: &str) -> Self {
        self.unregistered_features
            .insert(format!("{namespace}/{name}").to_ascii_lowercase());
        self
    }

    /// Azure without this extension type.
    pub fn without_extension(mut self, publisher: &str, kind: &str) -> Self {
        self.extensions
            .remove(&(publisher.to_ascii_lowercase(), kind.to_ascii_lowercase()));
        self
    }

    /// The first thing in the PUT body's template Azure refuses: (code, message).
    pub fn refusal(&self, body: &[u8]) -> Option<(String, String)> {
        self.refusal_at("", body)
    }

    /// [`Self::refusal`] of a deployment PUT to `path` (`/subscriptions/S/resourcegroups/RG/
    /// providers/Microsoft.Resources/deployments/NAME`): also what the subscription holds
    /// already refuses. A deployment let through records the remediations it starts when
    /// [`Self::tracking_remediations`].
    pub fn refusal_at(&self, path: &str, body: &[u8]) -> Option<(String, String)> {
        let doc: Value = serde_json::from_slice(body).ok()?;
        let template = &doc["properties"]["template"];
        // the parameter's value, else a literal default, else the fake resource group's region
        let location = doc["properties"]["parameters"]["location"]["value"]
            .as_str()
            .or_else(|| template["parameters"]["location"]["defaultValue"].as_str())
            .filter(|l| !l.starts_with('['))
            .unwrap_or("eastus2")
            .to_owned();
        let mut found = None;
        self.walk(template, &location, &mut found);
        if found.is_some() {
            return found;
        }
        let found = self.day_two_refusal(path, &doc);
        if found.is_none() {
            let mut held = self.state.lock().unwrap();
            if held.track_remediations {
                held.remediations.extend(remediation_names(&doc));
            }
            drop(held);
            // the pools the deployment creates or changes take the template's state
            for r in resources(&doc) {
                if r["type"].as_str().is_some_and(|t| {
                    t.eq_ignore_ascii_case("Microsoft.StandbyPool/standbyVirtualMachinePools")
                }) && let (Some(name), Some(to)) = (
                    eval_str(&doc, &r["name"]),
                    r["properties"]["virtualMachineState"].as_str(),
                ) && self.pool_state(&name).as_deref() != Some(to)
                {
                    self.set_pool_state(&name, to);
                }
            }
        }
        found
    }

    /// What the subscription's state refuses (see the module comment).
    fn day_two_refusal(&self, path: &str, doc: &Value) -> Option<(String, String)> {
        let held = self.state.lock().unwrap();
        let d = &self.day_two;
        for name in remediation_names(doc) {
            if held.remediations.contains(&name) {
                let r = &d["activeRemediation"];
                return Some((
                    r["code"].as_str().unwrap().into(),
                    r["messageTemplate"]
                        .as_str()
                        .unwrap()
                        .replace("{name}", &name),
                ));
            }
        }
        // the deployment's resource group: /subscriptions/S/resourcegroups/RG
        let segs: Vec<&str> = path.split('/').collect();
        let group = (segs.len() > 4).then(|| {
            format!("/subscriptions/{}/resourcegroups/{}", segs[2], segs[4]).to_ascii_lowercase()
        });
        for r in resources(doc) {
            let ty = r["type"].as_str().unwrap_or_default();
            if ty.eq_ignore_ascii_case("Microsoft.Authorization/roleAssignments")
                && r.get("scope").is_none()
                && condition(doc, &r["condition"])
                && let Some(group) = &group
            {
                let p = &r["properties"];
                let principal = p["principalId"].as_str().unwrap_or_default();
                let role = p["roleDefinitionId"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_end_matches([']', ')', '\''])
                    .rsplit(['/', '\''])
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let name = eval_str(doc, &r["name"]).map(|n| n.to_ascii_lowercase());
                if principal.starts_with('[') {
                    continue; // a principal only Azure knows (a new identity's): nothing held
                }
                if let Some(h) = held.assignments.iter().find(|h| {
                    h.role == role
                        && h.principal == principal.to_ascii_lowercase()
                        && h.scope == *group
                        && name.as_deref() != Some(h.name.as_str())
                }) {
                    let x = &d["roleAssignmentExists"];
                    return Some((
                        x["code"].as_str().unwrap().into(),
                        x["messageTemplate"]
                            .as_str()
                            .unwrap()
                            .replace("{existingNameWithoutDashes}", &h.name.replace('-', "")),
                    ));
                }
            }
            if ty.eq_ignore_ascii_case("Microsoft.StandbyPool/standbyVirtualMachinePools")
                && let (Some(name), Some(to)) = (
                    eval_str(doc, &r["name"]),
                    r["properties"]["virtualMachineState"].as_str(),
                )
                && let Some(from) = held.pools.get(&name.to_ascii_lowercase())
            {
                let pair = [from.to_ascii_lowercase(), to.to_ascii_lowercase()];
                if pair == ["deallocated", "hibernated"] || pair == ["hibernated", "deallocated"] {
                    let t = &d["standbyStateTransition"];
                    return Some((
                        t["code"].as_str().unwrap().into(),
                        format!(
                            "Standby pool '{name}' cannot change its virtualMachineState from {from} to {to}: {}",
                            t["quote"].as_str().unwrap()
                        ),
                    ));
                }
            }
        }
        None
    }

    fn walk(&self, v: &Value, location: &str, found: &mut Option<(String, String)>) {
        if found.is_some() {
            return;
        }
        match v {
            Value::Object(m) => {
                let s = |k: &str| m.get(k).and_then(Value::as_str);
                if let Some(id) = s("roleDefinitionId") {
                    let guid = id
                        .trim_end_matches([']', ')', '\''])
                        .rsplit(['/', '\''])
                        .next()
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    if guid.len() == 36 && !self.roles.contains(&guid) {
                        *found = Some((
                            "RoleDefinitionDoesNotExist".into(),
                            format!(
                                "The specified role definition with ID '{}' does not exist.",
                                guid.replace('-', "")
                            ),
                        ));
                        return;
                    }
                }
                if let (Some(t), Some(ver)) = (s("type"), s("apiVersion"))
                    && !t.starts_with('[')
                    && !ver.starts_with('[')
                {
                    let (ns, short) = t.split_once('/').unwrap_or((t, ""));
                    if self.unregistered.contains(&ns.to_ascii_lowercase()) {
                        *found = Some((
                            "MissingSubscriptionRegistration".into(),
                            format!(
                                "The subscription is not registered to use namespace '{ns}'. See https://aka.ms/rps-not-found for how to register subscriptions."
                            ),
                        ));
                        return;
                    }
                    match self.api.get(&t.to_ascii_lowercase()) {
                        None => {
                            *found = Some((
                                "InvalidResourceType".into(),
                                format!(
                                    "The resource type '{short}' could not be found in the namespace '{ns}' for api version '{ver}'."
                                ),
                            ));
                            return;
                        }
                        Some(known) if !known.iter().any(|k| k == ver) => {
                            *found = Some((
                                "NoRegisteredProviderFound".into(),
                                format!(
                                    "No registered resource provider found for location '{location}' and API version '{ver}' for type '{short}'. The supported api-versions are '{}'. The supported locations are '{location}'.",
                                    known.join(", ")
                                ),
                            ));
                            return;
                        }
                        Some(_) => {}
                    }
                }
                if let Some(refusal) = self.serving_refusal(m) {
                    *found = Some(refusal);
                    return;
                }
                if let (Some(p), Some(t), Some(ver)) =
                    (s("publisher"), s("type"), s("typeHandlerVersion"))
                    && !self
                        .extensions
                        .contains(&(p.to_ascii_lowercase(), t.to_ascii_lowercase()))
                {
                    *found = Some((
                        "ArtifactNotFound".into(),
                        format!(
                            "Extension with publisher '{p}', type '{t}', and type handler version '{ver}' could not be found in the extension repository."
                        ),
                    ));
                    return;
                }
                for x in m.values() {
                    self.walk(x, location, found);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| self.walk(x, location, found)),
            _ => {}
        }
    }
}

impl AzureFacts {
    /// What Azure refuses of a serving frontend resource (`m` is a resource object).
    fn serving_refusal(&self, m: &serde_json::Map<String, Value>) -> Option<(String, String)> {
        use gpuform::facts::serving as f;
        let ty = m.get("type").and_then(Value::as_str)?;
        let props = m.get("properties")?;
        if ty.eq_ignore_ascii_case(f::GATEWAY_TYPE) {
            let feature = format!(
                "{}/{}",
                f::GATEWAY_FEATURE.namespace,
                f::GATEWAY_FEATURE.name
            )
            .to_ascii_lowercase();
            let public = props["frontendIPConfigurations"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|fe| fe["properties"].get("publicIPAddress").is_some());
            if !public && self.unregistered_features.contains(&feature) {
                let tier = props["sku"]["tier"].as_str().unwrap_or("Standard_v2");
                return Some((
                    f::GATEWAY_FEATURE_ERROR_CODE.into(),
                    format!(
                        "Application Gateway without Public IP is not supported for the selected SKU tier {tier}. Supported SKU tiers are Standard, WAF"
                    ),
                ));
            }
        }
        if ty.eq_ignore_ascii_case(f::LOAD_BALANCER_TYPE) {
            let sku = m
                .get("sku")
                .and_then(|k| k["name"].as_str())
                .unwrap_or_default();
            if sku.eq_ignore_ascii_case(f::LB_SKU_REFUSED) {
                return Some((
                    "BadRequest".into(),
                    "On September 30, 2025, Basic Load Balancer was retired; Flexible orchestration supports the Standard SKU only.".into(),
                ));
            }
            for p in props["probes"].as_array().into_iter().flatten() {
                let http = p["properties"]["protocol"].as_str().is_some_and(|x| {
                    x.eq_ignore_ascii_case("http") || x.eq_ignore_ascii_case("https")
                });
                let port = p["properties"]["port"].as_u64().unwrap_or(0) as u16;
                if http && f::LB_PROBE_REFUSED_PORTS.contains(&port) {
                    return Some((
                        "BadRequest".into(),
                        format!(
                            "HTTP probes may not target port {port} (ports 19, 21, 25, 70, 110, 119, 143, 220, 993)."
                        ),
                    ));
                }
            }
        }
        None
    }

    /// The API versions Azure knows for `resource_type` (empty: an unknown type).
    pub fn versions(&self, resource_type: &str) -> Vec<String> {
        self.api
            .get(&resource_type.to_ascii_lowercase())
            .cloned()
            .unwrap_or_default()
    }
}

/// Answers a GET of a resource of `resource_type` with `body` when its `api-version` is one
/// Azure knows, else as Azure refuses it: 400 `NoRegisteredProviderFound` (or
/// `MissingApiVersionParameter` without one), the messages of the sources above.
pub struct VersionedGet {
    pub facts: AzureFacts,
    pub resource_type: String,
    pub location: String,
    pub body: Value,
}

impl Respond for VersionedGet {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let known = self.facts.versions(&self.resource_type);
        let Some(ver) = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "api-version")
            .map(|(_, v)| v.into_owned())
        else {
            return ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "MissingApiVersionParameter",
                "message": "The api-version query parameter (?api-version=) is required for all requests."
            }}));
        };
        if known.contains(&ver) {
            return ResponseTemplate::new(200).set_body_json(self.body.clone());
        }
        let short = self
            .resource_type
            .split_once('/')
            .map_or("", |(_, s)| s)
            .to_owned();
        ResponseTemplate::new(400).set_body_json(json!({"error": {
            "code": "NoRegisteredProviderFound",
            "message": format!(
                "No registered resource provider found for location '{}' and API version '{ver}' for type '{short}'. The supported api-versions are '{}'. The supported locations are '{}'.",
                self.location, known.join(", "), self.location
            )
        }}))
    }
}

/// The top-level resources of a deployment body's template.
fn resources(doc: &Value) -> Vec<&Value> {
    doc["properties"]["template"]["resources"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// A template parameter's value in a deployment body: the body's, else a literal default.
fn parameter<'a>(doc: &'a Value, name: &str) -> Option<&'a Value> {
    if let Some(v) = doc["properties"]["parameters"]
        .get(name)
        .and_then(|p| p.get("value"))
    {
        return Some(v);
    }
    let d = doc["properties"]["template"]["parameters"]
        .get(name)?
        .get("defaultValue")?;
    (!d.as_str().is_some_and(|s| s.starts_with('['))).then_some(d)
}

/// A string property as the deployment would evaluate it: a literal, or
/// `[parameters('name')]`; `None` for any other expression (only Azure knows it).
fn eval_str(doc: &Value, v: &Value) -> Option<String> {
    let s = v.as_str()?;
    if !s.starts_with('[') {
        return Some(s.to_string());
    }
    let name = s.strip_prefix("[parameters('")?.strip_suffix("')]")?;
    parameter(doc, name)?.as_str().map(str::to_string)
}

/// A resource's `condition`: absent or not evaluable is true (the resource is deployed);
/// `[not(contains(parameters('p'), 'x'))]` is evaluated.
fn condition(doc: &Value, c: &Value) -> bool {
    match c {
        Value::Null => true,
        Value::Bool(b) => *b,
        Value::String(s) => {
            let Some(rest) = s.strip_prefix("[not(contains(parameters('") else {
                return true;
            };
            let Some((param, item)) = rest.split_once("'), '") else {
                return true;
            };
            let Some(item) = item.strip_suffix("'))]") else {
                return true;
            };
            match parameter(doc, param).and_then(Value::as_array) {
                Some(list) => !list
                    .iter()
                    .any(|v| v.as_str().is_some_and(|v| v.eq_ignore_ascii_case(item))),
                None => true,
            }
        }
        _ => true,
    }
}

/// The names (lower case) of the remediations a deployment body starts, where they can be known.
fn remediation_names(doc: &Value) -> Vec<String> {
    resources(doc)
        .into_iter()
        .filter(|r| {
            r["type"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.PolicyInsights/remediations"))
        })
        .filter_map(|r| eval_str(doc, &r["name"]))
        .map(|n| n.to_ascii_lowercase())
        .collect()
}

/// Extensions gpuform renders that `../shared/azure/extensions.json` does not list, from the
/// dated copies of their pages in `tests/fixtures/sources/` (`hibernation.json`).
fn vendored_extensions() -> Vec<(String, String)> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/hibernation.json");
    let Ok(text) = std::fs::read_to_string(p) else {
        return Vec::new();
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    v["extensions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["publisher"].as_str().unwrap().to_ascii_lowercase(),
                e["type"].as_str().unwrap().to_ascii_lowercase(),
            )
        })
        .collect()
}

/// Matches a deployment PUT Azure refuses.
pub struct Refused(pub AzureFacts);

impl Match for Refused {
    fn matches(&self, request: &Request) -> bool {
        self.0
            .refusal_at(request.url.path(), &request.body)
            .is_some()
    }
}

/// Answers it: 400 `InvalidTemplateDeployment` with Azure's error inside.
pub struct Refusal(pub AzureFacts);

impl Respond for Refusal {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let (code, message) = self
            .0
            .refusal_at(request.url.path(), &request.body)
            .unwrap_or_default();
        let name = request
            .url
            .path()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        ResponseTemplate::new(400).set_body_json(json!({"error": {
            "code": "InvalidTemplateDeployment",
            "message": format!("The template deployment '{name}' is not valid according to the validation procedure. The tracking id is '7c1d0c4e'. See inner errors for details."),
            "details": [{"code": code, "message": message}]
        }}))
    }
}
