//! The HTTP side of every Azure call: retry, timeouts, TLS failures that must not be retried, the
//! user agent, and the transport seam tests use.

use std::sync::Arc;
use std::time::Duration;

use azure_core::error::ErrorKind;
use azure_core::http::policies::{Policy, PolicyResult};
use azure_core::http::{ClientOptions, Context, ExponentialRetryOptions, Request, RetryOptions};

/// How patient gpuform is with Azure. The defaults suit a pipeline; tests shrink them.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSettings {
    /// Each try (token or ARM request, body included) must finish within this.
    pub timeout: Duration,
    /// Retries after the first try, for 408/429/5xx, timeouts and dropped connections.
    pub max_retries: u32,
    /// First back-off; doubles per retry (plus up to 255 ms jitter). `Retry-After` on 429/503 wins
    /// when it asks for longer.
    pub initial_delay: Duration,
    /// Longest single back-off (azure_core never goes below 1 s here).
    pub max_delay: Duration,
    /// Stop retrying once this much time has passed since the first try.
    pub max_elapsed: Duration,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_retries: 5,
            initial_delay: Duration::from_millis(800),
            max_delay: Duration::from_secs(30),
            max_elapsed: Duration::from_secs(120),
        }
    }
}

/// The HTTP client underneath. Production uses azure_core's default (reqwest + rustls, trusting
/// the OS store or `SSL_CERT_FILE`); tests pass one that sends `https://*.fake.test` to a local
/// server. It is only ever a constructor argument: nothing reads it from the environment.
/// Either way every answer's body is read through [`Capped`].
#[derive(Debug, Clone)]
pub struct Transport(pub(crate) Arc<dyn azure_core::http::HttpClient>);

impl Transport {
    pub fn new(client: Arc<dyn azure_core::http::HttpClient>) -> Self {
        Self(client)
    }
}

/// The most bytes of one answer's body a pipeline reads (per service: Resource Manager, the Logs
/// Query API, sign-in), from [`crate::facts::limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimit {
    pub bytes: u64,
    /// Microsoft documents this bound (else it is gpuform's assumption, said in the message).
    pub documented: bool,
}

impl BodyLimit {
    pub const ARM: BodyLimit = BodyLimit {
        bytes: crate::facts::limits::ARM_ANSWER_MAX_BYTES,
        documented: false,
    };
    pub const LOGS: BodyLimit = BodyLimit {
        bytes: crate::facts::limits::LOG_QUERY_MAX_BYTES,
        documented: true,
    };
    pub const TOKEN: BodyLimit = BodyLimit {
        bytes: crate::facts::limits::TOKEN_ANSWER_MAX_BYTES,
        documented: false,
    };
}

/// An answer longer than the pipeline reads: the call ends (never retried) instead of memory
/// filling up.
#[derive(Debug, thiserror::Error)]
#[error("{host} sent more than {} in one answer{}, the most gpuform reads ({}); it stopped reading", fmt_bytes(*.limit), match .declared { Some(n) => format!(" (Content-Length {})", fmt_bytes(*n)), None => String::new() }, if *.documented { "the service's documented maximum" } else { "an assumption: no maximum is documented" })]
pub struct AnswerTooLarge {
    pub host: String,
    pub limit: u64,
    pub declared: Option<u64>,
    pub documented: bool,
}

/// `1.5 MiB`, `100 MiB`, `512 bytes`.
pub fn fmt_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n >= MIB {
        if n.is_multiple_of(MIB) {
            format!("{} MiB", n / MIB)
        } else {
            format!("{:.1} MiB", n as f64 / MIB as f64)
        }
    } else if n >= 1024 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// The transport: the HTTP client, with each answer's body cut off after `limit` bytes (a
/// `Content-Length` beyond it ends the call before the body is read).
#[derive(Debug)]
struct Capped {
    client: Arc<dyn azure_core::http::HttpClient>,
    limit: BodyLimit,
}

#[async_trait::async_trait]
impl Policy for Capped {
    async fn send(
        &self,
        _ctx: &Context,
        request: &mut Request,
        _next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        use futures::StreamExt;
        let res = self.client.execute_request(request).await?;
        let (status, headers, body) = res.deconstruct();
        let host = host_of(request);
        let BodyLimit {
            bytes: limit,
            documented,
        } = self.limit;
        let too_large = move |declared| {
            azure_core::Error::new(
                ErrorKind::Other,
                AnswerTooLarge {
                    host: host.clone(),
                    limit,
                    declared,
                    documented,
                },
            )
        };
        const CONTENT_LENGTH: azure_core::http::headers::HeaderName =
            azure_core::http::headers::HeaderName::from_static("content-length");
        if let Some(n) = headers
            .get_optional_str(&CONTENT_LENGTH)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|n| *n > limit)
        {
            return Err(too_large(Some(n)));
        }
        let mut seen = 0u64;
        let capped = body.map(move |chunk| {
            let chunk = chunk?;
            seen = seen.saturating_add(chunk.len() as u64);
            if seen > limit {
                Err(too_large(None))
            } else {
                Ok(chunk)
            }
        });
        Ok(azure_core::http::AsyncRawResponse::new(
            status,
            headers,
            Box::pin(capped),
        ))
    }
}

/// A 429 or 503 whose `Retry-After` asks for a longer wait than gpuform makes: the call ends
/// at once with the figure (never retried), instead of sleeping for it.
#[derive(Debug, thiserror::Error)]
#[error("{host} answered HTTP {status} and asked to wait {} before trying again ({header}); gpuform waits at most {} at a time (the smaller of --timeout and {} s, an assumption: Azure documents no largest Retry-After)", fmt_wait(*.asked), fmt_duration(*.cap), crate::facts::limits::RETRY_AFTER_MAX_SECS)]
pub struct Throttled {
    pub host: String,
    pub status: u16,
    pub header: &'static str,
    pub asked: Duration,
    pub cap: Duration,
}

fn fmt_wait(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 2 * 86_400 {
        format!("{} days", s / 86_400)
    } else if s >= 2 * 3600 {
        format!("{} hours", s / 3600)
    } else {
        fmt_duration(d)
    }
}

/// Caps the wait a throttled answer asks for ([`Throttled`]); runs inside the retry policy, so
/// the retry only ever sleeps for what is left.
#[derive(Debug)]
struct RetryAfterCap {
    cap: Duration,
}

#[async_trait::async_trait]
impl Policy for RetryAfterCap {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        use azure_core::http::headers::{RETRY_AFTER, RETRY_AFTER_MS, X_MS_RETRY_AFTER_MS};
        let res = next[0].send(ctx, request, &next[1..]).await?;
        let status = u16::from(res.status());
        if status != 429 && status != 503 {
            return Ok(res);
        }
        // the headers azure_core's retry policy reads, in its order
        for (name, header) in [
            (X_MS_RETRY_AFTER_MS, "x-ms-retry-after-ms"),
            (RETRY_AFTER_MS, "retry-after-ms"),
            (RETRY_AFTER, "Retry-After"),
        ] {
            let Some(asked) = azure_core::http::policies::get_retry_after(
                res.headers(),
                azure_core::time::OffsetDateTime::now_utc,
                &[name],
            ) else {
                continue;
            };
            let asked = Duration::try_from(asked).unwrap_or_default();
            if asked > self.cap {
                return Err(azure_core::Error::new(
                    ErrorKind::Other,
                    Throttled {
                        host: host_of(request),
                        status,
                        header,
                        asked,
                        cap: self.cap,
                    },
                ));
            }
            break;
        }
        Ok(res)
    }
}

impl HttpSettings {
    /// The longest a throttled answer may make gpuform wait at once: the smaller of `--timeout`
    /// and [`crate::facts::limits::RETRY_AFTER_MAX_SECS`].
    pub fn retry_after_cap(&self) -> Duration {
        self.timeout.min(Duration::from_secs(
            crate::facts::limits::RETRY_AFTER_MAX_SECS,
        ))
    }

    /// Client options for an azure_core pipeline (ours or a credential's), reading at most
    /// `limit` bytes of each answer.
    pub(crate) fn client_options(
        &self,
        transport: Option<&Transport>,
        limit: BodyLimit,
    ) -> ClientOptions {
        let to_time = |d: Duration| {
            azure_core::time::Duration::milliseconds(d.as_millis().min(i64::MAX as u128) as i64)
        };
        let retry = RetryOptions::exponential(ExponentialRetryOptions {
            initial_delay: to_time(self.initial_delay),
            max_retries: self.max_retries,
            max_total_elapsed: to_time(self.max_elapsed),
            max_delay: to_time(self.max_delay),
        });
        let client = transport
            .map(|t| t.0.clone())
            .unwrap_or_else(|| azure_core::http::new_http_client(None));
        ClientOptions {
            retry,
            transport: Some(azure_core::http::Transport::with_policy(Arc::new(Capped {
                client,
                limit,
            }))),
            per_call_policies: vec![Arc::new(UserAgent)],
            per_try_policies: vec![
                Arc::new(RetryReport {
                    max_retries: self.max_retries,
                }),
                Arc::new(RetryAfterCap {
                    cap: self.retry_after_cap(),
                }),
                Arc::new(TimeoutPolicy {
                    timeout: self.timeout,
                }),
                Arc::new(FatalConnectionPolicy),
            ],
            ..Default::default()
        }
    }
}

/// A try that took longer than the timeout (retried like a dropped connection).
#[derive(Debug, thiserror::Error)]
#[error("no answer from {host} within {}", fmt_duration(*.timeout))]
pub struct Timeout {
    pub host: String,
    pub timeout: Duration,
}

/// A TLS certificate problem: retrying cannot fix it, so it ends the call at once.
#[derive(Debug, thiserror::Error)]
#[error("the TLS certificate of {host} is not trusted: {detail}")]
pub struct TlsFailure {
    pub host: String,
    pub detail: String,
}

pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn host_of(request: &Request) -> String {
    let u = request.url();
    match u.port() {
        Some(p) => format!("{}:{p}", u.host_str().unwrap_or("?")),
        None => u.host_str().unwrap_or("?").to_string(),
    }
}

/// `gpuform/<version>` first in the user agent, before azure_core's
/// `azsdk-rust-<crate>/<version> (<rustc>; <os>; <arch>)` (which runs earlier in the pipeline).
#[derive(Debug)]
struct UserAgent;

#[async_trait::async_trait]
impl Policy for UserAgent {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        const UA: azure_core::http::headers::HeaderName =
            azure_core::http::headers::HeaderName::from_static("user-agent");
        let sdk = request
            .headers()
            .get_optional_string(&UA)
            .unwrap_or_default();
        if !sdk.starts_with(crate::USER_AGENT) {
            request.insert_header(
                UA,
                format!("{} {sdk}", crate::USER_AGENT)
                    .trim_end()
                    .to_string(),
            );
        }
        next[0].send(ctx, request, &next[1..]).await
    }
}

/// Bounds each try, body included (the pipeline buffers the body inside the transport).
#[derive(Debug)]
struct TimeoutPolicy {
    timeout: Duration,
}

#[async_trait::async_trait]
impl Policy for TimeoutPolicy {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        let host = host_of(request);
        match tokio::time::timeout(self.timeout, next[0].send(ctx, request, &next[1..])).await {
            Ok(r) => r,
            Err(_) => Err(azure_core::Error::new(
                ErrorKind::Io,
                Timeout {
                    host,
                    timeout: self.timeout,
                },
            )),
        }
    }
}

/// A failure no retry can fix (issue 10, item 14): the host name does not resolve, or nothing
/// listens at the address. Ends the call at once instead of 50 s of silent retries.
#[derive(Debug, thiserror::Error)]
pub enum NetFailure {
    #[error("cannot resolve {host} (DNS): {detail}; check the endpoint's name and the network")]
    Dns { host: String, detail: String },
    #[error("{host} refused the connection: {detail}; check the endpoint's address and port")]
    Refused { host: String, detail: String },
}

/// Whether an error chain is a DNS failure or a refused connection (`Some((is_dns, detail))`).
pub(crate) fn unreachable_problem(
    err: &(dyn std::error::Error + 'static),
) -> Option<(bool, String)> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return Some((false, io.to_string()));
        }
        let text = e.to_string();
        let lower = text.to_ascii_lowercase();
        if lower.contains("dns error")
            || lower.contains("failed to lookup address")
            || lower.contains("name or service not known")
            || lower.contains("nodename nor servname")
            || lower.contains("no such host")
        {
            return Some((true, text));
        }
        if lower.contains("connection refused") {
            return Some((false, text));
        }
        cur = e.source();
    }
    None
}

/// Connection errors no retry can fix, which azure_core would otherwise retry for the whole
/// back-off (about 50 s for DNS and refused connections, 82 s for certificates): a certificate
/// problem, a host name that does not resolve, nothing listening at the address. Each becomes a
/// final error that says which.
#[derive(Debug)]
struct FatalConnectionPolicy;

#[async_trait::async_trait]
impl Policy for FatalConnectionPolicy {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        match next[0].send(ctx, request, &next[1..]).await {
            Err(e) if matches!(e.kind(), ErrorKind::Io | ErrorKind::Connection) => {
                let host = host_of(request);
                if let Some(detail) = certificate_problem(&e) {
                    return Err(azure_core::Error::new(
                        ErrorKind::Other,
                        TlsFailure { host, detail },
                    ));
                }
                match unreachable_problem(&e) {
                    Some((true, detail)) => Err(azure_core::Error::new(
                        ErrorKind::Other,
                        NetFailure::Dns { host, detail },
                    )),
                    Some((false, detail)) => Err(azure_core::Error::new(
                        ErrorKind::Other,
                        NetFailure::Refused { host, detail },
                    )),
                    None => Err(e),
                }
            }
            other => other,
        }
    }
}

/// Statuses azure_core's retry policy tries again (its `DEFAULT_RETRY_STATUS_CODES`).
const RETRIED_STATUSES: [u16; 6] = [408, 429, 500, 502, 503, 504];

/// Says on stderr why a try failed and that another follows: a pipeline waiting on retries is
/// never silent (issue 10, item 14). Outermost per-try policy, so it sees timeouts too.
#[derive(Debug)]
struct RetryReport {
    max_retries: u32,
}

#[async_trait::async_trait]
impl Policy for RetryReport {
    async fn send(
        &self,
        ctx: &Context,
        request: &mut Request,
        next: &[Arc<dyn Policy>],
    ) -> PolicyResult {
        let result = next[0].send(ctx, request, &next[1..]).await;
        let cause = match &result {
            Ok(r) if RETRIED_STATUSES.contains(&u16::from(r.status())) => {
                Some(format!("HTTP {}", u16::from(r.status())))
            }
            Err(e) if matches!(e.kind(), ErrorKind::Io | ErrorKind::Connection) => {
                let mut chain = vec![e.to_string()];
                let mut src = std::error::Error::source(e);
                while let Some(s) = src {
                    let t = s.to_string();
                    if !chain.contains(&t) {
                        chain.push(t);
                    }
                    src = s.source();
                }
                Some(chain.join(": "))
            }
            _ => None,
        };
        if let Some(cause) = cause {
            let tried = ctx
                .value::<azure_core::http::policies::RetryPolicyCount>()
                .map(|c| **c)
                .unwrap_or(0);
            if tried < self.max_retries {
                eprintln!(
                    "gpuform: {} {}: {cause}; retry {} of {}",
                    request.method(),
                    host_of(request),
                    tried + 1,
                    self.max_retries
                );
            }
        }
        result
    }
}

/// The certificate part of an error chain, if there is one.
pub(crate) fn certificate_problem(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        let lower = text.to_ascii_lowercase();
        if lower.contains("certificate")
            || lower.contains("unknownissuer")
            || lower.contains("handshake") && lower.contains("tls")
        {
            return Some(text);
        }
        cur = e.source();
    }
    None
}

/// An azure_core pipeline without authentication, for public endpoints such as the Retail
/// Prices API: the same retry (honouring `Retry-After`), per-try timeout, fatal TLS errors and
/// user agent as ARM calls. Made by [`HttpSettings::pipeline`].
#[derive(Debug, Clone)]
pub struct PublicPipeline(azure_core::http::Pipeline);

/// An answer through a [`PublicPipeline`]: the status after the retries, and the body.
#[derive(Debug, Clone)]
pub struct PublicResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

impl HttpSettings {
    /// A [`PublicPipeline`] (no token is ever attached, so plain-http test servers work too).
    /// `transport: None` is the real network.
    pub fn pipeline(&self, transport: Option<&Transport>) -> PublicPipeline {
        PublicPipeline(self.azure_pipeline(transport, BodyLimit::ARM, Vec::new()))
    }

    /// gpuform's azure_core pipeline (user agent, retry, timeouts, TLS failures), with `per_try`
    /// policies that run on every try after the retry policy (the bearer token for ARM).
    pub(super) fn azure_pipeline(
        &self,
        transport: Option<&Transport>,
        limit: BodyLimit,
        per_try: Vec<std::sync::Arc<dyn azure_core::http::policies::Policy>>,
    ) -> azure_core::http::Pipeline {
        azure_core::http::Pipeline::new(
            Some("gpuform"),
            Some(env!("CARGO_PKG_VERSION")),
            self.client_options(transport, limit),
            Vec::new(),
            per_try,
            None,
        )
    }
}

impl PublicPipeline {
    /// GET `url` with `Accept: accept`. Every status comes back as an answer (after the retries
    /// for 408/429/5xx); `Err` is a transport failure, a timeout or an untrusted certificate.
    pub async fn get(
        &self,
        url: url::Url,
        accept: &str,
    ) -> Result<PublicResponse, Box<dyn std::error::Error + Send + Sync>> {
        let mut req = Request::new(url, azure_core::http::Method::Get);
        req.insert_header("accept", accept.to_string());
        let res = self
            .0
            .send(
                &Context::new(),
                &mut req,
                Some(azure_core::http::PipelineSendOptions {
                    skip_checks: true,
                    ..Default::default()
                }),
            )
            .await?;
        Ok(PublicResponse {
            status: u16::from(res.status()),
            body: res.into_body().to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn certificate_errors_are_found_in_the_chain() {
        let e = Outer(std::io::Error::other(
            "invalid peer certificate: UnknownIssuer",
        ));
        assert_eq!(
            certificate_problem(&e).as_deref(),
            Some("invalid peer certificate: UnknownIssuer")
        );
        let e = Outer(std::io::Error::other("connection refused"));
        assert_eq!(certificate_problem(&e), None);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(fmt_duration(Duration::from_secs(30)), "30 s");
        assert_eq!(fmt_duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(fmt_duration(Duration::from_millis(300)), "300 ms");
    }
}
