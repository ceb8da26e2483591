//! Azure Resource Manager behaviours gpuform relies on when it changes resources (destroy,
//! quota), with their sources.

use super::Source;

/// Error codes of a 409 that says another operation on the resource (or one it depends on) is
/// still running: transient, so the same request is sent again after a back-off.
pub const TRANSIENT_CONFLICT_CODES: &[&str] = &[
    // Microsoft.Network and most providers
    "AnotherOperationInProgress",
    // Storage RP: 409 "A write operation for the storage account is in progress."
    "StorageAccountOperationInProgress",
];

pub const TRANSIENT_CONFLICT_SOURCE: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/service-bus-messaging/service-bus-resource-manager-exceptions.md \
     (\"Another conflicting operation is in progress ... Wait for the current in-progress operation \
     to complete before trying again\"); https://learn.microsoft.com/rest/api/storagerp/srp_error_codes_common \
     (StorageAccountOperationInProgress, Conflict (409)); ARM serialises writes on one resource: \
     https://learn.microsoft.com/azure/azure-resource-manager/management/async-operations (poll the \
     running operation; a new write waits for it)",
    "2026-12-03",
);

/// A DELETE answered 204 No Content: the resource did not exist (nothing was deleted). 200 is
/// "deleted", 202 is "deleting" (follow `Azure-AsyncOperation`, else `Location`).
pub const DELETE_204_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/compute/disks/delete (200 OK, 202 Accepted + Location, \
     204 No Content \"if the resource does not exist\"); polling: \
     https://learn.microsoft.com/azure/azure-resource-manager/management/async-operations \
     (use Azure-AsyncOperation when returned, Location otherwise; Retry-After between polls)",
    "2026-12-03",
);

/// The error code of a call to a provider the subscription is not registered for.
pub const MISSING_REGISTRATION: &str = "MissingSubscriptionRegistration";

pub const MISSING_REGISTRATION_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-register-resource-provider \
     (Code: MissingSubscriptionRegistration, \"The subscription is not registered to use namespace \
     {resource-provider-namespace}\"; fix: register the provider)",
    "2026-12-03",
);

/// The subscription feature of "Trusted Launch as default" (TLaD): "register the feature
/// `TrustedLaunchByDefaultPreview` under the `Microsoft.Compute` namespace"; with it, new Gen2
/// scale sets deployed by templates become Trusted Launch (Secure Boot on) unless the template
/// says otherwise. Source: [`TRUSTED_LAUNCH_DEFAULT`].
pub const TRUSTED_LAUNCH_DEFAULT_NAMESPACE: &str = "Microsoft.Compute";
pub const TRUSTED_LAUNCH_DEFAULT_FEATURE: &str = "TrustedLaunchByDefaultPreview";

pub const TRUSTED_LAUNCH_DEFAULT: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machines/trusted-launch (MicrosoftDocs/azure-compute-docs articles/virtual-machines/trusted-launch.md@d84c7a8d600494dc46deee77fe6d1a837599ab1f, page 2026-07-27, \"Enable TLaD\")",
    "2026-12-05",
);

/// The `$schema` of a deployment template and of its parameters file (the 2019-04-01 schemas ARM
/// and Bicep write). Source: [`TEMPLATE_SCHEMA_SOURCE`].
pub const TEMPLATE_SCHEMA: &str =
    "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";
pub const PARAMETERS_SCHEMA: &str =
    "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#";
pub const TEMPLATE_SCHEMA_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-resource-manager/templates/syntax (\"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\"); https://learn.microsoft.com/azure/azure-resource-manager/templates/parameter-files",
    "2026-12-05",
);
