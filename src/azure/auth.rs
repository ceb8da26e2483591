//! Choosing a credential. azure_identity 1.0 has no `DefaultAzureCredential`, so gpuform picks
//! one itself: explicitly (`--auth secret`, ...) or, with `--auth auto`, from the environment in
//! the order a pipeline sets it up, and it always says which one it used and why.
//!
//! `auto` order:
//! 1. `AZURE_FEDERATED_TOKEN_FILE` → workload identity (AKS, or any CI that writes its OIDC token to a file);
//! 2. `ACTIONS_ID_TOKEN_REQUEST_URL` + `AZURE_CLIENT_ID` → workload identity with the GitHub
//!    Actions OIDC token (the job needs `permissions: id-token: write`);
//! 3. `SYSTEM_OIDCREQUESTURI` + a service connection id → Azure Pipelines service connection;
//! 4. `AZURE_CLIENT_SECRET` → service principal with a client secret;
//! 5. `IDENTITY_ENDPOINT` / `MSI_ENDPOINT` → managed identity (App Service, Container Apps, Functions);
//! 6. `az` on `PATH` → the Azure CLI's signed-in account;
//! 7. the instance metadata service answers on 169.254.169.254 → managed identity (Azure VM);
//! 8. otherwise: an error listing what to set.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use azure_core::cloud::{CloudConfiguration, CustomConfiguration};
use azure_core::credentials::{Secret, TokenCredential};
use azure_core::http::ClientOptions;
use azure_identity::{
    AzureCliCredential, AzureCliCredentialOptions, AzurePipelinesCredential,
    AzurePipelinesCredentialOptions, ClientAssertionCredential, ClientAssertionCredentialOptions,
    ClientSecretCredential, ClientSecretCredentialOptions, ManagedIdentityCredential,
    ManagedIdentityCredentialOptions, UserAssignedId,
};

use super::assertion::{GithubOidc, TokenFile, https_endpoint, local_identity_endpoint};
use super::cloud::Endpoints;
use super::error::ArmError;
use super::http::{HttpSettings, Transport};

/// `--auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthMode {
    #[default]
    Auto,
    Cli,
    Secret,
    Workload,
    Pipelines,
    ManagedIdentity,
}

impl AuthMode {
    pub fn name(self) -> &'static str {
        match self {
            AuthMode::Auto => "auto",
            AuthMode::Cli => "cli",
            AuthMode::Secret => "secret",
            AuthMode::Workload => "workload",
            AuthMode::Pipelines => "pipelines",
            AuthMode::ManagedIdentity => "managed-identity",
        }
    }
}

/// The environment variables credential selection reads, captured once (tests build their own).
#[derive(Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

const ENV_NAMES: &[&str] = &[
    "AZURE_CLIENT_ID",
    "AZURE_TENANT_ID",
    "AZURE_CLIENT_SECRET",
    "AZURE_FEDERATED_TOKEN_FILE",
    "AZURE_SUBSCRIPTION_ID",
    "AZURE_AUTHORITY_HOST",
    "GPUFORM_LOGS_ENDPOINT",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "SYSTEM_OIDCREQUESTURI",
    "SYSTEM_ACCESSTOKEN",
    "AZURESUBSCRIPTION_SERVICE_CONNECTION_ID",
    "AZURESUBSCRIPTION_CLIENT_ID",
    "AZURESUBSCRIPTION_TENANT_ID",
    "AZURE_SERVICE_CONNECTION_ID",
    "IDENTITY_ENDPOINT",
    "MSI_ENDPOINT",
    "PATH",
];

impl Env {
    pub fn from_process() -> Self {
        Self::from_pairs(
            ENV_NAMES
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v))),
        )
    }

    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// A non-empty value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn first(&self, keys: &[&'static str]) -> Option<(&'static str, &str)> {
        keys.iter().find_map(|k| self.get(k).map(|v| (*k, v)))
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // names only: values include secrets and tokens
        f.debug_list().entries(self.vars.keys()).finish()
    }
}

/// Facts about the machine `auto` may need (tests fake them).
pub trait Probe {
    fn az_on_path(&self, env: &Env) -> bool;
    fn imds_reachable(&self) -> bool;
}

/// The real machine.
pub struct SystemProbe;

impl Probe for SystemProbe {
    fn az_on_path(&self, env: &Env) -> bool {
        let Some(path) = env.get("PATH") else {
            return false;
        };
        std::env::split_paths(path).any(|d| d.join("az").is_file() || d.join("az.cmd").is_file())
    }

    fn imds_reachable(&self) -> bool {
        let addr = std::net::SocketAddr::from(([169, 254, 169, 254], 80));
        std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
    }
}

/// The credential gpuform settled on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMethod {
    Cli {
        tenant: Option<String>,
    },
    Secret {
        tenant: String,
        client_id: String,
    },
    WorkloadFile {
        tenant: String,
        client_id: String,
        file: PathBuf,
    },
    GithubOidc {
        tenant: String,
        client_id: String,
    },
    Pipelines {
        tenant: String,
        client_id: String,
        service_connection: String,
    },
    ManagedIdentity {
        client_id: Option<String>,
        source: &'static str,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthChoice {
    pub mode: AuthMode,
    pub method: AuthMethod,
    /// Why (for `auto`): "AZURE_CLIENT_SECRET is set".
    pub reason: String,
}

impl AuthChoice {
    /// "a client secret for app 1111… in tenant 2222…" (ids only, never secrets).
    pub fn describe(&self) -> String {
        match &self.method {
            AuthMethod::Cli { .. } => {
                "the Azure CLI's signed-in account (az account get-access-token)".into()
            }
            AuthMethod::Secret { tenant, client_id } => {
                format!("a client secret for app {client_id} in tenant {tenant}")
            }
            AuthMethod::WorkloadFile {
                tenant,
                client_id,
                file,
            } => {
                format!(
                    "workload identity federation (token file {}) for app {client_id} in tenant {tenant}",
                    file.display()
                )
            }
            AuthMethod::GithubOidc { tenant, client_id } => format!(
                "workload identity federation (GitHub Actions OIDC) for app {client_id} in tenant {tenant}"
            ),
            AuthMethod::Pipelines {
                tenant,
                client_id,
                service_connection,
            } => {
                format!(
                    "the Azure Pipelines service connection {service_connection} (app {client_id}, tenant {tenant})"
                )
            }
            AuthMethod::ManagedIdentity {
                client_id: Some(id),
                source,
            } => format!("the user-assigned managed identity {id} ({source})"),
            AuthMethod::ManagedIdentity {
                client_id: None,
                source,
            } => format!("the system-assigned managed identity ({source})"),
        }
    }

    /// One line for stderr: "signed in with … (--auth auto: AZURE_CLIENT_SECRET is set)".
    pub fn announce(&self) -> String {
        if self.mode == AuthMode::Auto {
            format!("using {} (--auth auto: {})", self.describe(), self.reason)
        } else {
            format!("using {} (--auth {})", self.describe(), self.mode.name())
        }
    }
}

fn missing(mode: AuthMode, what: &str, help: &str) -> ArmError {
    ArmError::config(
        "choose a credential",
        format!("--auth {} needs {what}", mode.name()),
    )
    .with_help(help.to_string())
}

fn need<'a>(
    env: &'a Env,
    mode: AuthMode,
    keys: &[&'static str],
    help: &str,
) -> Result<&'a str, ArmError> {
    env.first(keys)
        .map(|(_, v)| v)
        .ok_or_else(|| missing(mode, &format!("{} to be set", keys.join(" or ")), help))
}

const SECRET_HELP: &str =
    "set AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET for a service principal";
const WORKLOAD_HELP: &str = "set AZURE_TENANT_ID and AZURE_CLIENT_ID plus AZURE_FEDERATED_TOKEN_FILE, or run in GitHub Actions with `permissions: id-token: write`";
const PIPELINES_HELP: &str = "run in an AzureCLI@2 / AzurePowerShell@5 step with a workload identity service connection, and map the token: `env: SYSTEM_ACCESSTOKEN: $(System.AccessToken)`";

/// Pick the credential for `mode`.
pub fn choose(mode: AuthMode, env: &Env, probe: &dyn Probe) -> Result<AuthChoice, ArmError> {
    let pick = |method: AuthMethod, reason: String| {
        Ok(AuthChoice {
            mode,
            method,
            reason,
        })
    };
    let tenant =
        |m: AuthMode, help: &str| need(env, m, &["AZURE_TENANT_ID"], help).map(str::to_string);
    let client =
        |m: AuthMode, help: &str| need(env, m, &["AZURE_CLIENT_ID"], help).map(str::to_string);
    let workload = |m: AuthMode| -> Result<Option<AuthChoice>, ArmError> {
        if let Some(file) = env.get("AZURE_FEDERATED_TOKEN_FILE") {
            return Ok(Some(AuthChoice {
                mode: m,
                method: AuthMethod::WorkloadFile {
                    tenant: tenant(m, WORKLOAD_HELP)?,
                    client_id: client(m, WORKLOAD_HELP)?,
                    file: file.into(),
                },
                reason: "AZURE_FEDERATED_TOKEN_FILE is set".into(),
            }));
        }
        if let Some(url) = env.get("ACTIONS_ID_TOKEN_REQUEST_URL")
            && (m == AuthMode::Workload || env.get("AZURE_CLIENT_ID").is_some())
        {
            https_endpoint("ACTIONS_ID_TOKEN_REQUEST_URL", url)?;
            need(
                env,
                m,
                &["ACTIONS_ID_TOKEN_REQUEST_TOKEN"],
                "give the job `permissions: id-token: write`",
            )?;
            return Ok(Some(AuthChoice {
                mode: m,
                method: AuthMethod::GithubOidc {
                    tenant: tenant(m, WORKLOAD_HELP)?,
                    client_id: client(m, WORKLOAD_HELP)?,
                },
                reason:
                    "ACTIONS_ID_TOKEN_REQUEST_URL and AZURE_CLIENT_ID are set (GitHub Actions OIDC)"
                        .into(),
            }));
        }
        Ok(None)
    };
    let pipelines = |m: AuthMode| -> Result<AuthChoice, ArmError> {
        let conn = need(
            env,
            m,
            &[
                "AZURESUBSCRIPTION_SERVICE_CONNECTION_ID",
                "AZURE_SERVICE_CONNECTION_ID",
            ],
            PIPELINES_HELP,
        )?
        .to_string();
        let uri = need(env, m, &["SYSTEM_OIDCREQUESTURI"], PIPELINES_HELP)?;
        https_endpoint("SYSTEM_OIDCREQUESTURI", uri)?;
        need(env, m, &["SYSTEM_ACCESSTOKEN"], PIPELINES_HELP)?;
        let tenant = need(
            env,
            m,
            &["AZURESUBSCRIPTION_TENANT_ID", "AZURE_TENANT_ID"],
            PIPELINES_HELP,
        )?
        .to_string();
        let client_id = need(
            env,
            m,
            &["AZURESUBSCRIPTION_CLIENT_ID", "AZURE_CLIENT_ID"],
            PIPELINES_HELP,
        )?
        .to_string();
        Ok(AuthChoice {
            mode: m,
            method: AuthMethod::Pipelines {
                tenant,
                client_id,
                service_connection: conn,
            },
            reason: "SYSTEM_OIDCREQUESTURI and a service connection id are set (Azure Pipelines)"
                .into(),
        })
    };
    let secret = |m: AuthMode| -> Result<AuthChoice, ArmError> {
        need(env, m, &["AZURE_CLIENT_SECRET"], SECRET_HELP)?;
        Ok(AuthChoice {
            mode: m,
            method: AuthMethod::Secret {
                tenant: tenant(m, SECRET_HELP)?,
                client_id: client(m, SECRET_HELP)?,
            },
            reason: "AZURE_CLIENT_SECRET is set".into(),
        })
    };
    let managed = |m: AuthMode, source: &'static str, reason: &str| {
        for var in ["IDENTITY_ENDPOINT", "MSI_ENDPOINT"] {
            if let Some(v) = env.get(var) {
                local_identity_endpoint(var, v)?;
            }
        }
        Ok::<AuthChoice, ArmError>(AuthChoice {
            mode: m,
            method: AuthMethod::ManagedIdentity {
                client_id: env.get("AZURE_CLIENT_ID").map(str::to_string),
                source,
            },
            reason: reason.to_string(),
        })
    };
    let app_service =
        || env.get("IDENTITY_ENDPOINT").is_some() || env.get("MSI_ENDPOINT").is_some();

    match mode {
        AuthMode::Cli => pick(
            AuthMethod::Cli {
                tenant: env.get("AZURE_TENANT_ID").map(str::to_string),
            },
            String::new(),
        ),
        AuthMode::Secret => secret(mode),
        AuthMode::Workload => workload(mode)?.ok_or_else(|| {
            missing(
                mode,
                "AZURE_FEDERATED_TOKEN_FILE or the GitHub Actions OIDC variables",
                WORKLOAD_HELP,
            )
        }),
        AuthMode::Pipelines => pipelines(mode),
        AuthMode::ManagedIdentity => {
            if app_service() {
                managed(mode, "App Service", "")
            } else {
                managed(mode, "instance metadata service", "")
            }
        }
        AuthMode::Auto => {
            if let Some(c) = workload(mode)? {
                return Ok(c);
            }
            if env.get("SYSTEM_OIDCREQUESTURI").is_some()
                && env
                    .first(&[
                        "AZURESUBSCRIPTION_SERVICE_CONNECTION_ID",
                        "AZURE_SERVICE_CONNECTION_ID",
                    ])
                    .is_some()
            {
                return pipelines(mode);
            }
            if env.get("AZURE_CLIENT_SECRET").is_some() {
                return secret(mode);
            }
            if app_service() {
                return managed(mode, "App Service", "IDENTITY_ENDPOINT is set");
            }
            if probe.az_on_path(env) {
                return pick(
                    AuthMethod::Cli {
                        tenant: env.get("AZURE_TENANT_ID").map(str::to_string),
                    },
                    "no pipeline credential in the environment and `az` is on PATH".into(),
                );
            }
            if probe.imds_reachable() {
                return managed(
                    mode,
                    "instance metadata service",
                    "the Azure instance metadata service answers (Azure VM)",
                );
            }
            Err(ArmError::config("choose a credential", "no Azure credentials found (--auth auto)").with_help(
                "sign in with `az login`, or set AZURE_TENANT_ID + AZURE_CLIENT_ID + AZURE_CLIENT_SECRET, or AZURE_FEDERATED_TOKEN_FILE, \
                 or run in GitHub Actions with `permissions: id-token: write` and AZURE_CLIENT_ID/AZURE_TENANT_ID; or use offline mode (--usages/--skus)",
            ))
        }
    }
}

/// Credential pipelines get the same retry/timeout/TLS policies as ARM calls, and the authority.
fn credential_options(
    endpoints: &Endpoints,
    http: &HttpSettings,
    transport: Option<&Transport>,
) -> ClientOptions {
    let mut custom = CustomConfiguration::default();
    custom.authority_host = endpoints
        .authority
        .as_str()
        .trim_end_matches('/')
        .to_string();
    ClientOptions {
        cloud: Some(Arc::new(CloudConfiguration::Custom(custom))),
        ..http.client_options(transport, super::http::BodyLimit::TOKEN)
    }
}

/// Build the azure_identity credential for a choice.
pub(crate) fn credential(
    choice: &AuthChoice,
    env: &Env,
    endpoints: &Endpoints,
    http: &HttpSettings,
    transport: Option<&Transport>,
) -> Result<Arc<dyn TokenCredential>, ArmError> {
    let op = "set up the credential";
    let opts = || credential_options(endpoints, http, transport);
    let wrap = |e: azure_core::Error| ArmError::from_azure(op, &e);
    Ok(match &choice.method {
        AuthMethod::Cli { tenant } => {
            let cli = AzureCliCredential::new(Some(AzureCliCredentialOptions {
                tenant_id: tenant.clone(),
                ..Default::default()
            }))
            .map_err(wrap)?;
            // `az` runs outside any HTTP pipeline: bound it like a request
            Arc::new(Bounded {
                inner: cli,
                timeout: http.timeout,
                what: "az account get-access-token",
            })
        }
        AuthMethod::Secret { tenant, client_id } => {
            let secret = env
                .get("AZURE_CLIENT_SECRET")
                .ok_or_else(|| missing(choice.mode, "AZURE_CLIENT_SECRET", SECRET_HELP))?;
            ClientSecretCredential::new(
                tenant,
                client_id.clone(),
                Secret::new(secret.to_string()),
                Some(ClientSecretCredentialOptions {
                    client_options: opts(),
                }),
            )
            .map_err(wrap)?
        }
        AuthMethod::WorkloadFile {
            tenant,
            client_id,
            file,
        } => {
            // read once now (a file that is not a regular file, too large or not a JWT fails
            // here, before anything is sent), and again for every token request
            super::assertion::read_token_file(file, http.timeout).map_err(|m| {
                ArmError::new(super::error::ErrorKind::Credential, op, m).with_help(
                    "point AZURE_FEDERATED_TOKEN_FILE at the token file your platform writes (a JWT)",
                )
            })?;
            let assertion = TokenFile {
                path: file.clone(),
                timeout: http.timeout,
            };
            ClientAssertionCredential::new(
                tenant.clone(),
                client_id.clone(),
                assertion,
                Some(ClientAssertionCredentialOptions {
                    client_options: opts(),
                }),
            )
            .map_err(wrap)?
        }
        AuthMethod::GithubOidc { tenant, client_id } => {
            let url = env.get("ACTIONS_ID_TOKEN_REQUEST_URL").unwrap_or_default();
            let request_url = https_endpoint("ACTIONS_ID_TOKEN_REQUEST_URL", url)?;
            let token = env
                .get("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
                .unwrap_or_default()
                .to_string();
            let assertion = GithubOidc {
                request_url,
                request_token: Secret::new(token),
                pipeline: http.azure_pipeline(transport, super::http::BodyLimit::TOKEN, Vec::new()),
            };
            ClientAssertionCredential::new(
                tenant.clone(),
                client_id.clone(),
                assertion,
                Some(ClientAssertionCredentialOptions {
                    client_options: opts(),
                }),
            )
            .map_err(wrap)?
        }
        AuthMethod::Pipelines {
            tenant,
            client_id,
            service_connection,
        } => {
            // the credential reads the URI from the process environment: the same value, checked
            https_endpoint(
                "SYSTEM_OIDCREQUESTURI",
                env.get("SYSTEM_OIDCREQUESTURI").unwrap_or_default(),
            )?;
            let token = env
                .get("SYSTEM_ACCESSTOKEN")
                .unwrap_or_default()
                .to_string();
            AzurePipelinesCredential::new(
                tenant.clone(),
                client_id.clone(),
                service_connection,
                Secret::new(token),
                Some(AzurePipelinesCredentialOptions {
                    credential_options: ClientAssertionCredentialOptions {
                        client_options: opts(),
                    },
                }),
            )
            .map_err(wrap)?
        }
        AuthMethod::ManagedIdentity { client_id, .. } => {
            for var in ["IDENTITY_ENDPOINT", "MSI_ENDPOINT"] {
                if let Some(v) = env.get(var) {
                    local_identity_endpoint(var, v)?;
                }
            }
            ManagedIdentityCredential::new(Some(ManagedIdentityCredentialOptions {
                user_assigned_id: client_id.clone().map(UserAssignedId::ClientId),
                client_options: opts(),
            }))
            .map_err(wrap)?
        }
    })
}

/// A credential whose `get_token` must finish within `timeout`.
#[derive(Debug)]
struct Bounded {
    inner: Arc<dyn TokenCredential>,
    timeout: Duration,
    what: &'static str,
}

#[async_trait::async_trait]
impl TokenCredential for Bounded {
    async fn get_token(
        &self,
        scopes: &[&str],
        options: Option<azure_core::credentials::TokenRequestOptions<'_>>,
    ) -> azure_core::Result<azure_core::credentials::AccessToken> {
        match tokio::time::timeout(self.timeout, self.inner.get_token(scopes, options)).await {
            Ok(r) => r,
            Err(_) => Err(azure_core::Error::with_message(
                azure_core::error::ErrorKind::Credential,
                format!(
                    "{} did not finish within {}; is `az` waiting for an interactive login?",
                    self.what,
                    super::http::fmt_duration(self.timeout)
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        az: bool,
        imds: bool,
    }
    impl Probe for Fake {
        fn az_on_path(&self, _: &Env) -> bool {
            self.az
        }
        fn imds_reachable(&self) -> bool {
            self.imds
        }
    }
    const NONE: Fake = Fake {
        az: false,
        imds: false,
    };
    const AZ: Fake = Fake {
        az: true,
        imds: true,
    };

    fn env(pairs: &[(&str, &str)]) -> Env {
        Env::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn auto_prefers_federation_then_pipelines_then_secret_then_managed_identity_then_cli() {
        let sp = [("AZURE_TENANT_ID", "t"), ("AZURE_CLIENT_ID", "c")];
        let all = [
            &sp[..],
            &[("AZURE_FEDERATED_TOKEN_FILE", "/var/run/token")],
            &[
                (
                    "ACTIONS_ID_TOKEN_REQUEST_URL",
                    "https://gh/x?api-version=2.0",
                ),
                ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "tok"),
            ],
            &[
                ("SYSTEM_OIDCREQUESTURI", "https://dev.azure.com/x"),
                ("AZURESUBSCRIPTION_SERVICE_CONNECTION_ID", "sc"),
                ("SYSTEM_ACCESSTOKEN", "t"),
            ],
            &[("AZURE_CLIENT_SECRET", "s")],
            &[("IDENTITY_ENDPOINT", "http://localhost:42356/msi/token")],
        ]
        .concat();
        let mut e = all.clone();
        let pick = |pairs: &[(&str, &str)], p: &Fake| {
            choose(AuthMode::Auto, &env(pairs), p).unwrap().method
        };
        assert!(matches!(pick(&e, &NONE), AuthMethod::WorkloadFile { .. }));
        e.retain(|(k, _)| *k != "AZURE_FEDERATED_TOKEN_FILE");
        assert!(matches!(pick(&e, &NONE), AuthMethod::GithubOidc { .. }));
        e.retain(|(k, _)| !k.starts_with("ACTIONS_"));
        assert!(
            matches!(pick(&e, &NONE), AuthMethod::Pipelines { ref service_connection, .. } if service_connection == "sc")
        );
        e.retain(|(k, _)| !k.starts_with("SYSTEM_") && !k.starts_with("AZURESUBSCRIPTION"));
        assert!(matches!(pick(&e, &NONE), AuthMethod::Secret { .. }));
        e.retain(|(k, _)| *k != "AZURE_CLIENT_SECRET");
        assert!(matches!(
            pick(&e, &AZ),
            AuthMethod::ManagedIdentity {
                source: "App Service",
                client_id: Some(_)
            }
        ));
        e.retain(|(k, _)| *k != "IDENTITY_ENDPOINT");
        assert!(matches!(pick(&e, &AZ), AuthMethod::Cli { .. }));
        assert!(matches!(
            pick(
                &e,
                &Fake {
                    az: false,
                    imds: true
                }
            ),
            AuthMethod::ManagedIdentity {
                source: "instance metadata service",
                ..
            }
        ));
        let err = choose(AuthMode::Auto, &env(&e), &NONE).unwrap_err();
        assert!(
            err.to_string().contains("no Azure credentials found"),
            "{err}"
        );
    }

    #[test]
    fn auto_says_why_and_never_shows_secrets() {
        let e = env(&[
            ("AZURE_TENANT_ID", "tenant-1"),
            ("AZURE_CLIENT_ID", "app-1"),
            ("AZURE_CLIENT_SECRET", "s3cr3t"),
        ]);
        let c = choose(AuthMode::Auto, &e, &NONE).unwrap();
        let line = c.announce();
        assert_eq!(
            line,
            "using a client secret for app app-1 in tenant tenant-1 (--auth auto: AZURE_CLIENT_SECRET is set)"
        );
        assert!(!format!("{e:?} {c:?}").contains("s3cr3t"));
    }

    #[test]
    fn explicit_modes_name_what_is_missing() {
        let err = choose(
            AuthMode::Secret,
            &env(&[("AZURE_CLIENT_SECRET", "s")]),
            &NONE,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("--auth secret needs AZURE_TENANT_ID to be set"),
            "{err}"
        );
        let err = choose(
            AuthMode::Pipelines,
            &env(&[
                ("AZURESUBSCRIPTION_SERVICE_CONNECTION_ID", "x"),
                ("SYSTEM_OIDCREQUESTURI", "https://x"),
            ]),
            &NONE,
        )
        .unwrap_err();
        assert!(err.to_string().contains("SYSTEM_ACCESSTOKEN"), "{err}");
        assert!(err.help.unwrap().contains("$(System.AccessToken)"));
        let err = choose(AuthMode::Workload, &env(&[]), &NONE).unwrap_err();
        assert!(
            err.to_string().contains("AZURE_FEDERATED_TOKEN_FILE"),
            "{err}"
        );
        // GitHub OIDC without the request token: the permission is named
        let err = choose(
            AuthMode::Auto,
            &env(&[
                ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://x"),
                ("AZURE_CLIENT_ID", "c"),
            ]),
            &NONE,
        )
        .unwrap_err();
        assert!(err.help.unwrap().contains("id-token: write"));
    }

    #[derive(Debug)]
    struct Hangs;

    #[async_trait::async_trait]
    impl TokenCredential for Hangs {
        async fn get_token(
            &self,
            _: &[&str],
            _: Option<azure_core::credentials::TokenRequestOptions<'_>>,
        ) -> azure_core::Result<azure_core::credentials::AccessToken> {
            tokio::time::sleep(Duration::from_secs(60)).await;
            unreachable!()
        }
    }

    #[tokio::test]
    async fn a_hanging_az_is_cut_off_with_a_hint() {
        let b = Bounded {
            inner: Arc::new(Hangs),
            timeout: Duration::from_millis(50),
            what: "az account get-access-token",
        };
        let e = b
            .get_token(&["https://management.azure.com/.default"], None)
            .await
            .unwrap_err();
        assert!(matches!(e.kind(), azure_core::error::ErrorKind::Credential));
        assert_eq!(
            e.to_string(),
            "az account get-access-token did not finish within 50 ms; is `az` waiting for an interactive login?"
        );
    }
}
