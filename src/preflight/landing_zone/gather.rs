//! [`gather`]: ask ARM for the subnet, its route table, and Azure Policy's verdicts.

use futures::StreamExt;
use serde_json::{Value, json};

use crate::azure::landing_zone::{LandingZoneApi, PolicyRestrictions, RouteTable, Subnet};
use crate::azure::{ArmApi, ArmError};
use crate::preflight::fetch::Fetch;

use super::inputs::{Inputs, MAX_POLICY_CALLS, POLICY_CONCURRENCY, PolicyResource};

/// One resource's answer from Azure Policy.
#[derive(Debug, Clone)]
pub struct PolicyAnswer {
    pub resource: PolicyResource,
    /// The scope that answered ("resource group rg" / "subscription").
    pub scope: String,
    pub result: Fetch<PolicyRestrictions>,
}

/// The virtual network of an existing subnet the template joins, and its region as ARM answered.
#[derive(Debug, Clone)]
pub struct VnetAnswer {
    /// The spec field naming the subnet (`network.existingSubnet`, ...).
    pub field: &'static str,
    pub vnet_id: String,
    /// What joins it ("the pool's NICs", "the private endpoints").
    pub what: &'static str,
    /// Its `location`.
    pub location: Fetch<String>,
}

/// `…/virtualNetworks/{vnet}/subnets/{subnet}` → `…/virtualNetworks/{vnet}` (`None` when the id
/// names no subnet).
pub fn vnet_of(subnet_id: &str) -> Option<String> {
    let lower = subnet_id.to_ascii_lowercase();
    let at = lower.rfind("/subnets/")?;
    lower[..at]
        .contains("/providers/microsoft.network/virtualnetworks/")
        .then(|| subnet_id[..at].to_string())
}

/// The subnets whose VNet region preflight reads: (field, subnet id, what joins it).
pub(super) fn vnet_questions(inputs: &Inputs) -> Vec<(&'static str, String, &'static str)> {
    let mut out: Vec<(&'static str, String, &'static str)> = Vec::new();
    for (field, id, what) in [
        (
            "network.existingSubnet",
            inputs.subnet_id.as_deref(),
            "the pool's NICs",
        ),
        (
            "network.existingPrivateEndpointSubnet",
            inputs.pe_subnet_id.as_deref(),
            "the private endpoints",
        ),
    ] {
        if let Some(vnet) = id.and_then(vnet_of) {
            out.push((field, vnet, what));
        }
    }
    out
}

/// What ARM answered.
#[derive(Debug, Clone)]
pub struct Data {
    /// `None`: the spec names no existing subnet.
    pub subnet: Option<Fetch<Subnet>>,
    /// `None`: not asked (no subnet, or the subnet has no route table).
    pub route_table: Option<Fetch<RouteTable>>,
    /// One answer per resource; `Err` when nothing could be asked (no template, offline).
    pub policy: Result<Vec<PolicyAnswer>, Fetch<()>>,
    /// The subscription the deployment goes to (`None` offline).
    pub subscription: Option<String>,
    /// The region of each existing subnet's virtual network (issue 19).
    pub vnets: Vec<VnetAnswer>,
}

impl Data {
    /// Offline or without the client: every check skipped with `why`.
    pub fn skipped(inputs: &Inputs, why: &str) -> Data {
        Data {
            subnet: inputs
                .subnet_id
                .as_ref()
                .map(|_| Fetch::Skipped(why.into())),
            route_table: None,
            policy: Err(Fetch::Skipped(why.into())),
            subscription: None,
            vnets: vnet_questions(inputs)
                .into_iter()
                .map(|(field, vnet_id, what)| VnetAnswer {
                    field,
                    vnet_id,
                    what,
                    location: Fetch::Skipped(why.into()),
                })
                .collect(),
        }
    }

    /// Errors that end the run (credential, TLS, connection, 401).
    pub fn fatal(&self) -> Option<&ArmError> {
        let policy = self
            .policy
            .as_ref()
            .ok()
            .into_iter()
            .flatten()
            .map(|a| a.result.error());
        [
            self.subnet.as_ref().and_then(Fetch::error),
            self.route_table.as_ref().and_then(Fetch::error),
        ]
        .into_iter()
        .chain(policy)
        .chain(self.vnets.iter().map(|v| v.location.error()))
        .flatten()
        .find(|e| e.is_fatal())
    }
}

pub(super) fn is_group_not_found(e: &ArmError) -> bool {
    e.status == Some(404)
        && e.code
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("ResourceGroupNotFound"))
}

/// The checkPolicyRestrictions request for one resource. `pendingFields` asks for the
/// location restrictions (allowed / denied locations) so a deny can name the allowed ones.
pub fn policy_request(r: &PolicyResource) -> Value {
    let mut req = json!({
        "resourceDetails": {"resourceContent": r.content, "apiVersion": r.api_version},
        "includeAuditEffect": true
    });
    if let Some(l) = &r.location {
        req["pendingFields"] = json!([{"field": "location", "values": [l]}]);
    }
    req
}

pub(super) async fn ask_policy(
    api: &dyn LandingZoneApi,
    resource_group: Option<&str>,
    r: &PolicyResource,
) -> PolicyAnswer {
    let req = policy_request(r);
    let mut scope = match resource_group {
        Some(rg) => format!("resource group {rg}"),
        None => "the subscription".to_string(),
    };
    let mut result = api.check_policy_restrictions(resource_group, &req).await;
    // the group does not exist yet (deploy creates it): what applies to it is what applies to
    // the subscription, less assignments made on the group itself
    if let Err(e) = &result
        && is_group_not_found(e)
    {
        scope = "the subscription (the resource group does not exist yet)".to_string();
        result = api.check_policy_restrictions(None, &req).await;
    }
    PolicyAnswer {
        resource: r.clone(),
        scope,
        result: Fetch::from_result(result),
    }
}

/// Ask ARM: the subnet (then its route table) and Azure Policy, concurrently.
pub async fn gather(api: &dyn ArmApi, inputs: &Inputs, resource_group: Option<&str>) -> Data {
    let Some(lz) = api.landing_zone() else {
        return Data::skipped(
            inputs,
            "this ARM client cannot read subnets or ask Azure Policy",
        );
    };
    let network = async {
        let Some(id) = &inputs.subnet_id else {
            // gpuform's own subnet with an existing route table: read it for its region
            return match &inputs.route_table_id {
                Some(rt) => (None, Some(Fetch::from_result(lz.route_table(rt).await))),
                None => (None, None),
            };
        };
        let subnet = Fetch::from_result(lz.subnet(id).await);
        let route_table = match &subnet {
            Fetch::Got(s) => match s
                .properties
                .route_table
                .as_ref()
                .filter(|r| !r.id.is_empty())
            {
                Some(rt) => Some(Fetch::from_result(lz.route_table(&rt.id).await)),
                None => None,
            },
            _ => None,
        };
        (Some(subnet), route_table)
    };
    let policy = async {
        match &inputs.resources {
            Err(why) => Err(Fetch::Skipped(format!(
                "the ARM template could not be rendered ({why})"
            ))),
            Ok(list) => Ok(futures::stream::iter(list.iter().take(MAX_POLICY_CALLS))
                .map(|r| ask_policy(lz, resource_group, r))
                .buffered(POLICY_CONCURRENCY)
                .collect::<Vec<_>>()
                .await),
        }
    };
    let vnets = futures::future::join_all(vnet_questions(inputs).into_iter().map(
        |(field, vnet_id, what)| async move {
            let location = Fetch::from_result(lz.virtual_network_location(&vnet_id).await);
            VnetAnswer {
                field,
                vnet_id,
                what,
                location,
            }
        },
    ));
    let ((subnet, route_table), policy, vnets) = futures::join!(network, policy, vnets);
    Data {
        subnet,
        route_table,
        policy,
        subscription: Some(api.subscription().to_string()),
        vnets,
    }
}

// ---------------------------------------------------------------------------------------------
// Checks
