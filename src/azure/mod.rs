//! Everything that talks to Azure, and the only module that touches azure_core / azure_identity
//! types. The rest of gpuform sees [`ArmApi`] (a trait, so tests can fake it), the plain data
//! types in [`models`], [`ArmError`], and the settings below.
//!
//! - [`cloud`]: clouds, endpoints and token scopes (`--cloud`, `--arm-endpoint`, `AZURE_AUTHORITY_HOST`);
//! - [`auth`]: credential selection (`--auth auto|cli|secret|workload|pipelines|managed-identity`);
//! - [`http`]: retry, timeouts, fatal TLS errors, and the [`Transport`] seam for tests;
//! - [`client`]: `ArmClient` (JSON GET/POST/PUT, `nextLink`, ARM error trees);
//! - [`api`]: the `ArmApi` trait and its ARM implementation;
//! - [`deployments`]: resource groups, deployments, what-if and long-running operations (deploy).

// `ArmError` carries the whole story (ARM error tree, cause chain, fix); it is built once per
// failed call, never in a hot loop, so its size in `Result` does not matter.
#![allow(clippy::result_large_err)]

pub mod api;
pub mod assertion;
pub mod auth;
pub mod client;
pub mod cloud;
pub mod deployments;
pub mod error;
pub mod group_api;
pub mod group_arm;
pub mod http;
pub mod landing_zone;
pub mod landing_zone_api;
pub mod log_answer;
pub mod metric_point;
pub mod models;
pub mod operate;
pub mod resource_graph;
pub mod resource_id;
pub mod spot_arm;
pub mod spot_placement;
pub mod standby_api;
pub mod standby_arm;
pub mod standby_pool;

pub use api::{Arm, ArmApi};
pub use auth::{AuthChoice, AuthMethod, AuthMode, Env, Probe, SystemProbe};
pub use client::{ArmClient, ArmResponse, Op, Verb};
pub use cloud::{Cloud, Endpoints};
pub use error::{ArmError, ErrorDetail, ErrorKind};
pub use http::{HttpSettings, Transport};

/// Everything needed to reach ARM.
#[derive(Debug, Clone)]
pub struct Connect {
    pub endpoints: Endpoints,
    pub http: HttpSettings,
    pub subscription: String,
    /// `None`: the real network. Tests pass a redirecting client.
    pub transport: Option<Transport>,
}

/// The ARM client for one subscription with the credential [`auth::choose`] picked (the
/// subscription may depend on it: `az`'s default). Nothing is sent yet: the first request
/// fetches the token.
pub fn connect(c: &Connect, env: &Env, choice: &AuthChoice) -> Result<Arm, ArmError> {
    validate_subscription(&c.subscription)?;
    let credential = auth::credential(choice, env, &c.endpoints, &c.http, c.transport.as_ref())?;
    let client = ArmClient::new(
        &c.endpoints,
        credential.clone(),
        &c.http,
        c.transport.as_ref(),
    );
    let logs = ArmClient::logs(
        &c.endpoints,
        credential.clone(),
        &c.http,
        c.transport.as_ref(),
    );
    let graph = ArmClient::graph(&c.endpoints, credential, &c.http, c.transport.as_ref());
    Ok(Arm::new(client, c.subscription.clone())
        .with_logs(logs)
        .with_graph(graph))
}

/// Subscription ids are GUIDs; a name here would build a wrong URL and a confusing 404.
pub fn validate_subscription(s: &str) -> Result<(), ArmError> {
    let ok = s.len() == 36
        && s.char_indices().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    if ok {
        Ok(())
    } else {
        Err(ArmError::config(
            "use the subscription",
            format!("`{s}` is not a subscription id (a GUID)"),
        )
        .with_help("pass the id, not the name: `az account show --query id -o tsv`"))
    }
}

/// The Azure CLI's default subscription (`az account show`), when `az` is installed and signed in.
pub fn az_default_subscription() -> Option<String> {
    let out = std::process::Command::new("az")
        .args(["account", "show", "--query", "id", "-o", "tsv"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    validate_subscription(&id).ok().map(|_| id)
}
