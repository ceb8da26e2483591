//! The Azure clouds gpuform knows and their endpoints.
//!
//! Sources (read 2026-12-03):
//! - Resource Manager endpoint, Entra authority host, token audience, `environment().suffixes`
//!   (storage, keyvaultDns): the clouds `az cloud show` prints, Azure/azure-cli
//!   `src/azure-cli-core/azure/cli/core/cloud.py`@db5e7bc99fdf616cba5396f6787f34a3e0fc6325
//!   (`AZURE_PUBLIC_CLOUD`, `AZURE_CHINA_CLOUD`, `AZURE_US_GOV_CLOUD`), agreeing with Learn's
//!   `Get-AzEnvironment` example (https://learn.microsoft.com/powershell/module/az.accounts/get-azenvironment).
//!   21Vianet's newer Entra page names `login.partner.microsoftonline.cn` as the China
//!   authority; `login.chinacloudapi.cn` (the azure-cli value) still answers, so it is kept.
//! - Portals: "National clouds" authentication page, app registration endpoints table
//!   (https://docs.azure.cn/entra/identity-platform/authentication-national-cloud).
//! - Azure Monitor agent hosts: see [`MonitorHosts`].
//! - Which cloud a region belongs to ([`Cloud::for_region`]): the region name prefixes
//!   (`china*`, `usgov*`, `usdod*`) of `az account list-locations` in each cloud; an
//!   assumption for names not yet published ([`REGION_PREFIX`]).

use std::fmt;

use super::Source;

/// Endpoints and suffixes of the three clouds.
pub const ENDPOINTS: Source = Source::doc(
    "Azure/azure-cli src/azure-cli-core/azure/cli/core/cloud.py@db5e7bc99fdf616cba5396f6787f34a3e0fc6325; \
     https://docs.azure.cn/entra/identity-platform/authentication-national-cloud (portals)",
    "2026-12-03",
);

/// Microsoft Graph per cloud (`endpoints.microsoft_graph_resource_id` of `AZURE_PUBLIC_CLOUD`,
/// `AZURE_CHINA_CLOUD`, `AZURE_US_GOV_CLOUD`); the token scope is the endpoint + `/.default`.
/// `tests/facts_standby.rs` holds these against `tests/fixtures/sources/graph-endpoints.json`.
pub const GRAPH: Source = Source::doc(
    "Azure/azure-cli src/azure-cli-core/azure/cli/core/cloud.py@004224f71b2281f7f7acf5435f224805c1c54674 \
     (endpoints.microsoft_graph_resource_id)",
    "2026-12-03",
);

/// A region belongs to a sovereign cloud by its name's prefix.
pub const REGION_PREFIX: Source = Source::assumption(
    "no source lists a rule; every China region name starts with `china` and every US \
     Government one with `usgov`/`usdod` in the sovereign clouds' region lists \
     (src/catalog/sovereign_sizes.json); a new region named otherwise would be taken as public",
    "2026-12-03",
);

/// A sovereign cloud, named the way `az cloud list` names them (also `spec.cloud`'s values).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Cloud {
    #[default]
    AzureCloud,
    AzureChinaCloud,
    AzureUSGovernment,
}

impl Cloud {
    pub const ALL: [Cloud; 3] = [
        Cloud::AzureCloud,
        Cloud::AzureChinaCloud,
        Cloud::AzureUSGovernment,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "AzureCloud",
            Cloud::AzureChinaCloud => "AzureChinaCloud",
            Cloud::AzureUSGovernment => "AzureUSGovernment",
        }
    }

    pub fn parse(s: &str) -> Option<Cloud> {
        Cloud::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
    }

    /// Resource Manager endpoint.
    pub fn arm_endpoint(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://management.azure.com/",
            Cloud::AzureChinaCloud => "https://management.chinacloudapi.cn/",
            Cloud::AzureUSGovernment => "https://management.usgovcloudapi.net/",
        }
    }

    /// Microsoft Entra authority host.
    pub fn authority_host(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://login.microsoftonline.com",
            Cloud::AzureChinaCloud => "https://login.chinacloudapi.cn",
            Cloud::AzureUSGovernment => "https://login.microsoftonline.us",
        }
    }

    /// The Azure portal (deployment links in deploy's messages).
    pub fn portal(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://portal.azure.com",
            Cloud::AzureChinaCloud => "https://portal.azure.cn",
            Cloud::AzureUSGovernment => "https://portal.azure.us",
        }
    }

    /// Microsoft Graph's endpoint (with a trailing slash). Source: [`GRAPH`].
    pub fn graph_endpoint(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://graph.microsoft.com/",
            Cloud::AzureChinaCloud => "https://microsoftgraph.chinacloudapi.cn/",
            Cloud::AzureUSGovernment => "https://graph.microsoft.us/",
        }
    }

    /// The scope a Microsoft Graph token is requested for. Source: [`GRAPH`].
    pub fn graph_scope(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://graph.microsoft.com/.default",
            Cloud::AzureChinaCloud => "https://microsoftgraph.chinacloudapi.cn/.default",
            Cloud::AzureUSGovernment => "https://graph.microsoft.us/.default",
        }
    }

    /// The scope a Resource Manager token is requested for (the ARM audience + `/.default`).
    pub fn arm_scope(self) -> &'static str {
        match self {
            Cloud::AzureCloud => "https://management.azure.com/.default",
            Cloud::AzureChinaCloud => "https://management.chinacloudapi.cn/.default",
            Cloud::AzureUSGovernment => "https://management.usgovcloudapi.net/.default",
        }
    }
}

/// The `environment().suffixes` values a rendered template reads, per cloud (the output of
/// `az cloud show --name <cloud> --query suffixes`; ARM template functions, "environment").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvironmentSuffixes {
    /// `environment().suffixes.keyvaultDns`, with its leading dot.
    pub keyvault_dns: &'static str,
    /// `environment().suffixes.storage`.
    pub storage: &'static str,
}

impl Cloud {
    /// What `environment().suffixes` returns in this cloud.
    pub fn suffixes(self) -> EnvironmentSuffixes {
        match self {
            Cloud::AzureCloud => EnvironmentSuffixes {
                keyvault_dns: ".vault.azure.net",
                storage: "core.windows.net",
            },
            Cloud::AzureChinaCloud => EnvironmentSuffixes {
                keyvault_dns: ".vault.azure.cn",
                storage: "core.chinacloudapi.cn",
            },
            Cloud::AzureUSGovernment => EnvironmentSuffixes {
                keyvault_dns: ".vault.usgovcloudapi.net",
                storage: "core.usgovcloudapi.net",
            },
        }
    }

    /// The cloud a region belongs to (`chinanorth3` → China, `usgovvirginia` / `usdodeast` →
    /// US Government, anything else → the public cloud). A template deploys to the cloud of
    /// the subscription it is sent to; this is what a spec's region implies.
    pub fn for_region(region: &str) -> Cloud {
        let r = region.to_ascii_lowercase();
        if r.starts_with("china") {
            Cloud::AzureChinaCloud
        } else if r.starts_with("usgov") || r.starts_with("usdod") {
            Cloud::AzureUSGovernment
        } else {
            Cloud::AzureCloud
        }
    }
}

impl fmt::Display for Cloud {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Host suffixes of the Azure Monitor Agent's endpoints per cloud (Learn, "Azure Monitor agent
/// network configuration"; the public, 21Vianet and US Government tables of "Network firewall
/// requirements for monitoring Kubernetes cluster": `*.ods.opinsights.azure.cn`,
/// `global.handler.control.monitor.azure.cn`, …). Landing zones (issue 13) list them for the
/// hub firewall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonitorHosts {
    /// `monitor.azure.com`: `global.handler.control.…`, `<region>.handler.control.…`,
    /// `….ingest.…` (data collection endpoints).
    pub monitor: &'static str,
    /// `opinsights.azure.com`: `<workspace id>.ods.…`, `….oms.…`.
    pub opinsights: &'static str,
}

impl Cloud {
    pub fn monitor_hosts(self) -> MonitorHosts {
        match self {
            Cloud::AzureCloud => MonitorHosts {
                monitor: "monitor.azure.com",
                opinsights: "opinsights.azure.com",
            },
            Cloud::AzureChinaCloud => MonitorHosts {
                monitor: "monitor.azure.cn",
                opinsights: "opinsights.azure.cn",
            },
            Cloud::AzureUSGovernment => MonitorHosts {
                monitor: "monitor.azure.us",
                opinsights: "opinsights.azure.us",
            },
        }
    }
}
