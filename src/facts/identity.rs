//! Where sign-in material comes from, and the bounds gpuform puts on it (`crate::azure::assertion`).

use super::Source;

/// App Service / Container Apps / Functions managed identity: `IDENTITY_ENDPOINT` (or the older
/// `MSI_ENDPOINT`) is "the local URL from which your app can request tokens", served over plain
/// http on the instance itself. gpuform accepts plain http there only to a loopback address.
pub const LOCAL_IDENTITY_ENDPOINT_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/javascript/api/@azure/ms-rest-nodeauth/msiappserviceoptions \
     (msiEndpoint: \"The local URL from which your app can request tokens. Unless this property is \
     specified, any of the two environment variables IDENTITY_ENDPOINT or MSI_ENDPOINT will be used\")",
    "2026-12-05",
);

/// The most bytes of `AZURE_FEDERATED_TOKEN_FILE` gpuform reads. A federated token is a JWT of
/// a few kilobytes (a Kubernetes service account token is about one).
pub const TOKEN_FILE_MAX_BYTES: u64 = 64 * 1024;

pub const TOKEN_FILE_MAX_SOURCE: Source = Source::assumption(
    "no Microsoft or Kubernetes document gives a largest federated token; a JWT of a few kilobytes \
     is usual, so gpuform reads at most 64 KiB and refuses a larger file",
    "2026-12-05",
);

/// Entra's sign-in error lookup page: Learn, "Microsoft Entra authentication and authorization
/// error codes", "Lookup current error code information": error codes and messages change, so
/// for the current text look the code up at this page
/// (<https://learn.microsoft.com/entra/identity-platform/reference-error-codes>; the same link
/// as "sign-in error lookup tool" on the sign-in logs page; read 2026-12-05).
pub const ERROR_LOOKUP: &str = "https://login.microsoftonline.com/error";

pub const ERROR_LOOKUP_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/entra/identity-platform/reference-error-codes (\"Lookup current error code information\")",
    "2026-12-05",
);
