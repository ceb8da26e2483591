//! A serving pool's frontend (issue 36): the types destroy deletes for it, and what to do when
//! Azure refuses a deletion because something still uses the resource.

use std::collections::BTreeMap;

use crate::azure::ArmError;
use crate::facts::serving_ops as f;
use crate::plan::Plan;

use super::inventory::Target;

/// The frontend's resource types the plan deploys (gateway, internal load balancer, Private
/// Link service), lower case.
pub fn frontend_types(plan: &Plan) -> Vec<&'static str> {
    let Some(sv) = &plan.serving else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if sv.private_link.is_some() {
        out.push("Microsoft.Network/privateLinkServices");
    }
    if sv.load_balancer.is_some() {
        out.push("Microsoft.Network/loadBalancers");
    }
    if sv.gateway.is_some() {
        out.push("Microsoft.Network/applicationGateways");
    }
    out
}

/// The frontend's types with the API version gpuform renders them with (the type data's,
/// `facts::api`), added where the rendered template does not name them itself: their DELETE
/// never goes out without a version of their own type.
pub fn add_frontend_versions(plan: &Plan, apis: &mut BTreeMap<String, String>) {
    for ty in frontend_types(plan) {
        if let Some((_, v)) = plan
            .api
            .entries()
            .into_iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(ty))
        {
            apis.entry(ty.to_ascii_lowercase())
                .or_insert_with(|| v.to_string());
        }
    }
}

/// Help for a refused deletion of the frontend: Azure's in-use codes
/// ([`f::IN_USE`], [`f::PLS_WITH_CONNECTIONS`]) say what has to go first.
pub fn in_use_help(t: &Target, e: &ArmError) -> Option<String> {
    let code = e.code.as_deref()?;
    if code.eq_ignore_ascii_case(f::PLS_WITH_CONNECTIONS) {
        return Some(f::pls_connections_help(
            t.resource_group.as_deref().unwrap_or("RG"),
            &t.name,
        ));
    }
    let users: Vec<&str> = f::IN_USE
        .iter()
        .filter(|u| {
            u.target.eq_ignore_ascii_case(&t.resource_type)
                && u.code.is_some_and(|c| c.eq_ignore_ascii_case(code))
        })
        .map(|u| u.user)
        .collect();
    (!users.is_empty()).then(|| {
        format!(
            "Azure refuses to delete {} {} while a {} uses it ({code}); the message names it: delete that first (destroy deletes the ones its deployment created in that order), then run destroy again",
            t.resource_type,
            t.name,
            users.join(" or a ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::destroy::inventory::{parse_id, stage};

    #[test]
    fn every_in_use_user_goes_before_what_it_uses() {
        for u in f::IN_USE {
            assert!(
                stage(u.user) < stage(u.target),
                "{} must go before {}",
                u.user,
                u.target
            );
        }
        // the Private Link service before the load balancer, both before the VNet
        let order: Vec<u8> = f::FRONTEND_TYPES.iter().map(|t| stage(t)).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    }

    #[test]
    fn refusals_say_what_goes_first() {
        let t = parse_id(
            "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/privateLinkServices/pls-x",
        )
        .unwrap();
        let mut e = ArmError::new(crate::azure::ErrorKind::Http, "delete", "refused");
        e.code = Some(f::PLS_WITH_CONNECTIONS.into());
        let h = in_use_help(&t, &e).unwrap();
        assert!(
            h.contains(
                "az network private-link-service connection delete -g rg --service-name pls-x"
            ),
            "{h}"
        );
        let lb = parse_id(
            "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lbi-x",
        )
        .unwrap();
        e.code = Some("LoadBalancerInUseByVirtualMachineScaleSet".into());
        let h = in_use_help(&lb, &e).unwrap();
        assert!(
            h.contains("Microsoft.Compute/virtualMachineScaleSets"),
            "{h}"
        );
        e.code = Some("SomethingElse".into());
        assert!(in_use_help(&lb, &e).is_none());
    }
}
