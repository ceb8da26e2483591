//! A signed-in Azure session for one command, and the helpers every Azure command shares: the
//! async runtime, ARM errors as command failures, and the duration flags' check.

use super::common::{ExitCode, Failure};
use crate::azure::{self, Arm, ArmError, AuthChoice, Cloud};
use crate::preflight::plan::Existing;
use crate::spec::Checked;

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

pub use crate::diag::failure::{runtime, seconds};

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
