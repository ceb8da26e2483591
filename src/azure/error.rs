//! `ArmError`: everything that can go wrong talking to Azure, in terms a user can act on.
//!
//! azure_core's own `Display` can be as vague as "non-transport error occurred which will not
//! be retried"; the real cause sits deeper in the `source()` chain. Every `ArmError` keeps the
//! whole chain (`causes`) and ARM's error tree (`code`, `message`, `target`, `details`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::http::{AnswerTooLarge, NetFailure, Throttled, Timeout, TlsFailure};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// Bad settings: a missing variable, a non-https endpoint, an unknown subscription format.
    Config,
    /// Getting a token failed (Entra rejected the credential, `az` is not logged in, ...).
    Credential,
    /// ARM answered with a non-success status.
    Http,
    /// No answer within the timeout (after the retries).
    Timeout,
    /// The server's TLS certificate is not trusted.
    Tls,
    /// The connection could not be made or broke.
    Connection,
    /// ARM answered 2xx with a body gpuform cannot read.
    Decode,
    Other,
}

/// One node of ARM's error tree (`error`, `error.details[]`, deployment `properties.error`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(
        default,
        deserialize_with = "super::models::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub details: Vec<ErrorDetail>,
    #[serde(
        default,
        deserialize_with = "super::models::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub additional_info: Vec<serde_json::Value>,
}

impl ErrorDetail {
    /// Parse an ARM error body: `{"error": {...}}`, or the bare object (deployment errors).
    pub fn from_body(body: &[u8]) -> Option<ErrorDetail> {
        #[derive(Deserialize)]
        struct Envelope {
            error: ErrorDetail,
        }
        if let Ok(e) = serde_json::from_slice::<Envelope>(body) {
            return Some(e.error);
        }
        serde_json::from_slice::<ErrorDetail>(body)
            .ok()
            .filter(|d| d.code.is_some() || d.message.is_some())
    }

    /// `code: message [target]` lines, this node first, children indented by two spaces per
    /// level (whitespace inside messages collapsed: ARM's contain `\r\n`).
    pub fn tree_lines(&self, indent: usize) -> Vec<String> {
        let mut line = format!(
            "{}{}",
            "  ".repeat(indent),
            self.code.as_deref().unwrap_or("(no code)")
        );
        if let Some(m) = self
            .message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        {
            line.push_str(": ");
            line.push_str(&m.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        if let Some(t) = &self.target {
            line.push_str(&format!(" [target: {t}]"));
        }
        let mut out = vec![line];
        for c in &self.details {
            out.extend(c.tree_lines(indent + 1));
        }
        out
    }
}

/// A failed call to Azure (ARM or Entra).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArmError {
    pub kind: ErrorKind,
    /// What gpuform was doing: "list resource SKUs in eastus".
    pub operation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// ARM's error code (`AuthorizationFailed`) or, for Entra, `AADSTS7000215`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ErrorDetail>,
    /// The whole `source()` chain, outermost first, duplicates removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    /// What to do about it (the role or permission to grant, the variable to set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// `x-ms-request-id`, for a support ticket.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl ArmError {
    pub fn new(kind: ErrorKind, operation: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind,
            operation: operation.into(),
            status: None,
            code: None,
            message: Some(message.into()),
            target: None,
            details: Vec::new(),
            causes: Vec::new(),
            help: None,
            request_id: None,
        }
    }

    pub fn config(operation: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Config, operation, message)
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Does this error end the whole run (nothing else will work either)?
    pub fn is_fatal(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Config | ErrorKind::Credential | ErrorKind::Tls | ErrorKind::Connection
        ) || self.status == Some(401)
    }

    /// A transport / pipeline / credential failure from azure_core, classified.
    pub(crate) fn from_azure(operation: impl Into<String>, err: &azure_core::Error) -> Self {
        let causes: Vec<String> = chain(err)
            .into_iter()
            .filter(|c| !GENERIC.contains(&c.as_str()))
            .map(|c| c.lines().map(str::trim).collect::<Vec<_>>().join(" "))
            .collect();
        let mut operation = operation.into();
        // the bearer policy fetches the token inside the ARM call: say which step failed
        let sign_in = causes.iter().any(|c| c.contains("authentication failed"));
        if sign_in {
            operation = format!("get an access token to {operation}");
        }
        // our own markers, anywhere in the chain
        if let Some(t) = find::<TlsFailure>(err) {
            let mut e = Self::new(ErrorKind::Tls, operation, t.to_string());
            e.causes = causes;
            e.help = Some(
                "if a proxy or firewall inspects TLS, point SSL_CERT_FILE (or SSL_CERT_DIR) at a PEM bundle that contains its CA; \
                 otherwise check the endpoint (--arm-endpoint, AZURE_AUTHORITY_HOST)"
                    .into(),
            );
            return e;
        }
        if let Some(t) = find::<Throttled>(err) {
            let mut e = Self::new(ErrorKind::Http, operation, t.to_string());
            e.status = Some(t.status);
            e.causes = causes;
            e.help = Some(
                "Azure is throttling these requests: run again later, or raise --timeout to let gpuform wait longer (up to the limit above)"
                    .into(),
            );
            return e;
        }
        if let Some(t) = find::<AnswerTooLarge>(err) {
            let mut e = Self::new(ErrorKind::Decode, operation, t.to_string());
            e.causes = causes;
            e.help = Some(
                "a proxy may be answering instead of Azure (check --arm-endpoint, GPUFORM_LOGS_ENDPOINT and the proxy settings); otherwise narrow the request"
                    .into(),
            );
            return e;
        }
        // DNS and refused connections (never retried): the network or the endpoint, not the
        // credential, even when the credential's token request is what failed
        let net = find::<NetFailure>(err).map(|n| n.to_string()).or_else(|| {
            causes
                .iter()
                .find(|c| c.contains("(DNS): ") || c.contains(" refused the connection: "))
                .cloned()
        });
        if let Some(n) = net {
            let mut e = Self::new(ErrorKind::Connection, operation, n);
            e.causes = causes;
            e.help = Some(
                "nothing was signed in or sent: check the network and the endpoint names (--arm-endpoint, AZURE_AUTHORITY_HOST, --cloud) and proxy settings (HTTPS_PROXY / NO_PROXY)"
                    .into(),
            );
            return e;
        }
        if let Some(t) = find::<Timeout>(err) {
            let mut e = Self::new(ErrorKind::Timeout, operation, t.to_string());
            e.causes = causes;
            e.help = Some(
                "Azure may be slow or unreachable from here; raise --timeout or try again".into(),
            );
            return e;
        }
        let aadsts = causes.iter().find_map(|c| aadsts_code(c));
        let kind = if aadsts.is_some() || sign_in {
            ErrorKind::Credential
        } else {
            match err.kind() {
                azure_core::error::ErrorKind::Credential => ErrorKind::Credential,
                azure_core::error::ErrorKind::Connection => ErrorKind::Connection,
                azure_core::error::ErrorKind::Io => ErrorKind::Connection,
                azure_core::error::ErrorKind::DataConversion => ErrorKind::Decode,
                azure_core::error::ErrorKind::HttpResponse { .. } => ErrorKind::Http,
                _ => ErrorKind::Other,
            }
        };
        let message = match &aadsts {
            Some(code) => format!(
                "Microsoft Entra ID refused the sign-in ({code}: {})",
                aadsts_meaning(code)
            ),
            None => causes.last().cloned().unwrap_or_else(|| err.to_string()),
        };
        let mut e = Self::new(kind, operation, message);
        e.status = err.http_status().map(u16::from);
        e.code = aadsts.clone();
        e.causes = causes;
        e.help = match (kind, aadsts.as_deref()) {
            (ErrorKind::Credential, Some(code)) => Some(aadsts_help(code)),
            (ErrorKind::Credential, None) => Some("check the credential gpuform chose (see --auth) and that it can sign in to this tenant".into()),
            (ErrorKind::Connection, _) => Some("check network access to the endpoint (proxy settings: HTTPS_PROXY / NO_PROXY)".into()),
            _ => None,
        };
        e
    }

    /// One line for a table cell: `HTTP 403 AuthorizationFailed: message`.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        if let Some(st) = self.status {
            s.push_str(&format!("HTTP {st}"));
        }
        if let Some(c) = &self.code
            && !self.message.as_deref().unwrap_or("").contains(c.as_str())
        {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(c);
        }
        if let Some(m) = &self.message {
            if !s.is_empty() {
                s.push_str(": ");
            }
            s.push_str(first_line(m));
        }
        if s.is_empty() {
            s = format!("{:?}", self.kind);
        }
        s
    }

    /// ARM's error tree (the top error and its details) as an [`ErrorDetail`].
    pub fn detail(&self) -> ErrorDetail {
        ErrorDetail {
            code: self.code.clone(),
            message: self.message.clone(),
            target: self.target.clone(),
            details: self.details.clone(),
            additional_info: Vec::new(),
        }
    }

    /// The ARM error tree below the top error, one indented line per node.
    pub fn detail_lines(&self) -> Vec<String> {
        self.details.iter().flat_map(|d| d.tree_lines(1)).collect()
    }
}

impl fmt::Display for ArmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.operation, self.summary())
    }
}

impl std::error::Error for ArmError {}

fn first_line(s: &str) -> &str {
    s.trim().lines().next().unwrap_or("").trim()
}

/// azure_core wrappers that say nothing about the cause.
const GENERIC: &[&str] = &[
    "non-transport error occurred which will not be retried",
    "retry policy expired and the request will no longer be retried",
];

/// The `source()` chain as text, outermost first, without repeats and without azure_core's
/// generic wrappers when something more specific follows.
pub(crate) fn chain(err: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        let text = text.trim().to_string();
        if !text.is_empty() && !out.iter().any(|o| o == &text) {
            out.push(text);
        }
        cur = e.source();
    }
    out
}

fn find<'a, T: std::error::Error + 'static>(
    err: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(t) = e.downcast_ref::<T>() {
            return Some(t);
        }
        cur = e.source();
    }
    None
}

/// `AADSTS7000215` from an Entra error text (azure_identity 1.0 cannot parse real AADSTS bodies,
/// whose descriptions contain `\r\n`, so the code is all that reliably survives).
pub fn aadsts_code(text: &str) -> Option<String> {
    let i = text.find("AADSTS")?;
    let digits: String = text[i + 6..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    (!digits.is_empty()).then(|| format!("AADSTS{digits}"))
}

fn aadsts_meaning(code: &str) -> String {
    let meaning = match code {
        "AADSTS7000215" => "invalid client secret",
        "AADSTS7000222" => "the client secret has expired",
        "AADSTS7000218" => "no client secret or assertion was sent",
        "AADSTS700016" => "no application with this client id in the tenant",
        "AADSTS90002" | "AADSTS900023" => "unknown tenant",
        "AADSTS70021" | "AADSTS700213" | "AADSTS700211" | "AADSTS700212" => {
            "no federated credential matches this token"
        }
        "AADSTS50034" => "the user account does not exist in this tenant",
        _ => return format!("see {}", crate::facts::identity::error_lookup(code)),
    };
    meaning.to_string()
}

fn aadsts_help(code: &str) -> String {
    let help = match code {
        "AADSTS7000215" | "AADSTS7000222" => {
            "AZURE_CLIENT_SECRET is wrong or expired: create a new secret for the app registration and update the variable"
        }
        "AADSTS7000218" => {
            "set AZURE_CLIENT_SECRET, or use --auth workload for federated credentials"
        }
        "AADSTS700016" => {
            "AZURE_CLIENT_ID does not name an app registration in AZURE_TENANT_ID; check both"
        }
        "AADSTS90002" | "AADSTS900023" => {
            "AZURE_TENANT_ID is not a tenant id or domain Entra knows"
        }
        "AADSTS70021" | "AADSTS700213" | "AADSTS700211" | "AADSTS700212" => {
            "add a federated credential to the app whose issuer and subject match this pipeline (e.g. repo:ORG/REPO:ref:refs/heads/main or :environment:NAME)"
        }
        _ => {
            return format!(
                "look the code up at {} and fix the credential",
                crate::facts::identity::error_lookup(code)
            );
        }
    };
    help.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_aadsts_code_links_to_its_own_lookup_entry() {
        assert!(aadsts_meaning("AADSTS50058").ends_with("/error?code=50058"));
        assert!(aadsts_help("AADSTS50058").contains("/error?code=50058 "));
        // a known code keeps gpuform's own words
        assert_eq!(aadsts_meaning("AADSTS7000215"), "invalid client secret");
    }

    #[test]
    fn aadsts_codes_are_extracted_from_messy_text() {
        let t = "invalid type: string \"AADSTS7000215: Invalid client secret provided.\\r\\nTrace ID: x\", expected a borrowed string";
        assert_eq!(aadsts_code(t).as_deref(), Some("AADSTS7000215"));
        assert_eq!(aadsts_code("nothing here"), None);
        assert_eq!(aadsts_code("AADSTS: no digits"), None);
    }

    #[test]
    fn error_bodies_parse_with_nested_details() {
        let body = br#"{"error":{"code":"InvalidTemplateDeployment","message":"top","details":[{"code":"QuotaExceeded","message":"Operation could not be completed","target":"vmss","details":null}]}}"#;
        let d = ErrorDetail::from_body(body).unwrap();
        assert_eq!(d.code.as_deref(), Some("InvalidTemplateDeployment"));
        assert_eq!(d.details[0].target.as_deref(), Some("vmss"));
        assert_eq!(
            d.tree_lines(0),
            vec![
                "InvalidTemplateDeployment: top",
                "  QuotaExceeded: Operation could not be completed [target: vmss]"
            ]
        );
        // bare (deployment properties.error)
        let d = ErrorDetail::from_body(br#"{"code":"Conflict","message":"m"}"#).unwrap();
        assert_eq!(d.code.as_deref(), Some("Conflict"));
        assert!(ErrorDetail::from_body(b"<html>").is_none());
    }
}
