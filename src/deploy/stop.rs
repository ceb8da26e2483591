//! How a deploy or destroy run ends when it does not finish normally: the exit it asks for, and
//! the errors the command layer turns into messages for people (an Azure error names the
//! credential the command used, which only the command layer knows).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use crate::azure::{ArmError, ErrorKind};
use crate::diag::failure::Failure;
use crate::emit::RenderError;

/// Why a run stopped.
#[derive(Debug)]
pub enum Error {
    /// An Azure call failed. `cause` adds a cause; `check` ends the help (say, how to check on a
    /// deployment that may have started).
    Arm {
        error: ArmError,
        cause: Option<String>,
        check: Option<String>,
    },
    /// The spec's template could not be rendered.
    Render(RenderError),
    /// Anything else: the run's own message, causes, help and exit code, as the command prints it.
    Stop(Failure),
}

impl From<ArmError> for Error {
    fn from(error: ArmError) -> Self {
        Error::Arm {
            error,
            cause: None,
            check: None,
        }
    }
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        Error::Stop(f)
    }
}

impl From<RenderError> for Error {
    fn from(e: RenderError) -> Self {
        Error::Render(e)
    }
}

/// ARM refused the deployment itself (template validation, quota or capacity found before
/// anything started): a failed deployment, not an access problem.
pub fn rejected(e: &ArmError) -> bool {
    matches!(e.status, Some(400) | Some(409) | Some(422)) && e.code.is_some()
}

/// No answer (timeout, broken connection) or a server error after the retries: the request may
/// have been carried out.
pub fn unanswered(e: &ArmError) -> bool {
    matches!(
        e.kind,
        ErrorKind::Timeout | ErrorKind::Connection | ErrorKind::Other
    ) || e.status.is_some_and(|s| s >= 500)
}

impl Error {
    /// The message and the help a person reads for this error (an Azure error's own; the
    /// command layer adds the causes).
    pub fn headline(&self) -> (String, Option<String>) {
        match self {
            Error::Arm { error, .. } => (error.to_string(), error.help.clone()),
            Error::Render(e) => (e.to_string(), None),
            Error::Stop(s) => (s.message.clone(), s.help.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(status: Option<u16>, code: Option<&str>, kind: ErrorKind) -> ArmError {
        let mut e = ArmError::new(kind, "create deployment d", "failed");
        e.status = status;
        e.code = code.map(str::to_string);
        e
    }

    #[test]
    fn a_refusal_with_a_code_is_a_rejection_and_a_lost_answer_may_have_started() {
        assert!(rejected(&err(
            Some(400),
            Some("InvalidTemplateDeployment"),
            ErrorKind::Http
        )));
        assert!(!rejected(&err(Some(400), None, ErrorKind::Http)));
        assert!(!rejected(&err(
            Some(403),
            Some("AuthorizationFailed"),
            ErrorKind::Http
        )));
        assert!(unanswered(&err(None, None, ErrorKind::Timeout)));
        assert!(unanswered(&err(Some(503), None, ErrorKind::Http)));
        assert!(!unanswered(&err(
            Some(409),
            Some("Conflict"),
            ErrorKind::Http
        )));
    }
}
