//! Which Azure cloud to talk to: the ARM endpoint, the Entra authority host and the token scope.
//! The clouds and their endpoints are facts ([`crate::facts::clouds`]); this module chooses one
//! and applies the user's overrides.

use url::Url;

pub use crate::facts::clouds::{Cloud, EnvironmentSuffixes, MonitorHosts};

/// The cloud a command talks to: `--cloud` when given, else the spec's
/// ([`crate::spec::model::WorkloadSpec::effective_cloud`]), else the public cloud. A `--cloud`
/// that contradicts the spec is refused (the message names both): a template sent to the other
/// cloud's subscription would fail on its region.
pub fn choose(flag: Option<Cloud>, spec: Option<Cloud>) -> Result<Cloud, String> {
    match (flag, spec) {
        (Some(f), Some(s)) if f != s => Err(format!(
            "--cloud {f} contradicts the spec, whose cloud is {s} (spec.cloud, or its region's cloud)"
        )),
        (Some(c), _) | (None, Some(c)) => Ok(c),
        (None, None) => Ok(Cloud::AzureCloud),
    }
}

/// Where requests go, after the cloud's defaults and the user's overrides are combined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub cloud: Cloud,
    /// ARM base URL, always with a trailing slash so `join` appends.
    pub arm: Url,
    /// Entra authority host (`https://login.microsoftonline.com`).
    pub authority: Url,
    /// Token scope for ARM; stays the cloud's even when the endpoint is overridden (a proxy or a
    /// private link in front of ARM still expects the cloud's audience).
    pub scope: String,
    /// Microsoft Graph base URL (trailing slash): the cloud's, or `--graph-endpoint`.
    pub graph: Url,
    /// Token scope for Graph; stays the cloud's when the endpoint is overridden.
    pub graph_scope: String,
}

/// A bad `--arm-endpoint` / `AZURE_AUTHORITY_HOST`.
#[derive(Debug, thiserror::Error)]
#[error("{what} `{value}` {problem}")]
pub struct EndpointError {
    pub what: &'static str,
    pub value: String,
    pub problem: String,
}

impl Endpoints {
    /// The cloud's endpoints with optional overrides (`--arm-endpoint`, `AZURE_AUTHORITY_HOST`).
    /// Both must be https: azure_core refuses to send a bearer token or ask for one over http.
    pub fn resolve(
        cloud: Cloud,
        arm_override: Option<&str>,
        authority_override: Option<&str>,
    ) -> Result<Self, EndpointError> {
        let arm = https_url(
            "the ARM endpoint (--arm-endpoint)",
            arm_override.unwrap_or(cloud.arm_endpoint()),
        )?;
        let authority = https_url(
            "the authority host (AZURE_AUTHORITY_HOST)",
            authority_override.unwrap_or(cloud.authority_host()),
        )?;
        Ok(Self {
            cloud,
            arm,
            authority,
            scope: cloud.arm_scope().to_string(),
            graph: https_url("the Graph endpoint", cloud.graph_endpoint())?,
            graph_scope: cloud.graph_scope().to_string(),
        })
    }

    /// Send Microsoft Graph requests to `graph` (`--graph-endpoint`) instead of the cloud's.
    pub fn with_graph(mut self, graph: Option<&str>) -> Result<Self, EndpointError> {
        if let Some(g) = graph {
            self.graph = https_url("the Graph endpoint (--graph-endpoint)", g)?;
        }
        Ok(self)
    }
}

fn https_url(what: &'static str, value: &str) -> Result<Url, EndpointError> {
    let err = |problem: &str| EndpointError {
        what,
        value: value.to_string(),
        problem: problem.to_string(),
    };
    let mut url = Url::parse(value.trim()).map_err(|e| err(&format!("is not a URL ({e})")))?;
    if url.scheme() != "https" {
        return Err(err(
            "must use https (Azure SDK policy: tokens are never sent over plain http)",
        ));
    }
    if url.host_str().is_none() {
        return Err(err("has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(err("must not have a query or fragment"));
    }
    if !url.path().ends_with('/') {
        let p = format!("{}/", url.path());
        url.set_path(&p);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clouds_have_matching_endpoints_and_scopes() {
        for c in Cloud::ALL {
            let e = Endpoints::resolve(c, None, None).unwrap();
            assert_eq!(e.arm.as_str(), c.arm_endpoint());
            assert_eq!(e.graph.as_str(), c.graph_endpoint());
            assert_eq!(e.graph_scope, format!("{}.default", c.graph_endpoint()));
            assert!(
                e.scope.starts_with(e.arm.as_str().trim_end_matches('/')),
                "{c}"
            );
            assert_eq!(Cloud::parse(&c.name().to_lowercase()), Some(c));
        }
    }

    #[test]
    fn the_flag_must_agree_with_the_spec() {
        use Cloud::*;
        assert_eq!(choose(None, None), Ok(AzureCloud));
        assert_eq!(choose(None, Some(AzureChinaCloud)), Ok(AzureChinaCloud));
        assert_eq!(choose(Some(AzureUSGovernment), None), Ok(AzureUSGovernment));
        assert_eq!(
            choose(Some(AzureUSGovernment), Some(AzureUSGovernment)),
            Ok(AzureUSGovernment)
        );
        let e = choose(Some(AzureCloud), Some(AzureChinaCloud)).unwrap_err();
        assert!(
            e.contains("--cloud AzureCloud") && e.contains("AzureChinaCloud"),
            "{e}"
        );
    }

    #[test]
    fn regions_name_their_cloud_and_the_spec_field_uses_the_az_names() {
        assert_eq!(Cloud::for_region("chinanorth3"), Cloud::AzureChinaCloud);
        assert_eq!(Cloud::for_region("usdodeast"), Cloud::AzureUSGovernment);
        assert_eq!(Cloud::for_region("westeurope"), Cloud::AzureCloud);
        for c in Cloud::ALL {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Cloud>(&json).unwrap(), c);
        }
    }

    #[test]
    fn overrides_must_be_https_and_get_a_trailing_slash() {
        let e = Endpoints::resolve(
            Cloud::AzureCloud,
            Some("https://127.0.0.1:8443"),
            Some("https://127.0.0.1:8443"),
        )
        .unwrap();
        assert_eq!(e.arm.as_str(), "https://127.0.0.1:8443/");
        assert_eq!(e.scope, "https://management.azure.com/.default");
        let e =
            Endpoints::resolve(Cloud::AzureCloud, Some("https://proxy.corp/arm"), None).unwrap();
        assert_eq!(
            e.arm.join("subscriptions").unwrap().as_str(),
            "https://proxy.corp/arm/subscriptions"
        );
        let err = Endpoints::resolve(Cloud::AzureCloud, Some("http://127.0.0.1:8080/"), None)
            .unwrap_err();
        assert!(err.to_string().contains("must use https"), "{err}");
        assert!(Endpoints::resolve(Cloud::AzureCloud, None, Some("login.example")).is_err());
    }
}
