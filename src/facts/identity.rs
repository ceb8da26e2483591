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

/// Entra's sign-in error lookup page, and a link to one code's entry: Learn, "Microsoft Entra
/// authentication and authorization error codes", "Lookup current error code information":
/// codes and messages change, so for the current text look the code up at this page; "You can
/// also link directly to a specific error by adding the error code number to the URL:
/// https://login.microsoftonline.com/error?code=50058" (MicrosoftDocs/entra-docs
/// `docs/identity-platform/reference-error-codes.md`@3164b3b5d031edef0ad334ba09d3ea6dcb619c1a,
/// page 2025-02-03; read 2026-12-05; excerpt in tests/fixtures/sources/entra-error-lookup.md).
pub const ERROR_LOOKUP: &str = "https://login.microsoftonline.com/error";

/// The lookup page's entry for an `AADSTS<digits>` code (the digits after `AADSTS`).
pub fn error_lookup(aadsts: &str) -> String {
    let digits = aadsts.trim_start_matches("AADSTS");
    format!("{ERROR_LOOKUP}?code={digits}")
}

pub const ERROR_LOOKUP_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/entra/identity-platform/reference-error-codes \
     (MicrosoftDocs/entra-docs docs/identity-platform/reference-error-codes.md@3164b3b5d031edef0ad334ba09d3ea6dcb619c1a, \
     \"Lookup current error code information\")",
    "2026-12-05",
);
