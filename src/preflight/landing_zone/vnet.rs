//! The region of the virtual network each existing subnet belongs to (issue 19): a NIC and a
//! private endpoint must be in their VNet's region (`facts::placement`), and the template puts
//! them in the spec's region, so a subnet of a VNet elsewhere can never deploy. The subnet's
//! own answer has no location: preflight reads the VNet.

use crate::facts::placement;
use crate::preflight::fetch::Fetch;
use crate::preflight::report::{Check, Status};

use super::common::{check, failed, with_fix};
use super::gather::Data;
use super::inputs::Inputs;
use super::policy::same_location;

const ID: &str = "landing-zone-vnet-region";
const TITLE: &str = "region of the existing subnets' virtual networks";

pub(super) fn vnet_region_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    for v in &data.vnets {
        let source = if v.field == "network.existingPrivateEndpointSubnet" {
            placement::PRIVATE_ENDPOINT.what
        } else {
            placement::NIC.what
        };
        let vnet = v.vnet_id.rsplit('/').next().unwrap_or(&v.vnet_id);
        out.push(match &v.location {
            Fetch::Skipped(why) => check(ID, TITLE, Status::Skipped, why.clone()),
            Fetch::Failed(e) if e.status == Some(404) => with_fix(
                check(
                    ID,
                    TITLE,
                    Status::Fail,
                    format!(
                        "{}: the virtual network {} does not exist ({})",
                        v.field,
                        v.vnet_id,
                        e.summary()
                    ),
                ),
                format!(
                    "check the subscription, resource group and VNet name in {} (`az network vnet show --ids {}`)",
                    v.field, v.vnet_id
                ),
            ),
            Fetch::Failed(e) => {
                let mut c = failed(ID, TITLE, &format!("the region of {}'s virtual network", v.field), e);
                if e.status == Some(403) {
                    c.fix = Some(format!(
                        "grant the deploying identity Network Reader (or Reader) on the virtual network {vnet} to check its region; {} must be in it",
                        v.what
                    ));
                }
                c
            }
            Fetch::Got(loc) if loc.trim().is_empty() => check(
                ID,
                TITLE,
                Status::Unknown,
                format!("{}: ARM answered the virtual network {vnet} without a location", v.field),
            ),
            Fetch::Got(loc) if !same_location(loc, &inputs.region) => with_fix(
                check(
                    ID,
                    TITLE,
                    Status::Fail,
                    format!(
                        "{}: the virtual network {vnet} is in {loc}, the spec's region is {}: {} must be in their virtual network's region ({source})",
                        v.field, inputs.region, v.what
                    ),
                ),
                format!(
                    "set spec.region to {loc} (the VNet's region), or ask the platform team for a subnet of a virtual network in {}",
                    inputs.region
                ),
            ),
            Fetch::Got(loc) => check(
                ID,
                TITLE,
                Status::Pass,
                format!(
                    "{}: the virtual network {vnet} is in {loc}, the spec's region",
                    v.field
                ),
            ),
        });
    }
}
