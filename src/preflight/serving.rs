//! A serving pool's frontend (issue 36): the subscription features it needs registered (the
//! private-only Application Gateway's `Microsoft.Network/EnableApplicationGatewayNetworkIsolation`,
//! MaxSurge rolling upgrades' `Microsoft.Compute/MaxSurgeRollingUpgrade`), read with the Features
//! API, the gateway's dedicated subnet against what its instances need, and the region's network
//! quota (`Usages - List` of Microsoft.Network) for the load balancer and gateway it creates.
//!
//! The inputs come from the one resolved plan (`plan.serving`), never from the spec again.

use ipnet::Ipv4Net;

use crate::azure::ArmApi;
use crate::azure::models::{Usage, find_usage};
use crate::facts::serving::{self as sf, Feature};
use crate::facts::serving_ops as f;
use crate::spec::Checked;

use super::fetch::Fetch;
use super::report::{Check, Status};

/// What preflight checks for a serving pool.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inputs {
    /// The subscription features the render needs (`plan.serving.required_features`).
    pub features: Vec<Feature>,
    /// The gateway's subnet (name, prefix) and its autoscale maximum.
    pub gateway_subnet: Option<(String, String, u32)>,
    /// The region the frontend is created in.
    pub region: String,
    /// The network limits the frontend counts against: one Application Gateway and/or one
    /// Standard Load Balancer (`plan.serving.gateway` / `plan.serving.load_balancer`).
    #[serde(skip)]
    pub frontends: Vec<f::NetworkLimit>,
}

/// What preflight read live for a serving pool.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub features: Vec<(Feature, Fetch<String>)>,
    /// The region's network usages; `None` when the pool has no frontend to count.
    pub network: Option<Fetch<Vec<Usage>>>,
}

impl Inputs {
    /// `None` for a queue-driven pool (or a spec the plan cannot be built from: render and
    /// validate say why).
    pub fn for_checked(checked: &Checked) -> Option<Inputs> {
        let plan = crate::plan::Plan::build(checked).ok()?;
        Self::of(&plan)
    }

    pub fn of(plan: &crate::plan::Plan) -> Option<Inputs> {
        let sv = plan.serving.as_ref()?;
        Some(Inputs {
            features: sv.required_features.clone(),
            gateway_subnet: sv.gateway.as_ref().map(|g| {
                (
                    g.subnet.name.clone(),
                    g.subnet.prefix.clone(),
                    g.max_capacity,
                )
            }),
            region: plan.params.location.clone(),
            frontends: sv
                .gateway
                .as_ref()
                .map(|_| f::GATEWAY_LIMIT)
                .into_iter()
                .chain(sv.load_balancer.as_ref().map(|_| f::LOAD_BALANCER_LIMIT))
                .collect(),
        })
    }
}

/// Each required feature's `properties.state` and the region's network usages, read live.
pub async fn gather(api: &dyn ArmApi, inputs: Option<&Inputs>) -> Gathered {
    let Some(i) = inputs else {
        return Gathered {
            features: Vec::new(),
            network: None,
        };
    };
    let features = futures::future::join_all(i.features.iter().map(|feat| async move {
        (
            *feat,
            Fetch::from_result(api.feature_state(feat.namespace, feat.name).await),
        )
    }));
    let network = async {
        if i.frontends.is_empty() {
            None
        } else {
            Some(Fetch::from_result(api.network_usages(&i.region).await))
        }
    };
    let (features, network) = futures::join!(features, network);
    Gathered { features, network }
}

/// Offline: features and network usages are read live only.
pub fn skipped(inputs: Option<&Inputs>, why: &str) -> Gathered {
    Gathered {
        features: inputs
            .map(|i| {
                i.features
                    .iter()
                    .map(|feat| (*feat, Fetch::Skipped(why.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
        network: inputs
            .filter(|i| !i.frontends.is_empty())
            .map(|_| Fetch::Skipped(why.to_string())),
    }
}

impl Gathered {
    /// Errors that end preflight (authentication and the like), as the other reads do.
    pub fn errors(&self) -> impl Iterator<Item = Option<&crate::azure::ArmError>> {
        self.features
            .iter()
            .map(|(_, f)| f.error())
            .chain(self.network.as_ref().map(Fetch::error))
    }
}

/// The check's id and title (both fixed words, so reports and pipelines can match them).
fn id_title(feat: &Feature) -> (&'static str, &'static str) {
    if feat.name == sf::GATEWAY_FEATURE.name {
        (
            "feature-gateway-network-isolation",
            "private Application Gateway feature",
        )
    } else if feat.name == sf::MAX_SURGE_FEATURE.name {
        ("feature-max-surge", "MaxSurge rolling upgrade feature")
    } else {
        ("feature-serving", "serving feature")
    }
}

/// A required feature not `Registered` blocks: Azure refuses the deployment without it.
pub fn feature_check(feat: &Feature, state: &Fetch<String>) -> Check {
    let (id, title) = id_title(feat);
    let name = format!("{}/{}", feat.namespace, feat.name);
    let show = f::feature_show_command(feat);
    let provider = f::provider_register_command(feat);
    let mut c = match state {
        Fetch::Got(s) if s.eq_ignore_ascii_case(f::FEATURE_REGISTERED) => base(
            id,
            title,
            Status::Pass,
            format!("{name} is Registered"),
        ),
        Fetch::Got(s)
            if s.eq_ignore_ascii_case(f::FEATURE_REGISTERING)
                || s.eq_ignore_ascii_case(f::FEATURE_PENDING) =>
        {
            base(
                id,
                title,
                Status::Fail,
                format!(
                    "{name} is {s}, not yet Registered ({}); the deployment fails until it is",
                    feat.why
                ),
            )
            .with_fix(format!(
                "wait until `{show}` says Registered (registration can take up to {} minutes{}), then {provider}",
                sf::FEATURE_REGISTRATION_MINUTES,
                if s.eq_ignore_ascii_case(f::FEATURE_PENDING) {
                    "; Pending waits for Microsoft's approval"
                } else {
                    ""
                }
            ))
        }
        Fetch::Got(s) => base(
            id,
            title,
            Status::Fail,
            format!("{name} is {s}: {}", feat.why),
        )
        .with_fix(format!(
            "{}; wait until `{show}` says Registered (up to {} minutes), then {provider}",
            feat.command(),
            sf::FEATURE_REGISTRATION_MINUTES
        )),
        Fetch::Failed(e) => {
            let mut c = base(
                id,
                title,
                Status::Unknown,
                format!("could not {}: {}", e.operation, e.summary()),
            );
            c.fix = Some(e.help.clone().unwrap_or_else(|| {
                format!("check it yourself: `{show}`; if it is not Registered: {}", feat.command())
            }));
            c.error = Some(e.clone());
            c
        }
        Fetch::Skipped(why) => base(id, title, Status::Skipped, why.clone()),
    };
    if c.fix.is_none() && c.status == Status::Skipped {
        c.fix = Some(format!("or check it yourself: `{show}`"));
    }
    c
}

/// The gateway's dedicated subnet: its instances at the autoscale maximum, the private frontend
/// IP and Azure's reserved addresses must fit (validate refuses a subnet too small); smaller
/// than the /24 Microsoft recommends warns.
pub fn subnet_check(name: &str, prefix: &str, max_capacity: u32) -> Check {
    const ID: &str = "gateway-subnet";
    const TITLE: &str = "Application Gateway subnet";
    let Ok(net) = prefix.parse::<Ipv4Net>() else {
        return base(
            ID,
            TITLE,
            Status::Fail,
            format!("{name} {prefix} is not an IPv4 prefix"),
        )
        .with_fix("set serving.frontend.subnet to a CIDR such as 10.60.1.0/24 (gpuform validate says more)");
    };
    let size = 1u64 << (32 - u32::from(net.prefix_len()));
    let usable = size.saturating_sub(u64::from(f::SUBNET_RESERVED_ADDRESSES));
    let need = u64::from(f::gateway_subnet_addresses(max_capacity))
        - u64::from(f::SUBNET_RESERVED_ADDRESSES);
    let what = format!(
        "{name} {prefix}: {usable} usable addresses for up to {max_capacity} gateway instances and the private frontend IP ({need} needed); a dedicated subnet, no other resource may join it"
    );
    if usable < need {
        base(ID, TITLE, Status::Fail, what).with_fix(format!(
            "a /{} or larger for serving.frontend.subnet, or a lower serving.frontend.capacity.max",
            sf::GATEWAY_SUBNET_PREFIX
        ))
    } else if net.prefix_len() > sf::GATEWAY_SUBNET_PREFIX {
        base(
            ID,
            TITLE,
            Status::Warn,
            format!(
                "{what}; Microsoft recommends a /{} so the gateway can grow to its 125 instances",
                sf::GATEWAY_SUBNET_PREFIX
            ),
        )
        .with_fix(format!(
            "a /{} for serving.frontend.subnet (the subnet cannot be resized while the gateway uses it)",
            sf::GATEWAY_SUBNET_PREFIX
        ))
    } else {
        base(ID, TITLE, Status::Pass, what)
    }
}

/// One frontend resource against the region's network limit: the frontend needs one more
/// (on a redeployment, `redeploy`, the existing one is in the count already, so a full quota
/// only warns). A usage list without the entry is Unknown (the documented limit is said), not a
/// pass.
pub fn network_check(
    limit: &f::NetworkLimit,
    region: &str,
    usages: &Fetch<Vec<Usage>>,
    redeploy: bool,
) -> Check {
    let (id, title) = if limit.usage == f::GATEWAY_LIMIT.usage {
        ("quota-application-gateways", "Application Gateway quota")
    } else {
        ("quota-load-balancers", "Load Balancer quota")
    };
    let list = format!("az network list-usages --location {region} -o table");
    match usages {
        Fetch::Got(u) => match find_usage(u, limit.usage) {
            Some((u, _)) => {
                let free = u.limit - u.current_value;
                let what = format!(
                    "{} in {region}: {} of {} in use, the frontend needs 1",
                    limit.localized, u.current_value, u.limit
                );
                if free >= 1 {
                    base(id, title, Status::Pass, format!("{what} ({free} free)"))
                } else if redeploy {
                    base(
                        id,
                        title,
                        Status::Warn,
                        format!(
                            "{what}: none free; a redeployment reuses its own, a new one is refused"
                        ),
                    )
                    .with_fix(format!("check with `{list}`"))
                } else {
                    base(
                        id,
                        title,
                        Status::Fail,
                        format!("{what}: none free; Azure refuses the deployment"),
                    )
                    .with_fix(format!(
                        "delete unused ones in {region} or ask Azure support to raise the {} limit (documented default {}), then run gpuform preflight again; `{list}` shows the count",
                        limit.localized, limit.documented
                    ))
                }
            }
            None => base(
                id,
                title,
                Status::Unknown,
                format!(
                    "no usage named {:?} in the network usages of {region} (the documented limit is {} per region per subscription)",
                    limit.usage, limit.documented
                ),
            )
            .with_fix(format!("check it yourself: `{list}`")),
        },
        Fetch::Failed(e) => {
            let mut c = base(
                id,
                title,
                Status::Unknown,
                format!("could not {}: {}", e.operation, e.summary()),
            );
            c.fix = Some(
                e.help
                    .clone()
                    .unwrap_or_else(|| format!("check it yourself: `{list}`")),
            );
            c.error = Some(e.clone());
            c
        }
        Fetch::Skipped(why) => base(id, title, Status::Skipped, why.clone())
            .with_fix(format!("or check it yourself: `{list}`")),
    }
}

/// Every serving check of the subscription.
pub fn checks(inputs: Option<&Inputs>, gathered: &Gathered, redeploy: bool) -> Vec<Check> {
    let mut out: Vec<Check> = gathered
        .features
        .iter()
        .map(|(feat, state)| feature_check(feat, state))
        .collect();
    if let Some((name, prefix, max)) = inputs.and_then(|i| i.gateway_subnet.as_ref()) {
        out.push(subnet_check(name, prefix, *max));
    }
    if let (Some(i), Some(network)) = (inputs, gathered.network.as_ref()) {
        out.extend(
            i.frontends
                .iter()
                .map(|l| network_check(l, &i.region, network, redeploy)),
        );
    }
    out
}

fn base(id: &'static str, title: &'static str, status: Status, message: String) -> Check {
    Check {
        id,
        title,
        status,
        message,
        fix: None,
        quota: None,
        error: None,
    }
}

trait WithFix {
    fn with_fix(self, fix: impl Into<String>) -> Self;
}

impl WithFix for Check {
    fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_not_registered_blocks_with_the_register_command() {
        let c = feature_check(&sf::GATEWAY_FEATURE, &Fetch::Got("NotRegistered".into()));
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert!(fix.starts_with("az feature register --namespace Microsoft.Network --name EnableApplicationGatewayNetworkIsolation;"), "{fix}");
        assert!(
            fix.ends_with("then az provider register --namespace Microsoft.Network"),
            "{fix}"
        );
        let c = feature_check(&sf::GATEWAY_FEATURE, &Fetch::Got("Registering".into()));
        assert_eq!(c.status, Status::Fail);
        assert!(!c.fix.unwrap().contains("az feature register"));
        let c = feature_check(&sf::GATEWAY_FEATURE, &Fetch::Got("Registered".into()));
        assert_eq!(c.status, Status::Pass);
    }

    #[test]
    fn the_gateway_subnet_fits_its_instances_and_warns_below_a_24() {
        assert_eq!(
            subnet_check("snet-appgw", "10.0.1.0/24", 125).status,
            Status::Pass
        );
        // 16 - 5 = 11 usable: 10 instances + the frontend fit, 11 do not
        assert_eq!(
            subnet_check("snet-appgw", "10.0.1.0/28", 10).status,
            Status::Warn
        );
        assert_eq!(
            subnet_check("snet-appgw", "10.0.1.0/28", 11).status,
            Status::Fail
        );
    }

    fn usages(gateways: (i64, i64)) -> Fetch<Vec<Usage>> {
        Fetch::Got(
            serde_json::from_value(serde_json::json!([
                {"currentValue": 1, "limit": 1000, "name": {"localizedValue": "Load Balancers", "value": "LoadBalancers"}, "unit": "Count"},
                {"currentValue": gateways.0, "limit": gateways.1, "name": {"localizedValue": "Application Gateways", "value": "ApplicationGateways"}, "unit": "Count"}
            ]))
            .unwrap(),
        )
    }

    #[test]
    fn a_full_network_quota_blocks_a_new_frontend_and_warns_a_redeployment() {
        let lim = f::GATEWAY_LIMIT;
        assert_eq!(
            network_check(&lim, "eastus2", &usages((999, 1000)), false).status,
            Status::Pass
        );
        let c = network_check(&lim, "eastus2", &usages((1000, 1000)), false);
        assert_eq!(c.status, Status::Fail, "{}", c.message);
        // a redeployment's own gateway is in the count already
        let c = network_check(&lim, "eastus2", &usages((1000, 1000)), true);
        assert_eq!(c.status, Status::Warn, "{}", c.message);
        // an answer without the entry is not a pass
        let c = network_check(&lim, "eastus2", &Fetch::Got(Vec::new()), false);
        assert_eq!(c.status, Status::Unknown, "{}", c.message);
        assert!(c.message.contains("1000 per region"), "{}", c.message);
        // the load balancer reads its own entry
        let c = network_check(
            &f::LOAD_BALANCER_LIMIT,
            "eastus2",
            &usages((1000, 1000)),
            false,
        );
        assert_eq!(c.status, Status::Pass, "{}", c.message);
        assert!(
            c.message
                .starts_with("Load Balancers in eastus2: 1 of 1000")
        );
    }
}
