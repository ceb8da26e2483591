//! What gpuform sends to sign in, and where: the client assertions of workload identity (a token
//! file, GitHub Actions' OIDC token) and the endpoints that hand out tokens.
//!
//! - Every token endpoint named by the environment must be https (`ACTIONS_ID_TOKEN_REQUEST_URL`,
//!   `SYSTEM_OIDCREQUESTURI`): the request token they receive is a credential. A managed identity
//!   endpoint (`IDENTITY_ENDPOINT`, `MSI_ENDPOINT`) is the platform's local agent: https, or plain
//!   http to a loopback address only ([`crate::facts::identity::LOCAL_IDENTITY_ENDPOINT_SOURCE`]).
//!   The tests reach their fakes through https too (a transport that rewrites `*.fake.test`, or a
//!   TLS front on 127.0.0.1 trusted through `SSL_CERT_FILE`), so there is no http exception to
//!   switch on.
//! - `AZURE_FEDERATED_TOKEN_FILE` is read only if it is a regular file outside `/proc`, `/sys` and
//!   `/dev` (never a FIFO that blocks, never `/proc/self/environ`), at most
//!   [`TOKEN_FILE_MAX_BYTES`] bytes, within the request timeout; and what it holds is sent only
//!   if it is a JWT (three base64url parts, a JSON header naming its `alg`). The same check
//!   applies to the token GitHub's endpoint answers.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use azure_core::credentials::Secret;
use azure_core::http::{
    ClientMethodOptions, Context, Method, Pipeline, PipelineSendOptions, Request,
};
use azure_identity::ClientAssertion;
use url::Url;

use super::error::ArmError;
use crate::facts::identity::TOKEN_FILE_MAX_BYTES;

const OP: &str = "choose a credential";

/// A token endpoint from the environment (`var`), https only.
pub(crate) fn https_endpoint(var: &str, value: &str) -> Result<Url, ArmError> {
    let url = Url::parse(value.trim())
        .map_err(|e| ArmError::config(OP, format!("{var} is not a URL: {e}")))?;
    if url.scheme() != "https" {
        return Err(ArmError::config(
            OP,
            format!(
                "{var} is not https ({}); gpuform sends a request token only over https, so nothing was sent",
                crate::diag::clip(&url.origin().ascii_serialization())
            ),
        )
        .with_help(format!(
            "{var} is set by the CI runner and is always https there; unset it, or find what overwrote it"
        )));
    }
    Ok(url)
}

/// A managed identity endpoint (`IDENTITY_ENDPOINT`, `MSI_ENDPOINT`): https, or plain http to the
/// platform's local agent on a loopback address.
pub(crate) fn local_identity_endpoint(var: &str, value: &str) -> Result<Url, ArmError> {
    let url = Url::parse(value.trim())
        .map_err(|e| ArmError::config(OP, format!("{var} is not a URL: {e}")))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        s => Err(ArmError::config(
            OP,
            format!(
                "{var} is {}; a managed identity endpoint is https, or the platform's local agent (http on a loopback address), so nothing was sent",
                crate::diag::clip(&format!("{s}://{}", url.host_str().unwrap_or("")))
            ),
        )
        .with_help(format!("{var} is set by the platform; unset it, or find what overwrote it"))),
    }
}

/// Whether `token` is a JWT: three base64url parts (no padding) separated by dots, the first a
/// JSON object naming its `alg`, the second a JSON object. Says which rule failed, never the
/// content.
pub(crate) fn check_jwt(token: &str) -> Result<(), &'static str> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err("not three parts separated by dots");
    }
    let b64url = |p: &str| {
        p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if parts[..2].iter().any(|p| p.is_empty()) || !parts.iter().all(|p| b64url(p)) {
        return Err("a part is not base64url");
    }
    let json = |p: &str| -> Option<serde_json::Map<String, serde_json::Value>> {
        let bytes = azure_core::base64::decode_url_safe(p).ok()?;
        serde_json::from_slice(&bytes).ok()
    };
    let header = json(parts[0]).ok_or("the header is not a JSON object")?;
    if !header.get("alg").is_some_and(|a| a.is_string()) {
        return Err("the header names no `alg`");
    }
    json(parts[1]).ok_or("the claims are not a JSON object")?;
    azure_core::base64::decode_url_safe(parts[2]).map_err(|_| "the signature is not base64url")?;
    Ok(())
}

/// Read the federated token file (see the module comment). Blocking; bounded by `timeout` (the
/// read runs on its own thread, so a file system that never answers cannot hold the process).
pub(crate) fn read_token_file(path: &Path, timeout: Duration) -> Result<String, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(crate::io::read_text(&p, TOKEN_FILE_MAX_BYTES));
    });
    let text = match rx.recv_timeout(timeout) {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => {
            let limit = if matches!(e, crate::io::ReadError::TooLarge { .. }) {
                " (gpuform's limit for a token, an assumption: no document gives one)"
            } else {
                ""
            };
            return Err(format!("AZURE_FEDERATED_TOKEN_FILE: {e}{limit}"));
        }
        Err(_) => {
            return Err(format!(
                "AZURE_FEDERATED_TOKEN_FILE: {} could not be read within {}",
                path.display(),
                super::http::fmt_duration(timeout)
            ));
        }
    };
    let token = text.trim();
    check_jwt(token).map_err(|why| {
        format!(
            "AZURE_FEDERATED_TOKEN_FILE: {} does not hold a JWT ({why}); gpuform sends nothing from it",
            path.display()
        )
    })?;
    Ok(token.to_string())
}

/// Workload identity's client assertion: the token file, read again for every token request (the
/// platform rotates it) with [`read_token_file`].
#[derive(Debug)]
pub(crate) struct TokenFile {
    pub path: PathBuf,
    pub timeout: Duration,
}

#[async_trait::async_trait]
impl ClientAssertion for TokenFile {
    async fn secret(
        &self,
        _options: Option<ClientMethodOptions<'_>>,
    ) -> azure_core::Result<String> {
        let (path, timeout) = (self.path.clone(), self.timeout);
        let read = tokio::task::spawn_blocking(move || read_token_file(&path, timeout));
        let r = tokio::time::timeout(timeout + Duration::from_millis(100), read).await;
        let fail = |m: String| {
            azure_core::Error::with_message(azure_core::error::ErrorKind::Credential, m)
        };
        match r {
            Ok(Ok(Ok(token))) => Ok(token),
            Ok(Ok(Err(m))) => Err(fail(m)),
            Ok(Err(e)) => Err(fail(format!("AZURE_FEDERATED_TOKEN_FILE: {e}"))),
            Err(_) => Err(fail(format!(
                "AZURE_FEDERATED_TOKEN_FILE: {} could not be read within {}",
                self.path.display(),
                super::http::fmt_duration(timeout)
            ))),
        }
    }
}

/// The GitHub Actions OIDC token as a client assertion (audience `api://AzureADTokenExchange`).
pub(crate) struct GithubOidc {
    /// https only ([`https_endpoint`]).
    pub request_url: Url,
    pub request_token: Secret,
    pub pipeline: Pipeline,
}

impl fmt::Debug for GithubOidc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GithubOidc")
            .field(
                "request_url",
                &self.request_url.origin().ascii_serialization(),
            )
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl ClientAssertion for GithubOidc {
    async fn secret(
        &self,
        _options: Option<ClientMethodOptions<'_>>,
    ) -> azure_core::Result<String> {
        use azure_core::error::ErrorKind as K;
        if self.request_url.scheme() != "https" {
            return Err(azure_core::Error::with_message(
                K::Credential,
                "ACTIONS_ID_TOKEN_REQUEST_URL is not https; nothing was sent",
            ));
        }
        let mut url = self.request_url.clone();
        url.query_pairs_mut()
            .append_pair("audience", "api://AzureADTokenExchange");
        let mut req = Request::new(url, Method::Get);
        req.insert_header(
            "authorization",
            format!("Bearer {}", self.request_token.secret()),
        );
        req.insert_header("accept", "application/json");
        let res = self
            .pipeline
            .send(
                &Context::new(),
                &mut req,
                Some(PipelineSendOptions {
                    skip_checks: true,
                    ..Default::default()
                }),
            )
            .await?;
        let status = u16::from(res.status());
        if !(200..300).contains(&status) {
            return Err(azure_core::Error::with_message(
                K::Credential,
                format!(
                    "GitHub's OIDC token endpoint answered HTTP {status}; the job needs `permissions: id-token: write`"
                ),
            ));
        }
        #[derive(serde::Deserialize)]
        struct Answer {
            value: String,
        }
        let a: Answer = serde_json::from_slice(res.body().as_ref()).map_err(|e| {
            azure_core::Error::with_error(
                K::Credential,
                e,
                "GitHub's OIDC token endpoint answered without a token",
            )
        })?;
        check_jwt(a.value.trim()).map_err(|why| {
            azure_core::Error::with_message(
                K::Credential,
                format!("GitHub's OIDC token endpoint answered something that is not a JWT ({why}); it was not sent on"),
            )
        })?;
        Ok(a.value.trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        azure_core::base64::encode_url_safe(s)
    }

    #[test]
    fn only_jwts_pass() {
        let jwt = format!(
            "{}.{}.{}",
            b64(r#"{"alg":"RS256","typ":"JWT"}"#),
            b64(r#"{"sub":"system:serviceaccount:ns:sa"}"#),
            b64("sig")
        );
        assert_eq!(check_jwt(&jwt), Ok(()));
        for bad in [
            "PATH=/usr/bin\0HOME=/root\0ADMIN_PASSWORD=hunter2".to_string(),
            "a.b".into(),
            format!("{}.{}.{}", b64("not json"), b64("{}"), b64("s")),
            format!("{}.{}.{}", b64(r#"{"typ":"JWT"}"#), b64("{}"), b64("s")),
            format!("{}.{}.{}", b64(r#"{"alg":"RS256"}"#), b64("[]"), b64("s")),
            format!("{}=.{}.{}", b64(r#"{"alg":"RS256"}"#), b64("{}"), b64("s")),
            format!("{}.{}.{}.x", b64(r#"{"alg":"RS256"}"#), b64("{}"), b64("s")),
        ] {
            assert!(check_jwt(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn endpoints() {
        assert!(https_endpoint("X", "https://token.actions.githubusercontent.com/x").is_ok());
        let e =
            https_endpoint("ACTIONS_ID_TOKEN_REQUEST_URL", "http://evil.example/x").unwrap_err();
        assert!(e.to_string().contains("only over https"), "{e}");
        assert!(https_endpoint("X", "http://127.0.0.1:8080/").is_err());
        for ok in [
            "http://127.0.0.1:41000/msi/token",
            "http://localhost:8081/",
            "http://[::1]:1/",
            "https://x.example/",
        ] {
            assert!(
                local_identity_endpoint("IDENTITY_ENDPOINT", ok).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "http://10.0.0.4/msi/token",
            "http://evil.example/",
            "ftp://127.0.0.1/",
        ] {
            assert!(
                local_identity_endpoint("IDENTITY_ENDPOINT", bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn token_files_are_bounded_and_must_be_jwts() {
        let t = Duration::from_secs(2);
        let e = read_token_file(Path::new("/proc/self/environ"), t).unwrap_err();
        assert!(e.contains("kernel or device file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("token");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let start = std::time::Instant::now();
        let e = read_token_file(&fifo, t).unwrap_err();
        assert!(e.contains("FIFO") && start.elapsed() < t, "{e}");
        let f = dir.path().join("big");
        std::fs::write(&f, "a".repeat(TOKEN_FILE_MAX_BYTES as usize + 1)).unwrap();
        let e = read_token_file(&f, t).unwrap_err();
        assert!(e.contains("an assumption"), "{e}");
        std::fs::write(&f, "password=hunter2\n").unwrap();
        let e = read_token_file(&f, t).unwrap_err();
        assert!(
            e.contains("not hold a JWT") && !e.contains("hunter2"),
            "{e}"
        );
        let jwt = format!("{}.{}.{}\n", b64(r#"{"alg":"RS256"}"#), b64("{}"), b64("s"));
        std::fs::write(&f, &jwt).unwrap();
        assert_eq!(read_token_file(&f, t).unwrap(), jwt.trim());
    }
}
