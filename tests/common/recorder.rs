//! A client for library-level tests against a plain wiremock server: the real cloud endpoints
//! (so the recorded URLs show the hosts gpuform means to reach), a transport that records each
//! request's URL and body and then sends it to the mock server, a client-secret sign-in.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use azure_core::http::{AsyncRawResponse, HttpClient, Request};
use gpuform::azure::{
    self, AuthMode, Cloud, Connect, Endpoints, Env, HttpSettings, Probe, Transport,
};
use serde_json::json;
use url::Url;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::SUB;

const TENANT: &str = "tenant-1";

/// The one test transport: sends every request to the mock server (scheme, host and port
/// rewritten), after recording the URL and body it was meant for (`seen`), and, with `only`,
/// refusing any host outside that suffix (`.fake.test`: nothing may leave the test).
#[derive(Debug)]
pub struct Redirect {
    inner: Arc<dyn HttpClient>,
    to: Url,
    only: Option<&'static str>,
    seen: Option<Seen>,
}

#[async_trait]
impl HttpClient for Redirect {
    async fn execute_request(&self, req: &Request) -> azure_core::Result<AsyncRawResponse> {
        if let Some(seen) = &self.seen {
            let body = match req.body() {
                azure_core::http::Body::Bytes(b) => b.to_vec(),
                #[allow(unreachable_patterns)]
                _ => Vec::new(),
            };
            seen.lock().unwrap().push((req.url().clone(), body));
        }
        let mut r = req.clone();
        let u = r.url_mut();
        if let Some(suffix) = self.only {
            assert!(
                u.host_str().unwrap_or("").ends_with(suffix),
                "a request tried to leave the test: {u}"
            );
        }
        let _ = u.set_scheme(self.to.scheme());
        let _ = u.set_host(self.to.host_str());
        let _ = u.set_port(self.to.port());
        self.inner.execute_request(&r).await
    }
}

/// A transport to the mock server at `uri` ([`Redirect`]).
pub fn transport(uri: &str, only: Option<&'static str>, seen: Option<Seen>) -> Transport {
    Transport::new(Arc::new(Redirect {
        inner: azure_core::http::new_http_client(None),
        to: Url::parse(uri).unwrap(),
        only,
        seen,
    }))
}

/// No az on PATH, no managed identity endpoint: the credential comes from the environment.
pub struct NoProbe;
impl Probe for NoProbe {
    fn az_on_path(&self, _: &Env) -> bool {
        false
    }
    fn imds_reachable(&self) -> bool {
        false
    }
}

pub type Seen = Arc<Mutex<Vec<(Url, Vec<u8>)>>>;

pub async fn connect(server: &MockServer, cloud: Cloud) -> (azure::Arm, Seen) {
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-1"}),
        ))
        .mount(server)
        .await;
    let seen: Seen = Arc::default();
    let transport = transport(&server.uri(), None, Some(seen.clone()));
    let env = Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT),
        ("AZURE_CLIENT_ID", "app-1"),
        ("AZURE_CLIENT_SECRET", "s3cret"),
    ]);
    let c = Connect {
        // the cloud's own endpoints: the recorder shows the real hosts
        endpoints: Endpoints::resolve(cloud, None, None).unwrap(),
        http: HttpSettings {
            timeout: Duration::from_secs(5),
            max_retries: 0,
            initial_delay: Duration::from_millis(20),
            ..HttpSettings::default()
        },
        subscription: SUB.into(),
        transport: Some(transport),
    };
    let choice = azure::auth::choose(AuthMode::Auto, &env, &NoProbe).unwrap();
    (azure::connect(&c, &env, &choice).unwrap(), seen)
}
