//! The one fake ARM of the tests: [`FakeArm`] builds it, [`FakeAzure`] is the running server.
//!
//! wiremock answers ARM and Entra on 127.0.0.1, and a TLS terminator in front of it speaks HTTPS
//! with a throwaway CA that the binary trusts through `SSL_CERT_FILE` (the way a user behind a
//! TLS-inspecting proxy works); azure_core refuses plain http for tokens, so this is the only way
//! to run the binary end to end.
//!
//! ```ignore
//! let fake = FakeArm::new()                       // Entra's token endpoint is mounted
//!     .subscription(&[("eastus2", 48)])            // a healthy subscription (preflight's calls)
//!     .resource_group(RG, "eastus2")               // GET resourcegroups/RG answers
//!     .refusing_what_azure_refuses()               // deployments Azure refuses are refused
//!     .start();
//! fake.mount(/* the test's own mocks, priority 5, win over the fixture's 10 */);
//! fake.gpuform().args([...])                       // the binary pointed at the fake
//! ```
//!
//! Response bodies in the real shapes live next to it in `mod.rs` (`sku`, `usages`, ...), and
//! Azure's refusals of deployments in `refuse.rs`.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::refuse;
use super::{
    CLIENT, FAMILY, SUB, T4, TENANT, TOKEN, clean_command, disk_sku, feature, feature_path,
    network_usages, sku, trusted_launch_default, trusted_launch_default_path, usages,
};

/// How a test wants the fake ARM: signed in (Entra's token endpoint) unless [`Self::signed_out`],
/// plus whatever common ARM endpoints it asks for. [`Self::start`] starts it and mounts them, in
/// the order sign-in, subscription, resource groups, refusals.
#[must_use]
pub struct FakeArm {
    sign_in: bool,
    regions: Vec<(String, i64)>,
    latency: Duration,
    groups: Vec<(String, String)>,
    refuse: Option<refuse::AzureFacts>,
}

impl Default for FakeArm {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeArm {
    /// A fake ARM with Entra's token endpoint (a client secret gets [`TOKEN`]).
    pub fn new() -> Self {
        Self {
            sign_in: true,
            regions: Vec::new(),
            latency: Duration::ZERO,
            groups: Vec::new(),
            refuse: None,
        }
    }

    /// No token endpoint: sign-in fails unless the test mounts its own.
    pub fn signed_out(mut self) -> Self {
        self.sign_in = false;
        self
    }

    /// A healthy subscription offering these `(region, T4 family vCPU limit)`
    /// ([`FakeAzure::mount_subscription`]).
    pub fn subscription(mut self, regions: &[(&str, i64)]) -> Self {
        self.regions
            .extend(regions.iter().map(|(r, l)| (r.to_string(), *l)));
        self
    }

    /// Delay every answer of [`Self::subscription`] by `latency`.
    pub fn latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// `GET resourcegroups/{name}` answers the group in `location` ([`FakeAzure::mount_resource_group`]).
    pub fn resource_group(mut self, name: &str, location: &str) -> Self {
        self.groups.push((name.to_string(), location.to_string()));
        self
    }

    /// Deployments naming a role, API version or extension Azure does not know are refused
    /// ([`FakeAzure::refuse_what_azure_refuses`]).
    pub fn refusing_what_azure_refuses(self) -> Self {
        self.refusing(refuse::AzureFacts::load())
    }

    /// [`Self::refusing_what_azure_refuses`] with the given knowledge of Azure.
    pub fn refusing(mut self, facts: refuse::AzureFacts) -> Self {
        self.refuse = Some(facts);
        self
    }

    /// Start the server and mount what was asked for.
    pub fn start(self) -> FakeAzure {
        let fake = FakeAzure::start();
        if self.sign_in {
            fake.mount_token();
        }
        if !self.regions.is_empty() {
            let regions: Vec<(&str, i64)> =
                self.regions.iter().map(|(r, l)| (r.as_str(), *l)).collect();
            fake.mount_subscription(&regions, self.latency);
        }
        for (name, location) in &self.groups {
            fake.mount_resource_group(name, location);
        }
        if let Some(facts) = self.refuse {
            fake.refuse_unknown(facts);
        }
        fake
    }
}

/// Entra's answer to a token request (client secret or assertion): a bearer [`TOKEN`].
pub fn token_response() -> Value {
    json!({"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": TOKEN})
}

/// Entra's token path for [`TENANT`].
pub fn token_path() -> String {
    format!("/{TENANT}/oauth2/v2.0/token")
}

/// A resource group as `GET resourcegroups/{name}` answers it.
pub fn resource_group(name: &str, location: &str) -> Value {
    json!({
        "id": format!("/subscriptions/{SUB}/resourceGroups/{name}"), "name": name, "location": location,
        "properties": {"provisioningState": "Succeeded"}
    })
}

/// A throwaway certificate authority and a server certificate for 127.0.0.1 / localhost.
pub struct TestCa {
    pub ca_pem: String,
    pub cert_der: Vec<u8>,
    pub key_der: Vec<u8>,
}

impl TestCa {
    pub fn new(name: &str) -> Self {
        use rcgen::{
            BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
            IsCa, KeyPair, KeyUsagePurpose,
        };
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params
            .distinguished_name
            .push(DnType::CommonName, format!("{name} test CA"));
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "127.0.0.1");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &ca).unwrap();
        Self {
            ca_pem: ca.pem(),
            cert_der: cert.der().to_vec(),
            key_der: key.serialize_der(),
        }
    }
}

/// The fake: a wiremock server behind HTTPS on 127.0.0.1.
pub struct FakeAzure {
    pub rt: tokio::runtime::Runtime,
    pub server: MockServer,
    /// `https://127.0.0.1:PORT` (no trailing slash).
    pub base: String,
    pub dir: tempfile::TempDir,
    pub ca_file: PathBuf,
}

impl FakeAzure {
    pub fn start() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let ca = TestCa::new("gpuform");
        let (server, addr) = rt.block_on(async {
            let server = MockServer::start().await;
            let addr = tls_front(*server.address(), &ca).await;
            (server, addr)
        });
        let dir = tempfile::tempdir().unwrap();
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, &ca.ca_pem).unwrap();
        let fake = Self {
            rt,
            server,
            base: format!("https://127.0.0.1:{}", addr.port()),
            dir,
            ca_file,
        };
        fake.mount_no_such_group();
        fake
    }

    /// What ARM answers for the deployments of a resource group that does not exist: 404
    /// `ResourceGroupNotFound` ("Resource group '{name}' could not be found."). The lowest
    /// priority: any group a test mounts answers for itself.
    fn mount_no_such_group(&self) {
        self.mount(
            Mock::given(method("GET"))
                .and(path_regex(format!(
                    r"(?i)^/subscriptions/{SUB}/resourcegroups/[^/]+/providers/Microsoft\.Resources/deployments$"
                )))
                .respond_with(|r: &wiremock::Request| {
                    let segs: Vec<&str> = r.url.path().split('/').collect();
                    let name = segs.get(4).copied().unwrap_or_default();
                    ResponseTemplate::new(404).set_body_json(super::arm_error(
                        "ResourceGroupNotFound",
                        &format!("Resource group '{name}' could not be found."),
                    ))
                })
                .with_priority(255),
        );
    }

    pub fn mount(&self, mock: Mock) {
        self.rt.block_on(mock.mount(&self.server));
    }

    /// Opt-in: a deployment PUT whose template names a role, API version or extension Azure
    /// does not know is refused as Azure refuses it ([`refuse`]); other PUTs fall through to
    /// the test's own mocks.
    pub fn refuse_what_azure_refuses(&self) {
        self.refuse_unknown(refuse::AzureFacts::load());
    }

    /// [`Self::refuse_what_azure_refuses`] with the given knowledge of Azure.
    pub fn refuse_unknown(&self, facts: refuse::AzureFacts) {
        self.mount(
            Mock::given(method("PUT"))
                .and(path_regex(
                    r"/providers/Microsoft\.Resources/deployments/[^/]+$",
                ))
                .and(refuse::Refused(facts.clone()))
                .respond_with(refuse::Refusal(facts))
                .with_priority(1),
        );
    }

    /// Entra's token endpoint for a client secret (or assertion), answering a fixed token.
    pub fn mount_token(&self) {
        self.mount(
            Mock::given(method("POST"))
                .and(path(token_path()))
                .respond_with(ResponseTemplate::new(200).set_body_json(token_response())),
        );
    }

    /// `GET resourcegroups/{name}` answers the group in `location` ([`resource_group`]).
    pub fn mount_resource_group(&self, name: &str, location: &str) {
        self.mount(
            Mock::given(method("GET"))
                .and(path(Self::sub_path(&format!("resourcegroups/{name}"))))
                .respond_with(
                    ResponseTemplate::new(200).set_body_json(resource_group(name, location)),
                ),
        );
    }

    /// ARM path under the subscription.
    pub fn sub_path(rest: &str) -> String {
        format!("/subscriptions/{SUB}/{}", rest.trim_start_matches('/'))
    }

    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{}", self.base, path_and_query)
    }

    pub fn requests(&self) -> Vec<wiremock::Request> {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
    }

    /// What points the binary at the fake: a client secret, and trust in the test CA only.
    fn vars(&self) -> [(&'static str, OsString); 8] {
        [
            ("GPUFORM_LOGS_ENDPOINT", format!("{}/", self.base).into()),
            ("GPUFORM_GRAPH_ENDPOINT", format!("{}/", self.base).into()),
            ("SSL_CERT_FILE", self.ca_file.clone().into()),
            ("AZURE_AUTHORITY_HOST", self.base.clone().into()),
            ("AZURE_TENANT_ID", TENANT.into()),
            ("AZURE_CLIENT_ID", CLIENT.into()),
            ("AZURE_CLIENT_SECRET", "not-a-real-secret".into()),
            ("AZURE_SUBSCRIPTION_ID", SUB.into()),
        ]
    }

    /// The binary, pointed at the fake with a client secret, trusting only the test CA, and
    /// with every other Azure variable of the outer environment removed.
    pub fn gpuform(&self) -> assert_cmd::Command {
        let mut c = clean_command();
        c.envs(self.vars());
        c
    }

    /// The environment of [`gpuform`](Self::gpuform) on a plain `std::process::Command` (for
    /// a child the test signals or runs under a terminal), everything else cleared but PATH.
    pub fn set_env(&self, c: &mut std::process::Command) {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .envs(self.vars());
    }

    /// Everything preflight asks ARM, answered the way a healthy subscription would: in each
    /// region the [`T4`] sizes in zones 1-3 and `family_limit` vCPUs of T4 family quota (0
    /// blocks the region), every provider and EncryptionAtHost registered, Key Vault names free.
    /// Priority 10, so a test's own mocks (default priority 5) win; `latency` delays every answer.
    pub fn mount_subscription(&self, regions: &[(&str, i64)], latency: Duration) {
        let ok = |body: Value| {
            ResponseTemplate::new(200)
                .set_body_json(body)
                .set_delay(latency)
        };
        let bearer = || header("authorization", format!("Bearer {TOKEN}").as_str());
        for (r, limit) in regions {
            let mut value = vec![disk_sku(r)];
            value.extend(
                T4.iter()
                    .map(|(n, v)| sku(n, FAMILY, r, *v, &["1", "2", "3"])),
            );
            self.mount(
                Mock::given(method("GET"))
                    .and(path(Self::sub_path("providers/Microsoft.Compute/skus")))
                    .and(query_param(
                        "$filter",
                        format!("location eq '{r}'").as_str(),
                    ))
                    .and(bearer())
                    .respond_with(ok(json!({"value": value, "nextLink": null})))
                    .with_priority(10),
            );
            self.mount(
                Mock::given(method("GET"))
                    .and(path(Self::sub_path(&format!(
                        "providers/Microsoft.Compute/locations/{r}/usages"
                    ))))
                    .and(bearer())
                    .respond_with(ok(usages(*limit, 100, 200)))
                    .with_priority(10),
            );
            self.mount(
                Mock::given(method("GET"))
                    .and(path(Self::sub_path(&format!(
                        "providers/Microsoft.Network/locations/{r}/usages"
                    ))))
                    .and(bearer())
                    .respond_with(ok(network_usages((2, 1000), (0, 1000))))
                    .with_priority(10),
            );
        }
        self.mount(
            Mock::given(method("GET"))
                .and(path_regex(format!(
                    r"^/subscriptions/{SUB}/providers/Microsoft\.[A-Za-z]+$"
                )))
                .and(bearer())
                .respond_with(ok(
                    json!({"namespace": "Microsoft.X", "registrationState": "Registered"}),
                ))
                .with_priority(10),
        );
        self.mount(
            Mock::given(method("GET"))
                .and(path(feature_path()))
                .and(bearer())
                .respond_with(ok(feature("Registered")))
                .with_priority(10),
        );
        self.mount(
            Mock::given(method("GET"))
                .and(path(trusted_launch_default_path()))
                .and(bearer())
                .respond_with(ok(trusted_launch_default("NotRegistered")))
                .with_priority(10),
        );
        self.mount(
            Mock::given(method("POST"))
                .and(path(Self::sub_path(
                    "providers/Microsoft.KeyVault/checkNameAvailability",
                )))
                .and(bearer())
                .respond_with(ok(json!({"nameAvailable": true})))
                .with_priority(10),
        );
        self.mount(
            Mock::given(method("GET"))
                .and(path(Self::sub_path("providers/Microsoft.KeyVault/vaults")))
                .and(bearer())
                .respond_with(ok(json!({"value": []})))
                .with_priority(10),
        );
        self.mount_global_names(latency);
        // the caller's permissions at any group: an Owner's (Permissions_ListForResourceGroup,
        // authorization stable/2022-04-01 GetPermissions.json shape)
        self.mount(
            Mock::given(method("GET"))
                .and(path_regex(format!(
                    r"(?i)^/subscriptions/{SUB}/resourcegroups/[^/]+/providers/Microsoft\.Authorization/permissions$"
                )))
                .and(query_param("api-version", "2022-04-01"))
                .and(bearer())
                .respond_with(ok(json!({"value": [{"actions": ["*"], "notActions": [], "dataActions": [], "notDataActions": []}]})))
                .with_priority(10),
        );
    }

    /// No soft-deleted vaults, and every Service Bus namespace and storage account name free
    /// (part of [`mount_subscription`](Self::mount_subscription); priority 10).
    pub fn mount_global_names(&self, latency: Duration) {
        let ok = |body: Value| {
            ResponseTemplate::new(200)
                .set_body_json(body)
                .set_delay(latency)
        };
        for (verb, rest, body) in [
            (
                "GET",
                "providers/Microsoft.KeyVault/deletedVaults",
                json!({"value": []}),
            ),
            (
                "POST",
                "providers/Microsoft.ServiceBus/CheckNameAvailability",
                json!({"nameAvailable": true, "reason": "None", "message": ""}),
            ),
            (
                "GET",
                "providers/Microsoft.ServiceBus/namespaces",
                json!({"value": []}),
            ),
            (
                "POST",
                "providers/Microsoft.Storage/checkNameAvailability",
                json!({"nameAvailable": true}),
            ),
            (
                "GET",
                "providers/Microsoft.Storage/storageAccounts",
                json!({"value": []}),
            ),
        ] {
            self.mount(
                Mock::given(method(verb))
                    .and(path(Self::sub_path(rest)))
                    .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
                    .respond_with(ok(body))
                    .with_priority(10),
            );
        }
    }

    /// `gpuform preflight SPEC` against the fake with fast retries.
    pub fn preflight(&self, spec: &Path) -> assert_cmd::Command {
        let mut c = self.gpuform();
        c.arg("preflight").arg(spec).args([
            "--arm-endpoint",
            &format!("{}/", self.base),
            "--retry-delay-ms",
            "50",
        ]);
        c
    }
}

/// Terminate TLS on a new 127.0.0.1 port and relay the bytes to `upstream` (plain HTTP).
async fn tls_front(upstream: SocketAddr, ca: &TestCa) -> SocketAddr {
    let cert = rustls::pki_types::CertificateDer::from(ca.cert_der.clone());
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(
        ca.key_der.clone(),
    ));
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                break;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut up) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut up).await;
            });
        }
    });
    addr
}
