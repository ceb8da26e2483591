//! What a deploy run is given: the choices from the command line, the signed-in client, and
//! where the deployment goes (for links and follow-up commands).

use std::path::Path;
use std::time::Duration;

use tokio::runtime::Runtime;

use super::Polling;
use super::progress;
use crate::azure::{Arm, Cloud};
use crate::diag::failure::Failure;
use crate::preflight::plan::Existing;

/// The command line's choices for one deploy.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    pub spec_path: &'a Path,
    pub resource_group: &'a str,
    pub create_resource_group: bool,
    pub what_if: bool,
    pub yes: bool,
    pub skip_preflight: bool,
    /// `--no-failover`: a capacity error ends the deploy (no other zone, size or region).
    pub no_failover: bool,
    /// `--per-region-resource-group`: a failover to another region deploys into a resource
    /// group of that region, `<RG>-<region>` (created with the spec's tags), instead of `RG`.
    pub per_region_resource_group: bool,
    /// The deployment name given (`--name`), else metadata.name + a hash.
    pub name: Option<&'a str>,
    pub polling: Polling,
    /// How long to wait before deploying once more after a role assignment Key Vault did not
    /// honour yet.
    pub role_retry_wait: Duration,
    /// `--pool-wait`: how long to wait for the standby pool (to fill after the deployment, or to
    /// run before a change between Deallocated and Hibernated); `None`: `--no-pool-wait`.
    pub pool_wait: Option<Duration>,
    pub progress: progress::Mode,
    /// Colour on stderr.
    pub styled_stderr: bool,
}

/// `--pool-wait DURATION` (in seconds here) / `--no-pool-wait` ([`Options::pool_wait`]).
pub fn pool_wait(off: bool, seconds: f64) -> Result<Option<Duration>, Failure> {
    if off {
        return Ok(None);
    }
    Duration::try_from_secs_f64(seconds)
        .map(Some)
        .map_err(|_| Failure::usage(format!("--pool-wait must be a duration, not {seconds} s")))
}

/// A signed-in ARM client for one subscription, and the runtime to drive it.
pub struct Azure<'a> {
    pub rt: &'a Runtime,
    pub arm: &'a Arm,
    pub subscription: &'a str,
    pub cloud: Cloud,
    /// The credential used, as preflight reports name it.
    pub credential: String,
    /// The spec's pool in a resource group when it runs already (a redeployment), so that
    /// preflight does not count its instances twice; says what it found on stderr.
    pub existing_pool: &'a dyn Fn(&str) -> Option<Existing>,
}

/// Where a deployment is, for links and follow-up commands.
pub struct Target<'a> {
    pub rg: &'a str,
    pub name: &'a str,
    pub azure: &'a Azure<'a>,
    /// Capacity failover follows a capacity error (so its fix is not a preflight of the
    /// alternate regions: failover tries them).
    pub failover: bool,
}

impl Target<'_> {
    pub fn portal(&self) -> String {
        format!(
            "{}/#@/resource/subscriptions/{}/resourceGroups/{}/deployments",
            self.azure.cloud.portal(),
            self.azure.subscription,
            self.rg
        )
    }

    pub fn follow_hint(&self) -> String {
        format!(
            "  follow it:   az deployment group show -g {rg} -n {n} --query properties.provisioningState\n  operations:  az deployment operation group list -g {rg} -n {n} -o table\n  portal:      {}\n",
            self.portal(),
            rg = self.rg,
            n = self.name
        )
    }
}

/// Now in UTC as `yyyyMMddHHmmssfff` ([`crate::plan::gpu_monitoring::REMEDIATION_STAMP`]).
pub fn utc_stamp() -> String {
    let t = time::OffsetDateTime::now_utc();
    let s = format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}{:03}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    );
    debug_assert_eq!(s.len(), crate::plan::gpu_monitoring::REMEDIATION_STAMP_LEN);
    s
}
