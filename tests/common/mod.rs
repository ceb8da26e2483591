//! A fake Azure for tests that run the real binary: wiremock answers ARM and Entra on
//! 127.0.0.1, and a TLS terminator in front of it speaks HTTPS with a throwaway CA that the
//! binary trusts through `SSL_CERT_FILE` (the way a user behind a TLS-inspecting proxy works).
//! azure_core refuses plain http for tokens, so this is the only way to run the binary end to end.
//!
//! Used by the preflight and deploy tests and benches/preflight.rs: `FakeAzure::start()`, mount
//! mocks with `fake.mount(...)` (or a whole healthy subscription with `mount_subscription`),
//! build the command with `fake.gpuform()`.

#![allow(dead_code)]

pub mod refuse;
pub mod spot;

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub const SUB: &str = "00000000-1111-2222-3333-444444444444";
pub const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
pub const CLIENT: &str = "11111111-2222-3333-4444-555555555555";
pub const TOKEN: &str = "fake-arm-token";
/// The size of examples/shortvideo-transcode.yaml ([`spec`]) and its quota family (with spaces).
pub const SIZE: &str = "Standard_NC8as_T4_v3";
pub const FAMILY: &str = "Standard NCASv3_T4 Family";
/// The T4 sizes every region of [`FakeAzure::mount_subscription`] offers, with their vCPUs.
pub const T4: [(&str, u32); 3] = [
    ("Standard_NC4as_T4_v3", 4),
    (SIZE, 8),
    ("Standard_NC16as_T4_v3", 16),
];

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
        Self {
            rt,
            server,
            base: format!("https://127.0.0.1:{}", addr.port()),
            dir,
            ca_file,
        }
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
                .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": TOKEN}))),
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
    fn vars(&self) -> [(&'static str, OsString); 6] {
        [
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

/// The binary with no Azure-related variables from the outer environment and no colour.
pub fn clean_command() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("gpuform").unwrap();
    for k in [
        "AZURE_CLIENT_ID",
        "AZURE_TENANT_ID",
        "AZURE_CLIENT_SECRET",
        "AZURE_FEDERATED_TOKEN_FILE",
        "AZURE_SUBSCRIPTION_ID",
        "AZURE_AUTHORITY_HOST",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "SYSTEM_OIDCREQUESTURI",
        "SYSTEM_ACCESSTOKEN",
        "AZURESUBSCRIPTION_SERVICE_CONNECTION_ID",
        "AZURE_SERVICE_CONNECTION_ID",
        "IDENTITY_ENDPOINT",
        "MSI_ENDPOINT",
        "GPUFORM_AUTH",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
    ] {
        c.env_remove(k);
    }
    c.env("NO_COLOR", "1")
        .env("NO_PROXY", "127.0.0.1,localhost");
    c
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

// ---------------------------------------------------------------------------------------------
// Response bodies in the real shapes (../shared/azure/recordings)

/// A `virtualMachines` resource SKU as the Resource SKUs API returns it (capabilities are strings).
pub fn sku(name: &str, family: &str, location: &str, vcpus: u32, zones: &[&str]) -> Value {
    json!({
        "resourceType": "virtualMachines",
        "name": name,
        "tier": "Standard",
        "size": name.trim_start_matches("Standard_"),
        "family": family,
        "locations": [location],
        "locationInfo": [{"location": location, "zones": zones, "zoneDetails": []}],
        "capabilities": [
            {"name": "vCPUs", "value": vcpus.to_string()},
            {"name": "MemoryGB", "value": "56"},
            {"name": "GPUs", "value": "1"},
            {"name": "HyperVGenerations", "value": "V1,V2"},
            {"name": "LowPriorityCapable", "value": "True"},
            {"name": "EncryptionAtHostSupported", "value": "True"},
            {"name": "AcceleratedNetworkingEnabled", "value": "True"},
            {"name": "RdmaEnabled", "value": "False"},
            {"name": "vCPUsAvailable", "value": vcpus.to_string()}
        ],
        "restrictions": []
    })
}

/// A non-VM SKU (disks), which a real list is full of.
pub fn disk_sku(location: &str) -> Value {
    json!({"resourceType": "disks", "name": "Premium_LRS", "tier": "Premium", "kind": "", "locations": [location],
           "locationInfo": [{"location": location, "zones": ["1", "2", "3"]}], "capabilities": [{"name": "MaxSizeGiB", "value": "4"}], "restrictions": []})
}

pub fn location_restriction(location: &str, reason: &str) -> Value {
    json!({"type": "Location", "values": [location], "restrictionInfo": {"locations": [location]}, "reasonCode": reason})
}

pub fn zone_restriction(location: &str, zones: &[&str]) -> Value {
    json!({"type": "Zone", "values": [location], "restrictionInfo": {"locations": [location], "zones": zones}, "reasonCode": "NotAvailableForSubscription"})
}

/// One Compute usage entry (REST shape: numbers).
pub fn usage(value: &str, label: &str, current: i64, limit: i64) -> Value {
    json!({"currentValue": current, "limit": limit, "name": {"localizedValue": label, "value": value}, "unit": "Count"})
}

/// A realistic usage list for a region: the T4 family (with spaces), totals, spot, scale sets.
pub fn usages(family_limit: i64, cores_limit: i64, spot_limit: i64) -> Value {
    json!({"value": [
        usage("availabilitySets", "Availability Sets", 0, 2500),
        usage("cores", "Total Regional vCPUs", 12, cores_limit),
        usage("virtualMachines", "Virtual Machines", 3, 25000),
        usage("virtualMachineScaleSets", "Virtual Machine Scale Sets", 1, 2500),
        usage("lowPriorityCores", "Total Regional Low-priority vCPUs", 0, spot_limit),
        usage("standardDSv3Family", "Standard DSv3 Family vCPUs", 12, 350),
        usage("Standard NCASv3_T4 Family", "Standard NCASv3_T4 Family vCPUs", 0, family_limit),
        usage("StandardNCADSA100v4Family", "Standard NCADS_A100_v4 Family vCPUs", 0, 0),
        usage("standardNCSv3Family", "Standard NCSv3 Family vCPUs", 0, 0)
    ]})
}

/// eastus2 as the running pool of examples/shortvideo-transcode.yaml leaves it: 2 regular + 18
/// Spot VMs of 8 vCPUs use the whole family (16) and Spot (144) quota.
pub fn usages_full_by_the_pool() -> Value {
    json!({"value": [
        usage("cores", "Total Regional vCPUs", 16, 100),
        usage("virtualMachineScaleSets", "Virtual Machine Scale Sets", 1, 2500),
        usage("lowPriorityCores", "Total Regional Low-priority vCPUs", 144, 144),
        usage(FAMILY, "Standard NCASv3_T4 Family vCPUs", 16, 16)
    ]})
}

/// `GET .../virtualMachineScaleSets/vmss-shortvideo-transcode` in `rg`: 20 instances, the
/// first 2 regular, the rest Spot.
pub fn mount_running_pool(fake: &FakeAzure, rg: &str) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourcegroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode"
            ))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "name": "vmss-shortvideo-transcode", "location": "eastus2",
                "sku": {"name": SIZE, "tier": "Standard", "capacity": 20},
                "properties": {
                    "orchestrationMode": "Flexible",
                    "priorityMixPolicy": {"baseRegularPriorityCount": 2, "regularPriorityPercentageAboveBase": 0},
                    "virtualMachineProfile": {"priority": "Spot", "evictionPolicy": "Delete"}
                }
            }))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Compute/locations/eastus2/usages",
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(usages_full_by_the_pool())),
    );
}

pub fn arm_error(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

pub fn feature_path() -> String {
    FakeAzure::sub_path(
        "providers/Microsoft.Features/providers/Microsoft.Compute/features/EncryptionAtHost",
    )
}

/// The EncryptionAtHost feature in `state`.
pub fn feature(state: &str) -> Value {
    json!({"id": format!("/subscriptions/{SUB}/providers/Microsoft.Features/providers/Microsoft.Compute/features/EncryptionAtHost"),
           "name": "Microsoft.Compute/EncryptionAtHost", "properties": {"state": state}, "type": "Microsoft.Features/providers/features"})
}

/// Microsoft.Compute/TrustedLaunchByDefaultPreview (Trusted Launch as default).
pub fn trusted_launch_default_path() -> String {
    FakeAzure::sub_path(
        "providers/Microsoft.Features/providers/Microsoft.Compute/features/TrustedLaunchByDefaultPreview",
    )
}

pub fn trusted_launch_default(state: &str) -> Value {
    json!({"id": format!("/subscriptions/{SUB}/providers/Microsoft.Features/providers/Microsoft.Compute/features/TrustedLaunchByDefaultPreview"),
           "name": "Microsoft.Compute/TrustedLaunchByDefaultPreview", "properties": {"state": state}, "type": "Microsoft.Features/providers/features"})
}

pub fn examples(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// examples/shortvideo-transcode.yaml: [`SIZE`], eastus2 with alternates westus3 and
/// southcentralus, up to 20 VMs = 2 regular + 18 Spot.
pub fn spec() -> PathBuf {
    examples("shortvideo-transcode.yaml")
}

// ---------------------------------------------------------------------------------------------
// Output

/// `GPUFORM_TEST_SHOW=1 cargo test --test NAME -- --nocapture --test-threads 1` prints what
/// users see.
pub fn show(out: &std::process::Output) {
    if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
        println!(
            "--- exit {:?}\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// (stdout, stderr) as text, shown with [`show`].
pub fn texts(out: &std::process::Output) -> (String, String) {
    show(out);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Answers in turn; the last one repeats.
pub struct Seq {
    answers: Vec<ResponseTemplate>,
    n: AtomicUsize,
}

pub fn seq(answers: Vec<ResponseTemplate>) -> Seq {
    Seq {
        answers,
        n: AtomicUsize::new(0),
    }
}

impl Respond for Seq {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let i = self.n.fetch_add(1, Ordering::SeqCst);
        self.answers[i.min(self.answers.len() - 1)].clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Deletes as Azure answers them (the fake resource groups of tests/destroy.rs)

/// What Azure does with a child resource when its parent is deleted, written from the sources
/// (not from gpuform's `facts::deletion`): `(parent type, child type, refuses)`. `refuses`: Azure
/// refuses to delete the parent while the child exists. Sources, read 2026-12-03:
/// - zone links: azure-cli#15010 (DELETE privateDnsZones → 409 while links exist),
///   Azure/ResourceModules#823, Azure/deployment-stacks#227;
/// - private endpoint DNS zone groups: no page settles it; the fake refuses (the strict reading,
///   so a client that relies on the cascade is caught);
/// - Key Vault keys: Azure/azure-policy SoftDeleteMustBeEnabled_Audit.json ("deleting a key
///   vault ... deletes all secrets, keys, and certificates"); ARM has no DELETE for keys;
/// - Service Bus queues: Learn Remove-AzServiceBusNamespace ("also removes all associated
///   resources under the namespace");
/// - VM extensions, workspace tables, storage queue services and queues, VNet subnets: part of
///   the parent's model; they go with it.
pub const AZURE_CHILDREN: &[(&str, &str, bool)] = &[
    (
        "microsoft.network/privatednszones",
        "microsoft.network/privatednszones/virtualnetworklinks",
        true,
    ),
    (
        "microsoft.network/privateendpoints",
        "microsoft.network/privateendpoints/privatednszonegroups",
        true,
    ),
    (
        "microsoft.keyvault/vaults",
        "microsoft.keyvault/vaults/keys",
        false,
    ),
    (
        "microsoft.servicebus/namespaces",
        "microsoft.servicebus/namespaces/queues",
        false,
    ),
    (
        "microsoft.compute/virtualmachines",
        "microsoft.compute/virtualmachines/extensions",
        false,
    ),
    (
        "microsoft.operationalinsights/workspaces",
        "microsoft.operationalinsights/workspaces/tables",
        false,
    ),
    (
        "microsoft.storage/storageaccounts",
        "microsoft.storage/storageaccounts/queueservices",
        false,
    ),
    (
        "microsoft.storage/storageaccounts/queueservices",
        "microsoft.storage/storageaccounts/queueservices/queues",
        false,
    ),
    (
        "microsoft.network/virtualnetworks",
        "microsoft.network/virtualnetworks/subnets",
        false,
    ),
];

/// The type of a resource id or path (lower case): `microsoft.network/privatednszones/virtualnetworklinks`.
pub fn type_of(id: &str) -> Option<String> {
    let segs: Vec<String> = id
        .trim_matches('/')
        .split('/')
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let p = segs.iter().rposition(|s| s == "providers")?;
    let rest = &segs[p + 2..];
    if rest.is_empty() || !rest.len().is_multiple_of(2) {
        return None;
    }
    let mut t = segs.get(p + 1)?.clone();
    for pair in rest.chunks(2) {
        t.push('/');
        t.push_str(&pair[0]);
    }
    Some(t)
}

/// How Azure answers a DELETE of `target` (a path, lower case) while `remaining` (paths, lower
/// case) still exist: `Some(refusal)`, or `None` when it deletes it (children that go with it
/// are for the caller to forget).
///
/// - 409 `CannotDeleteResource` "Cannot delete resource while nested resources exist" for a
///   parent whose refusing child ([`AZURE_CHILDREN`]) remains (azure-cli#15010);
/// - 400 `InUseSubnetCannotBeDeleted` for a VNet while a NIC or a private endpoint (in its
///   subnets) remains (the dependants gpuform renders).
pub fn delete_refusal(target: &str, remaining: &[String]) -> Option<ResponseTemplate> {
    let ty = type_of(target)?;
    let nested: Vec<&String> = remaining
        .iter()
        .filter(|r| r.starts_with(&format!("{target}/")))
        .filter(|r| {
            type_of(r).is_some_and(|ct| {
                AZURE_CHILDREN
                    .iter()
                    .any(|(p, c, refuses)| *refuses && *p == ty && *c == ct)
            })
        })
        .collect();
    if let Some(first) = nested.first() {
        return Some(ResponseTemplate::new(409).set_body_json(arm_error(
            "CannotDeleteResource",
            &format!(
                "Cannot delete resource while nested resources exist. Some existing nested resource IDs include: '{first}'. Please delete all nested resources before deleting this resource."
            ),
        )));
    }
    if ty == "microsoft.network/virtualnetworks" {
        let user = remaining.iter().find(|r| {
            type_of(r).is_some_and(|t| {
                t == "microsoft.network/networkinterfaces"
                    || t == "microsoft.network/privateendpoints"
            })
        });
        if let Some(u) = user {
            return Some(ResponseTemplate::new(400).set_body_json(arm_error(
                "InUseSubnetCannotBeDeleted",
                &format!("Subnet is in use by {u} and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet."),
            )));
        }
    }
    None
}

/// ARM's answer to a call for a provider the subscription is not registered for: 409
/// `MissingSubscriptionRegistration` (Learn "Resolve errors for resource provider registration":
/// "The subscription is not registered to use namespace {resource-provider-namespace}"; the
/// message and `details[].target` as az shows them, read 2026-12-03).
pub fn missing_registration(namespace: &str) -> ResponseTemplate {
    let message = format!(
        "The subscription is not registered to use namespace '{namespace}'. See https://aka.ms/rps-not-found for how to register subscriptions."
    );
    ResponseTemplate::new(409).set_body_json(json!({"error": {
        "code": "MissingSubscriptionRegistration",
        "message": message,
        "details": [{"code": "MissingSubscriptionRegistration", "target": namespace, "message": message}]
    }}))
}
