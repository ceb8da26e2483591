//! `ArmClient`: JSON over an azure_core pipeline (bearer token, retry, timeouts, user agent),
//! ARM errors parsed into [`ArmError`], `nextLink` paging. Deploy builds its PUT/POST + polling
//! on [`ArmClient::send`] and [`ArmResponse`].

use std::sync::Arc;
use std::time::Duration;

use azure_core::credentials::TokenCredential;
use azure_core::http::headers::{HeaderName, RETRY_AFTER, RETRY_AFTER_MS, X_MS_RETRY_AFTER_MS};
use azure_core::http::policies::auth::BearerTokenAuthorizationPolicy;
use azure_core::http::policies::{Policy, get_retry_after};
use azure_core::http::{Context, Method, Pipeline, PipelineSendOptions, Request};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use url::Url;

use super::cloud::Endpoints;
use super::error::{ArmError, ErrorDetail, ErrorKind};
use super::http::{BodyLimit, HttpSettings, Transport, fmt_bytes};

/// HTTP verbs ARM uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Put,
    Post,
    Patch,
    Delete,
}

impl Verb {
    fn method(self) -> Method {
        match self {
            Verb::Get => Method::Get,
            Verb::Put => Method::Put,
            Verb::Post => Method::Post,
            Verb::Patch => Method::Patch,
            Verb::Delete => Method::Delete,
        }
    }
}

/// What a call is for, in words, and the permission it needs (named on 401/403).
#[derive(Debug, Clone)]
pub struct Op {
    pub what: String,
    pub permission: &'static str,
}

impl Op {
    pub fn new(what: impl Into<String>, permission: &'static str) -> Self {
        Self {
            what: what.into(),
            permission,
        }
    }
}

/// A successful (2xx) ARM response.
#[derive(Debug, Clone)]
pub struct ArmResponse {
    pub status: u16,
    /// `Location` (LRO result URL / what-if polling).
    pub location: Option<String>,
    /// `Azure-AsyncOperation` (LRO status URL).
    pub async_operation: Option<String>,
    /// `Retry-After` in seconds, for polling loops.
    pub retry_after: Option<Duration>,
    pub request_id: Option<String>,
    pub body: Vec<u8>,
}

impl ArmResponse {
    pub fn json<T: DeserializeOwned>(&self, op: &Op) -> Result<T, ArmError> {
        decode(op, &self.body, self.request_id.as_deref())
    }
}

const LOCATION: HeaderName = HeaderName::from_static("location");
const ASYNC_OPERATION: HeaderName = HeaderName::from_static("azure-asyncoperation");
const REQUEST_ID: HeaderName = HeaderName::from_static("x-ms-request-id");
const CONTENT_TYPE: HeaderName = HeaderName::from_static("content-type");

/// A Resource Manager client for one cloud endpoint.
#[derive(Debug, Clone)]
pub struct ArmClient {
    endpoint: Url,
    /// The cloud's own ARM endpoint: links ARM returns point there even when requests go
    /// through `--arm-endpoint`.
    cloud_endpoint: Url,
    pipeline: Pipeline,
}

impl ArmClient {
    /// A client whose every request carries a bearer token from `credential` for the cloud's
    /// ARM scope. `transport: None` is the real network.
    pub(crate) fn new(
        endpoints: &Endpoints,
        credential: Arc<dyn TokenCredential>,
        http: &HttpSettings,
        transport: Option<&Transport>,
    ) -> Self {
        let service = (
            &endpoints.arm,
            endpoints.cloud.arm_endpoint(),
            &endpoints.scope,
        );
        Self::for_service(service, credential, http, transport, BodyLimit::ARM)
    }

    /// A client for the cloud's Logs Query API (Log Analytics data plane): the same pipeline
    /// and credential, its own endpoint and token scope ([`Endpoints::logs`]). Its URLs are
    /// built with [`Self::plain_url`] (no `api-version`: the version is in the path).
    pub(crate) fn logs(
        endpoints: &Endpoints,
        credential: Arc<dyn TokenCredential>,
        http: &HttpSettings,
        transport: Option<&Transport>,
    ) -> Self {
        let service = (
            &endpoints.logs,
            endpoints.cloud.logs_query_endpoint(),
            &endpoints.logs_scope,
        );
        Self::for_service(service, credential, http, transport, BodyLimit::LOGS)
    }

    /// `(endpoint, the cloud's own endpoint, token scope)` of one service.
    fn for_service(
        (endpoint, cloud_endpoint, scope): (&Url, &str, &String),
        credential: Arc<dyn TokenCredential>,
        http: &HttpSettings,
        transport: Option<&Transport>,
        limit: BodyLimit,
    ) -> Self {
        let auth: Arc<dyn Policy> = Arc::new(BearerTokenAuthorizationPolicy::new(
            credential,
            [scope.clone()],
        ));
        Self {
            endpoint: endpoint.clone(),
            cloud_endpoint: Url::parse(cloud_endpoint).expect("cloud endpoints are URLs"),
            pipeline: http.azure_pipeline(transport, limit, vec![auth]),
        }
    }

    /// A client for Microsoft Graph (`endpoints.graph`, tokens for `endpoints.graph_scope`);
    /// build its URLs with [`Self::plain_url`] (Graph takes no `api-version`).
    pub(crate) fn graph(
        endpoints: &Endpoints,
        credential: Arc<dyn TokenCredential>,
        http: &HttpSettings,
        transport: Option<&Transport>,
    ) -> Self {
        let service = (
            &endpoints.graph,
            endpoints.cloud.graph_endpoint(),
            &endpoints.graph_scope,
        );
        Self::for_service(service, credential, http, transport, BodyLimit::ARM)
    }

    /// `{endpoint}{path}?k=v&...` without an `api-version` (Microsoft Graph; the Logs Query API's
    /// `v1/...` paths, with no query).
    pub fn plain_url(&self, path: &str, query: &[(&str, &str)]) -> Url {
        let mut u = self
            .endpoint
            .join(path.trim_start_matches('/'))
            .expect("paths are relative URLs");
        let q = query
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect::<Vec<_>>()
            .join("&");
        u.set_query((!q.is_empty()).then_some(q.as_str()));
        u
    }

    /// The cloud's own ARM endpoint (what the user's cloud is, whatever `--arm-endpoint` says).
    pub fn cloud_endpoint(&self) -> &Url {
        &self.cloud_endpoint
    }

    /// `{endpoint}{path}?api-version=...&extra...` (`path` without a leading slash is fine too).
    pub fn url(&self, path: &str, api_version: &str, query: &[(&str, &str)]) -> Url {
        let mut u = self
            .endpoint
            .join(path.trim_start_matches('/'))
            .expect("ARM paths are relative URLs");
        let mut q = format!("api-version={}", enc(api_version));
        for (k, v) in query {
            q.push_str(&format!("&{}={}", enc(k), enc(v)));
        }
        u.set_query(Some(&q));
        u
    }

    /// A URL ARM handed back (`nextLink`, `Location`, `Azure-AsyncOperation`): only followed when
    /// it points at the same endpoint, so the token never goes anywhere else.
    pub fn follow(&self, op: &Op, link: &str) -> Result<Url, ArmError> {
        let u = Url::parse(link).map_err(|e| {
            ArmError::new(
                ErrorKind::Decode,
                &op.what,
                format!("ARM returned an invalid link {link:?}: {e}"),
            )
        })?;
        if !same_origin(&u, &self.endpoint)
            && let Some(r) = rebase(&u, &self.cloud_endpoint, &self.endpoint)
        {
            return Ok(r);
        }
        if !same_origin(&u, &self.endpoint) {
            return Err(ArmError::new(
                ErrorKind::Decode,
                &op.what,
                format!(
                    "ARM returned a link to another host ({}); gpuform only sends its token to {}",
                    u.origin().ascii_serialization(),
                    self.endpoint.origin().ascii_serialization()
                ),
            ));
        }
        Ok(u)
    }

    /// Send one request; 2xx is `Ok`, anything else an [`ArmError`] with ARM's error tree.
    pub async fn send(
        &self,
        op: &Op,
        verb: Verb,
        url: Url,
        body: Option<&serde_json::Value>,
    ) -> Result<ArmResponse, ArmError> {
        let bytes = body.map(|b| serde_json::to_vec(b).expect("JSON values serialise"));
        self.send_raw(op, verb, url, bytes).await
    }

    /// [`send`](Self::send) with a JSON body that is already text: deploy sends the rendered
    /// template byte for byte inside its request body.
    pub async fn send_raw(
        &self,
        op: &Op,
        verb: Verb,
        url: Url,
        body: Option<Vec<u8>>,
    ) -> Result<ArmResponse, ArmError> {
        let mut req = Request::new(url, verb.method());
        req.insert_header(HeaderName::from_static("accept"), "application/json");
        if let Some(b) = body {
            req.insert_header(CONTENT_TYPE, "application/json");
            req.set_body(b);
        }
        let ctx = Context::new();
        let res = self
            .pipeline
            .send(
                &ctx,
                &mut req,
                Some(PipelineSendOptions {
                    skip_checks: true,
                    ..Default::default()
                }),
            )
            .await
            .map_err(|e| ArmError::from_azure(&op.what, &e))?;
        let status = u16::from(res.status());
        let h = res.headers();
        let request_id = h.get_optional_string(&REQUEST_ID);
        if !(200..300).contains(&status) {
            return Err(http_error(op, status, res.body().as_ref(), request_id));
        }
        // what the retry policy reads too: retry-after-ms, x-ms-retry-after-ms, Retry-After
        // (seconds or an HTTP date)
        let retry_after = get_retry_after(
            h,
            azure_core::time::OffsetDateTime::now_utc,
            &[RETRY_AFTER_MS, X_MS_RETRY_AFTER_MS, RETRY_AFTER],
        )
        .and_then(|d| Duration::try_from(d).ok());
        Ok(ArmResponse {
            status,
            location: h.get_optional_string(&LOCATION),
            async_operation: h.get_optional_string(&ASYNC_OPERATION),
            retry_after,
            request_id,
            body: res.into_body().to_vec(),
        })
    }

    pub async fn get_json<T: DeserializeOwned>(&self, op: &Op, url: Url) -> Result<T, ArmError> {
        self.send(op, Verb::Get, url, None).await?.json(op)
    }

    /// GET a resource that may not exist: `None` on 404, unless the 404 is about the
    /// subscription (`SubscriptionNotFound`), which is an error the user must see.
    pub async fn get_optional<T: DeserializeOwned>(
        &self,
        op: &Op,
        url: Url,
    ) -> Result<Option<T>, ArmError> {
        match self.get_json(op, url).await {
            Ok(v) => Ok(Some(v)),
            Err(e)
                if e.status == Some(404) && e.code.as_deref() != Some("SubscriptionNotFound") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub async fn post_json<T: DeserializeOwned>(
        &self,
        op: &Op,
        url: Url,
        body: &serde_json::Value,
    ) -> Result<T, ArmError> {
        self.send(op, Verb::Post, url, Some(body)).await?.json(op)
    }

    pub async fn put_json<T: DeserializeOwned>(
        &self,
        op: &Op,
        url: Url,
        body: &serde_json::Value,
    ) -> Result<T, ArmError> {
        self.send(op, Verb::Put, url, Some(body)).await?.json(op)
    }

    /// GET a list and follow `nextLink` until the last page: at most
    /// [`ARM_LISTING_MAX_PAGES`](crate::facts::limits::ARM_LISTING_MAX_PAGES) pages and
    /// [`ARM_LISTING_MAX_BYTES`](crate::facts::limits::ARM_LISTING_MAX_BYTES) in all, and never
    /// the same link twice (a `nextLink` that points back is a loop, not more pages).
    pub async fn get_all<T: DeserializeOwned>(
        &self,
        op: &Op,
        url: Url,
    ) -> Result<Vec<T>, ArmError> {
        use crate::facts::limits::{ARM_LISTING_MAX_BYTES, ARM_LISTING_MAX_PAGES};
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Page<T> {
            #[serde(default = "Vec::new")]
            value: Vec<T>,
            #[serde(default)]
            next_link: Option<String>,
        }
        let stop = |why: String| {
            ArmError::new(ErrorKind::Decode, &op.what, why).with_help(
                "Azure (or a proxy in front of it) keeps paging; report it with the request ids above, or narrow the request",
            )
        };
        let mut out = Vec::new();
        let mut next = Some(url);
        let mut seen = std::collections::HashSet::new();
        let (mut pages, mut bytes) = (0usize, 0u64);
        while let Some(u) = next.take() {
            if !seen.insert(u.as_str().to_string()) {
                return Err(stop(format!(
                    "the listing's nextLink points back to a page already read (page {}): a loop, not more pages",
                    pages + 1
                )));
            }
            pages += 1;
            if pages > ARM_LISTING_MAX_PAGES {
                return Err(stop(format!(
                    "the listing kept returning nextLink after {ARM_LISTING_MAX_PAGES} pages (gpuform's limit, an assumption: no maximum is documented)"
                )));
            }
            let res = self.send(op, Verb::Get, u, None).await?;
            bytes = bytes.saturating_add(res.body.len() as u64);
            if bytes > ARM_LISTING_MAX_BYTES {
                return Err(stop(format!(
                    "the listing's pages came to more than {} after {pages} pages (gpuform's limit, an assumption: no maximum is documented)",
                    fmt_bytes(ARM_LISTING_MAX_BYTES)
                )));
            }
            let page: Page<T> = res.json(op)?;
            out.extend(page.value);
            if let Some(link) = page.next_link.filter(|l| !l.is_empty()) {
                next = Some(self.follow(op, &link)?);
            }
        }
        Ok(out)
    }
}

/// Percent-encoded for a query value or a path segment; spaces as %20, not `+`
/// (`$filter=location eq 'x'` is what ARM documents; resource group names allow `(`, `)`, `.`).
pub(super) fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// Same scheme, host and port (the url crate lowercases hosts and fills in default ports).
fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// A link to the cloud's own ARM endpoint, moved onto `--arm-endpoint` (a proxy or private
/// endpoint in front of ARM): ARM's `nextLink` / `Azure-AsyncOperation` / `Location` always name
/// its public host.
fn rebase(link: &Url, cloud: &Url, endpoint: &Url) -> Option<Url> {
    if !same_origin(link, cloud) || same_origin(cloud, endpoint) {
        return None;
    }
    let mut u = endpoint.join(link.path().trim_start_matches('/')).ok()?;
    u.set_query(link.query());
    Some(u)
}

fn decode<T: DeserializeOwned>(
    op: &Op,
    body: &[u8],
    request_id: Option<&str>,
) -> Result<T, ArmError> {
    serde_json::from_slice(body).map_err(|e| {
        not_json(
            op,
            body,
            request_id,
            format!("ARM's answer is not the JSON gpuform expects: {e}"),
            "check --arm-endpoint and proxy settings",
        )
    })
}

/// An answer that is not what gpuform reads: the message, the answer's first bytes (controls
/// left out), and the likely cause (a proxy answering instead of Azure; `check` says what to look at).
pub(super) fn not_json(
    op: &Op,
    body: &[u8],
    request_id: Option<&str>,
    message: String,
    check: &str,
) -> ArmError {
    let preview: String = String::from_utf8_lossy(&body[..body.len().min(120)])
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let mut err = ArmError::new(ErrorKind::Decode, &op.what, message);
    err.causes = vec![format!("the answer starts with: {preview}")];
    err.request_id = request_id.map(str::to_string);
    err.help = Some(format!(
        "a proxy may have answered instead of Azure ({check}); otherwise retry later"
    ));
    err
}

fn http_error(op: &Op, status: u16, body: &[u8], request_id: Option<String>) -> ArmError {
    let detail = ErrorDetail::from_body(body);
    let mut e = ArmError::new(ErrorKind::Http, &op.what, "");
    e.status = Some(status);
    e.request_id = request_id;
    match detail {
        Some(d) => {
            e.code = d.code;
            e.message = d.message;
            e.target = d.target;
            e.details = d.details;
        }
        None => {
            let text: String = String::from_utf8_lossy(&body[..body.len().min(200)])
                .trim()
                .to_string();
            e.message = Some(if text.is_empty() {
                reason(status).to_string()
            } else {
                text
            });
        }
    }
    e.help = match status {
        401 => Some(
            "ARM rejected the access token: it is expired, for another cloud (--cloud) or another tenant than the subscription's; sign in again or check AZURE_TENANT_ID"
                .to_string(),
        ),
        403 => Some(format!("the identity needs {}", op.permission)),
        404 if e.code.as_deref() == Some("SubscriptionNotFound") => Some("check --subscription / AZURE_SUBSCRIPTION_ID and that the identity can see it".into()),
        429 => Some("ARM kept throttling after the retries; run again in a minute".into()),
        _ => None,
    };
    e
}

fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "HTTP error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_the_public_endpoint_move_onto_the_configured_one() {
        let cloud = Url::parse("https://management.azure.com/").unwrap();
        let proxy = Url::parse("https://arm-proxy.corp.example/arm/").unwrap();
        let link = Url::parse("https://management.azure.com/subscriptions/s/operationStatuses/1?api-version=2025-04-01").unwrap();
        assert_eq!(
            rebase(&link, &cloud, &proxy).unwrap().as_str(),
            "https://arm-proxy.corp.example/arm/subscriptions/s/operationStatuses/1?api-version=2025-04-01"
        );
        // no override: nothing to do; other hosts: never
        assert_eq!(rebase(&link, &cloud, &cloud), None);
        let evil = Url::parse("https://evil.example/subscriptions/s").unwrap();
        assert_eq!(rebase(&evil, &cloud, &proxy), None);
    }
}
