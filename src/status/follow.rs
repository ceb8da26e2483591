//! Which group `status` reads: the `-g` group, or the `<RG>-<region>` group a failover landed
//! in (`crate::deploy::landed`).

use crate::azure::{Arm, ArmError};
use crate::deploy::landed::{self, Landed};
use crate::spec::model::Spec;

/// The group to read (`Ok(Ok(group))`, after saying on stderr why it is not `rg`), or the
/// refusal when several groups hold the workload (`Ok(Err((message, help)))`). `no_follow`: `rg` as
/// given, nothing read. A lookup Azure refuses (403, ...) leaves `rg` as given, said on stderr.
pub async fn group_to_read(
    arm: &Arm,
    rg: &str,
    spec: &Spec,
    spec_path: &str,
    no_follow: bool,
) -> Result<Result<String, (String, String)>, ArmError> {
    let rg = rg.trim();
    if no_follow {
        return Ok(Ok(rg.to_string()));
    }
    let found = match landed::landed(arm, rg, spec, &[]).await {
        Ok(f) => f,
        // status degrades: without the deployment lists it reads the group as given
        Err(e) if !e.is_fatal() => {
            eprintln!(
                "status: could not look for the group a failover landed in ({}); reading {rg}",
                e.summary()
            );
            return Ok(Ok(rg.to_string()));
        }
        Err(e) => return Err(e),
    };
    Ok(match found {
        Landed::Ambiguous(held) => Err(landed::ambiguous_message(
            "status",
            spec_path,
            &spec.metadata.name,
            &held,
        )),
        Landed::Group {
            group,
            followed,
            leftovers,
        } => {
            if let Some(why) = followed {
                eprintln!("status: {why}; reading {group} (--no-follow reads {rg})");
            }
            for h in leftovers {
                eprintln!(
                    "status: {} also holds deployments of {} ({}): what an earlier attempt left (gpuform destroy {spec_path} -g {} --no-follow removes it)",
                    h.group,
                    spec.metadata.name,
                    h.deployments_listed(),
                    h.group
                );
            }
            Ok(group)
        }
    })
}
