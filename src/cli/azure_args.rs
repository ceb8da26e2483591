//! The Azure flags every command that talks to ARM shares (`preflight`, `deploy`): subscription,
//! credential, cloud, endpoint, timeout and retries, and turning them into a signed-in [`Arm`].

use std::time::Duration;

use clap::ValueEnum;

use super::common::Failure;
use super::session::seconds;
pub use super::session::{Session, arm_failure, runtime};
use crate::azure::{
    self, AuthMethod, AuthMode, Cloud, Connect, Endpoints, Env, HttpSettings, SystemProbe,
};

#[derive(Debug, Clone, clap::Args)]
pub struct AzureArgs {
    /// Subscription id (default: AZURE_SUBSCRIPTION_ID, then the az CLI's default with --auth cli/auto).
    #[arg(long, value_name = "ID")]
    pub subscription: Option<String>,
    /// Which credential to use; `auto` picks from the environment and says which.
    #[arg(long, value_enum, default_value_t = AuthArg::Auto, env = "GPUFORM_AUTH")]
    pub auth: AuthArg,
    /// Azure cloud: ARM endpoint, Entra authority (AZURE_AUTHORITY_HOST overrides it), token scope
    /// and portal [default: the spec's cloud (spec.cloud, else its region's), else AzureCloud]. A
    /// value that contradicts the spec is a usage error.
    #[arg(long, value_enum)]
    pub cloud: Option<CloudArg>,
    /// Resource Manager endpoint (https), e.g. a proxy; the token scope stays the cloud's.
    #[arg(long, value_name = "URL")]
    pub arm_endpoint: Option<String>,
    /// Microsoft Graph endpoint (https) [default: the cloud's]; the token scope stays the cloud's.
    #[arg(long, value_name = "URL", env = "GPUFORM_GRAPH_ENDPOINT")]
    pub graph_endpoint: Option<String>,
    /// How long each HTTP try may take, body included (30s, 2m; a bare number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = super::common::secs)]
    pub timeout: f64,
    /// Retries per call after throttling (429, honouring Retry-After), 5xx, timeouts and dropped connections.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// First retry back-off in milliseconds (doubles per retry).
    #[arg(long, value_name = "MS", default_value_t = 800, hide = true)]
    pub retry_delay_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthArg {
    Auto,
    Cli,
    Secret,
    Workload,
    Pipelines,
    ManagedIdentity,
}

impl From<AuthArg> for AuthMode {
    fn from(a: AuthArg) -> Self {
        match a {
            AuthArg::Auto => AuthMode::Auto,
            AuthArg::Cli => AuthMode::Cli,
            AuthArg::Secret => AuthMode::Secret,
            AuthArg::Workload => AuthMode::Workload,
            AuthArg::Pipelines => AuthMode::Pipelines,
            AuthArg::ManagedIdentity => AuthMode::ManagedIdentity,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[allow(clippy::enum_variant_names)] // the names az uses
pub enum CloudArg {
    #[value(name = "AzureCloud")]
    AzureCloud,
    #[value(name = "AzureChinaCloud")]
    AzureChinaCloud,
    #[value(name = "AzureUSGovernment")]
    AzureUsGovernment,
}

impl From<CloudArg> for Cloud {
    fn from(c: CloudArg) -> Self {
        match c {
            CloudArg::AzureCloud => Cloud::AzureCloud,
            CloudArg::AzureChinaCloud => Cloud::AzureChinaCloud,
            CloudArg::AzureUsGovernment => Cloud::AzureUSGovernment,
        }
    }
}

impl AzureArgs {
    /// Refuse nonsense before anything else runs.
    pub fn check(&self) -> Result<(), Failure> {
        self.http().map(drop)
    }

    pub fn http(&self) -> Result<HttpSettings, Failure> {
        Ok(HttpSettings {
            timeout: seconds("--timeout", self.timeout)?,
            max_retries: self.retries,
            initial_delay: Duration::from_millis(self.retry_delay_ms),
            ..HttpSettings::default()
        })
    }

    /// Choose the cloud (`--cloud`, else `spec`'s), the credential, find the subscription and
    /// build the client; prints `COMMAND: using <credential> (...)` to stderr.
    pub fn connect(
        &self,
        command: &str,
        spec: Option<&crate::spec::model::Spec>,
    ) -> Result<Session, Failure> {
        self.check()?;
        let env = Env::from_process();
        let cloud = azure::cloud::choose(
            self.cloud.map(Cloud::from),
            spec.map(|s| s.spec.effective_cloud()),
        )
        .map_err(|e| {
            Failure::usage(e).help("drop --cloud (the spec decides) or use the spec's cloud")
        })?;
        let endpoints = Endpoints::resolve(
            cloud,
            self.arm_endpoint.as_deref(),
            env.get("AZURE_AUTHORITY_HOST"),
        )
        .and_then(|e| e.with_logs_endpoint(env.get("GPUFORM_LOGS_ENDPOINT")))
        .and_then(|e| e.with_graph(self.graph_endpoint.as_deref()))
        .map_err(|e| Failure::usage(e.to_string()))?;
        let choice = azure::auth::choose(self.auth.into(), &env, &SystemProbe)
            .map_err(|e| arm_failure(&e))?;
        let subscription = match self
            .subscription
            .clone()
            .or_else(|| env.get("AZURE_SUBSCRIPTION_ID").map(str::to_string))
        {
            Some(s) => s.trim().to_string(),
            None if matches!(choice.method, AuthMethod::Cli { .. })
                && !azure::auth::Probe::az_on_path(&azure::auth::SystemProbe, &env) =>
            {
                return Err(Failure::usage(
                    "--auth cli: the Azure CLI (`az`) is not on PATH",
                )
                .help("install the Azure CLI and run `az login`, or choose another credential with --auth (see `gpuform preflight --help`)"));
            }
            None if matches!(choice.method, AuthMethod::Cli { .. }) => {
                azure::az_default_subscription().ok_or_else(|| {
                    Failure::usage(
                        "no subscription given and the Azure CLI has no default subscription",
                    )
                    .help("pass --subscription ID or set AZURE_SUBSCRIPTION_ID")
                })?
            }
            None => {
                // a newcomer without Azure access yet: preflight also runs from `az` output
                let offline = if command == "preflight" {
                    "; without access to Azure, `gpuform preflight SPEC --usages usage.json --skus skus.json` checks the output of `az vm list-usage` and `az vm list-skus` (docs/src/preflight.md)"
                } else {
                    ""
                };
                return Err(Failure::usage("no subscription given").help(format!(
                    "pass --subscription ID or set AZURE_SUBSCRIPTION_ID (signed in with `az login`, --auth cli uses the Azure CLI's default subscription){offline}"
                )));
            }
        };
        crate::ci_eprintln!("{command}: {}", choice.announce());
        let connect = Connect {
            endpoints,
            http: self.http()?,
            subscription: subscription.clone(),
            transport: None,
        };
        let arm = azure::connect(&connect, &env, &choice).map_err(|e| arm_failure(&e))?;
        Ok(Session {
            arm,
            choice,
            subscription,
            cloud,
        })
    }
}
