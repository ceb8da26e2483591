//! `ArmApi`: the Azure calls the rest of gpuform makes, as a trait so commands can run against
//! an in-memory fake; [`Arm`] implements it over an [`ArmClient`] for one subscription.

use serde::Deserialize;
use serde_json::json;

use super::client::{ArmClient, Op};
use super::error::ArmError;
use super::models::{DeletedVault, NameAvailability, ResourceRef, ResourceSku, Usage};

pub use crate::facts::api::FEATURES_API;
pub use crate::facts::api::KEYVAULT_API;
pub use crate::facts::api::PROVIDERS_API;
pub use crate::facts::api::SERVICEBUS_API;
pub use crate::facts::api::SKUS_API;
pub use crate::facts::api::STORAGE_API;
pub use crate::facts::api::USAGES_API;

/// Read-only calls preflight makes (deploy adds its own).
#[async_trait::async_trait]
pub trait ArmApi: Send + Sync {
    fn subscription(&self) -> &str;
    /// Resource SKUs offered in `location` (all resource types; restricted ones included).
    async fn resource_skus(&self, location: &str) -> Result<Vec<ResourceSku>, ArmError>;
    /// Compute quota usages in `location`.
    async fn usages(&self, location: &str) -> Result<Vec<Usage>, ArmError>;
    /// Network quota usage in a region (`Microsoft.Network/locations/{location}/usages`): the
    /// serving frontend's load balancers and application gateways count against it.
    async fn network_usages(&self, location: &str) -> Result<Vec<Usage>, ArmError>;
    /// `registrationState` of a resource provider namespace (`Registered`, `NotRegistered`, ...).
    async fn provider_state(&self, namespace: &str) -> Result<String, ArmError>;
    /// `properties.state` of a preview feature (`Registered`, `NotRegistered`, `Pending`, ...).
    async fn feature_state(&self, namespace: &str, feature: &str) -> Result<String, ArmError>;
    /// Is a Key Vault name free (vault names are global)?
    async fn key_vault_name(&self, name: &str) -> Result<NameAvailability, ArmError>;
    /// Key vaults in the subscription (to recognise a taken name as one's own).
    async fn key_vaults(&self) -> Result<Vec<ResourceRef>, ArmError>;
    /// Soft-deleted vaults of the subscription, every location (a vault name stays reserved
    /// while its vault is soft-deleted).
    async fn deleted_key_vaults(&self) -> Result<Vec<DeletedVault>, ArmError>;
    /// Is a Service Bus namespace name free (namespace names are global DNS names)?
    async fn service_bus_name(&self, name: &str) -> Result<NameAvailability, ArmError>;
    /// Service Bus namespaces in the subscription (to recognise a taken name as one's own).
    async fn service_bus_namespaces(&self) -> Result<Vec<ResourceRef>, ArmError>;
    /// Is a storage account name free (account names are global DNS names)?
    async fn storage_account_name(&self, name: &str) -> Result<NameAvailability, ArmError>;
    /// Storage accounts in the subscription (to recognise a taken name as one's own).
    async fn storage_accounts(&self) -> Result<Vec<ResourceRef>, ArmError>;
    /// Landing-zone reads (subnet, route table, Azure Policy; issue 13). `None` (the default)
    /// for in-memory fakes that do not answer them: preflight then says it could not check.
    fn landing_zone(&self) -> Option<&dyn super::landing_zone_api::LandingZoneApi> {
        None
    }
    /// Spot placement scores and eviction rates (issue 23). `None` (the default) for in-memory
    /// fakes: preflight then leaves the Spot checks out.
    fn spot(&self) -> Option<&dyn super::spot_placement::SpotApi> {
        None
    }
    /// The standby pool provider's principal (Microsoft Graph) and its role assignments (issue
    /// 23). `None` (the default) for in-memory fakes: preflight lists the roles to check.
    fn standby(&self) -> Option<&dyn super::standby_api::StandbyApi> {
        None
    }
    /// The group's VMs and policy assignments (issue 38: what the GPU telemetry policy reaches).
    /// `None` (the default) for in-memory fakes.
    fn group(&self) -> Option<&dyn super::group_api::GroupApi> {
        None
    }
}

/// ARM for one subscription.
#[derive(Debug, Clone)]
pub struct Arm {
    pub client: ArmClient,
    /// The Logs Query API client (`status`'s workspace query); `None` when built without one.
    pub logs: Option<ArmClient>,
    subscription: String,
    /// Microsoft Graph, with the same credential (the standby provider's principal).
    pub graph: Option<ArmClient>,
}

impl Arm {
    pub fn new(client: ArmClient, subscription: impl Into<String>) -> Self {
        Self {
            client,
            logs: None,
            subscription: subscription.into(),
            graph: None,
        }
    }

    /// This ARM with a Logs Query API client ([`ArmClient::logs`]).
    pub fn with_logs(mut self, logs: ArmClient) -> Self {
        self.logs = Some(logs);
        self
    }

    /// The same credential for Microsoft Graph.
    pub fn with_graph(mut self, graph: ArmClient) -> Self {
        self.graph = Some(graph);
        self
    }

    fn sub_path(&self, rest: &str) -> String {
        format!(
            "subscriptions/{}/{}",
            self.subscription,
            rest.trim_start_matches('/')
        )
    }
}

#[async_trait::async_trait]
impl ArmApi for Arm {
    fn subscription(&self) -> &str {
        &self.subscription
    }

    fn landing_zone(&self) -> Option<&dyn super::landing_zone_api::LandingZoneApi> {
        Some(self)
    }

    fn spot(&self) -> Option<&dyn super::spot_placement::SpotApi> {
        Some(self)
    }

    fn standby(&self) -> Option<&dyn super::standby_api::StandbyApi> {
        Some(self)
    }

    fn group(&self) -> Option<&dyn super::group_api::GroupApi> {
        Some(self)
    }

    async fn resource_skus(&self, location: &str) -> Result<Vec<ResourceSku>, ArmError> {
        let op = Op::new(
            format!("list resource SKUs in {location}"),
            "Microsoft.Compute/skus/read (e.g. Reader on the subscription)",
        );
        let filter = format!("location eq '{location}'");
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.Compute/skus"),
            SKUS_API,
            &[("$filter", &filter)],
        );
        self.client.get_all(&op, url).await
    }

    async fn usages(&self, location: &str) -> Result<Vec<Usage>, ArmError> {
        let op = Op::new(
            format!("read compute quota usage in {location}"),
            "Microsoft.Compute/locations/usages/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path(&format!(
                "providers/Microsoft.Compute/locations/{location}/usages"
            )),
            USAGES_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn network_usages(&self, location: &str) -> Result<Vec<Usage>, ArmError> {
        let op = Op::new(
            format!("read network quota usage in {location}"),
            "Microsoft.Network/locations/usages/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path(&format!(
                "providers/Microsoft.Network/locations/{location}/usages"
            )),
            crate::facts::api::API.network,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn provider_state(&self, namespace: &str) -> Result<String, ArmError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Provider {
            #[serde(default)]
            registration_state: Option<String>,
        }
        let op = Op::new(
            format!("read the registration of {namespace}"),
            "Microsoft.Resources/subscriptions/providers/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path(&format!("providers/{namespace}")),
            PROVIDERS_API,
            &[],
        );
        let p: Provider = self.client.get_json(&op, url).await?;
        Ok(p.registration_state.unwrap_or_else(|| "Unknown".into()))
    }

    async fn feature_state(&self, namespace: &str, feature: &str) -> Result<String, ArmError> {
        #[derive(Deserialize)]
        struct Feature {
            #[serde(default)]
            properties: Option<Props>,
        }
        #[derive(Deserialize)]
        struct Props {
            #[serde(default)]
            state: Option<String>,
        }
        let op = Op::new(
            format!("read the feature {namespace}/{feature}"),
            "Microsoft.Features/features/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path(&format!(
                "providers/Microsoft.Features/providers/{namespace}/features/{feature}"
            )),
            FEATURES_API,
            &[],
        );
        let f: Feature = self.client.get_json(&op, url).await?;
        Ok(f.properties
            .and_then(|p| p.state)
            .unwrap_or_else(|| "Unknown".into()))
    }

    async fn key_vault_name(&self, name: &str) -> Result<NameAvailability, ArmError> {
        let op = Op::new(
            format!("check whether the Key Vault name {name} is free"),
            "Microsoft.KeyVault/checkNameAvailability/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.KeyVault/checkNameAvailability"),
            KEYVAULT_API,
            &[],
        );
        self.client
            .post_json(
                &op,
                url,
                &json!({ "name": name, "type": "Microsoft.KeyVault/vaults" }),
            )
            .await
    }

    async fn key_vaults(&self) -> Result<Vec<ResourceRef>, ArmError> {
        let op = Op::new(
            "list the subscription's key vaults",
            "Microsoft.KeyVault/vaults/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.KeyVault/vaults"),
            KEYVAULT_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn deleted_key_vaults(&self) -> Result<Vec<DeletedVault>, ArmError> {
        // GET /subscriptions/{id}/providers/Microsoft.KeyVault/deletedVaults (Vaults_ListDeleted;
        // azure-rest-api-specs .../Microsoft.KeyVault/stable/2024-11-01/examples/listDeletedVaults.json):
        // one list covers every location, where GET .../locations/{l}/deletedVaults/{name}
        // would need the location the vault was deleted in
        let op = Op::new(
            "list the subscription's soft-deleted key vaults",
            "Microsoft.KeyVault/deletedVaults/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.KeyVault/deletedVaults"),
            KEYVAULT_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn service_bus_name(&self, name: &str) -> Result<NameAvailability, ArmError> {
        // POST .../providers/Microsoft.ServiceBus/CheckNameAvailability {"name"} ->
        // {nameAvailable, reason: None|InvalidName|SubscriptionIsDisabled|NameInUse|NameInLockdown|
        // TooManyNamespaceInCurrentSubscription, message}
        let op = Op::new(
            format!("check whether the Service Bus namespace name {name} is free"),
            "Microsoft.ServiceBus/checkNameAvailability/action (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.ServiceBus/CheckNameAvailability"),
            SERVICEBUS_API,
            &[],
        );
        self.client
            .post_json(&op, url, &json!({ "name": name }))
            .await
    }

    async fn service_bus_namespaces(&self) -> Result<Vec<ResourceRef>, ArmError> {
        let op = Op::new(
            "list the subscription's Service Bus namespaces",
            "Microsoft.ServiceBus/namespaces/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.ServiceBus/namespaces"),
            SERVICEBUS_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn storage_account_name(&self, name: &str) -> Result<NameAvailability, ArmError> {
        // POST .../providers/Microsoft.Storage/checkNameAvailability
        // {"name", "type": "Microsoft.Storage/storageAccounts"} ->
        // {nameAvailable, reason: AccountNameInvalid|AlreadyExists, message}
        let op = Op::new(
            format!("check whether the storage account name {name} is free"),
            "Microsoft.Storage/checknameavailability/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.Storage/checkNameAvailability"),
            STORAGE_API,
            &[],
        );
        self.client
            .post_json(
                &op,
                url,
                &json!({ "name": name, "type": "Microsoft.Storage/storageAccounts" }),
            )
            .await
    }

    async fn storage_accounts(&self) -> Result<Vec<ResourceRef>, ArmError> {
        let op = Op::new(
            "list the subscription's storage accounts",
            "Microsoft.Storage/storageAccounts/read (e.g. Reader on the subscription)",
        );
        let url = self.client.url(
            &self.sub_path("providers/Microsoft.Storage/storageAccounts"),
            STORAGE_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }
}
