//! The Azure flags every command that talks to ARM shares (`preflight`, `deploy`): subscription,
//! credential, cloud, endpoint, timeout and retries, and turning them into a signed-in [`Arm`].

use std::time::Duration;

use clap::ValueEnum;

use super::common::{ExitCode, Failure};
use crate::azure::{
    self, Arm, ArmError, AuthChoice, AuthMethod, AuthMode, Cloud, Connect, Endpoints, Env,
    HttpSettings, SystemProbe,
};
use crate::preflight::plan::Existing;
use crate::spec::Checked;

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
    /// Seconds each HTTP try may take, body included.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
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

/// A signed-in ARM client for one subscription (no request has been sent yet).
pub struct Session {
    pub arm: Arm,
    pub choice: AuthChoice,
    pub subscription: String,
    pub cloud: Cloud,
}

impl Session {
    /// The spec's scale set in `rg` when it runs already (a redeployment): preflight does not
    /// count its instances twice. Says what it found on stderr; a failure to look is a warning
    /// (preflight then counts every instance as new).
    pub fn existing_pool(
        &self,
        rt: &tokio::runtime::Runtime,
        command: &str,
        rg: &str,
        checked: &Checked,
    ) -> Option<Existing> {
        let spec = checked.spec.as_ref()?;
        let plan = crate::plan::Plan::build(checked).ok()?;
        if let Some(d) = &plan.devbox {
            let name = &d.vm_name;
            return match rt.block_on(self.arm.virtual_machine(rg, name)) {
                Ok(Some(vm)) => {
                    let x = Existing::from_vm(name, &vm);
                    eprintln!(
                        "{command}: the dev box {name} exists in {rg} ({}); preflight counts it as in use already",
                        x.region
                    );
                    Some(x)
                }
                Ok(None) => None,
                Err(e) => {
                    eprintln!(
                        "{command}: warning: could not {} ({}); preflight counts the dev box as new",
                        e.operation,
                        e.summary()
                    );
                    None
                }
            };
        }
        let name = plan.compute.name;
        match rt.block_on(self.arm.scale_set(rg, &name)) {
            Ok(Some(set)) => {
                let x = Existing::from_scale_set(&name, &set, &spec.spec.capacity);
                eprintln!(
                    "{command}: scale set {name} in {rg} ({}) runs {} regular and {} Spot instances; preflight counts them as in use already",
                    x.region, x.regular, x.spot
                );
                Some(x)
            }
            Ok(None) => None,
            Err(e) => {
                eprintln!(
                    "{command}: warning: could not {} ({}); preflight counts every instance of the pool as new",
                    e.operation,
                    e.summary()
                );
                None
            }
        }
    }

    /// A failure from an ARM error; for credential problems it names the credential used.
    pub fn failure(&self, e: &ArmError) -> Failure {
        let mut f = arm_failure(e);
        if e.kind == azure::ErrorKind::Credential || e.status == Some(401) {
            f.causes.push(format!(
                "gpuform used {}",
                self.choice.announce().trim_start_matches("using ")
            ));
        }
        f
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
                return Err(Failure::usage("no subscription given")
                    .help("pass --subscription ID or set AZURE_SUBSCRIPTION_ID"));
            }
        };
        eprintln!("{command}: {}", choice.announce());
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

/// A positive number of seconds that a `Duration` can hold (`1e20` cannot; `NaN` is not one).
pub(crate) fn seconds(flag: &str, secs: f64) -> Result<Duration, Failure> {
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(Failure::usage(format!(
            "{flag} must be a positive number of seconds, not {secs}"
        ))),
    }
}

/// A current-thread tokio runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot start the async runtime", &e))
}

/// An Azure error as a command failure: what failed, the ARM error tree and cause chain, the fix.
pub fn arm_failure(e: &ArmError) -> Failure {
    let mut causes: Vec<String> = e
        .detail_lines()
        .into_iter()
        .map(|l| l.trim().to_string())
        .collect();
    let summary = e.summary();
    causes.extend(
        e.causes
            .iter()
            .filter(|c| !summary.contains(c.as_str()))
            .cloned(),
    );
    if let Some(id) = &e.request_id {
        causes.push(format!("request id {id}"));
    }
    Failure {
        code: ExitCode::Usage,
        message: e.to_string(),
        causes,
        help: e.help.clone(),
    }
}
