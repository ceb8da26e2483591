//! A command that could not do its job: the exit code, the message, the causes and what to try.
//! Every command module returns these; `cli` prints them (the shared piece under the commands).

use std::path::Path;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ExitCode {
    Ok = 0,
    Findings = 1,
    Usage = 2,
    /// The command did its job and something is left for later (deploy: deployed, but the GPU
    /// telemetry remediation of a standby pool's VMs has to be run by hand).
    FollowUp = 3,
    /// Ctrl-C (128 + SIGINT), e.g. deploy stopped following a deployment that keeps running.
    Interrupted = 130,
}

/// The user answered no at a confirmation prompt (deploy, destroy, quota request, preflight
/// --request-quota): nothing was changed. One code for every command, the one a missing `--yes`
/// without a terminal already had (README "Exit codes", the man pages' EXIT STATUS).
pub const DECLINED: ExitCode = ExitCode::Usage;

/// A command that could not do its job: a message, the causes, and what to try.
#[derive(Debug)]
pub struct Failure {
    pub code: ExitCode,
    pub message: String,
    pub causes: Vec<String>,
    pub help: Option<String>,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Usage,
            message: message.into(),
            causes: Vec::new(),
            help: None,
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn cause(mut self, cause: impl Into<String>) -> Self {
        self.causes.push(cause.into());
        self
    }

    /// A failure from an error and its whole `source()` chain.
    pub fn from_error(
        code: ExitCode,
        context: impl Into<String>,
        err: &(dyn std::error::Error + 'static),
    ) -> Self {
        let mut causes = vec![err.to_string()];
        let mut src = err.source();
        while let Some(s) = src {
            let text = s.to_string();
            if !causes.contains(&text) {
                causes.push(text);
            }
            src = s.source();
        }
        Self {
            code,
            message: context.into(),
            causes,
            help: None,
        }
    }
}

/// Read a file the user named (`what` says which, e.g. "the policy file", or nothing) through the one bounded
/// reader: regular files only, at most `limit` bytes, UTF-8 with a byte-order mark removed. Any
/// failure is an I/O error (exit 2).
pub fn read_input(path: &Path, limit: u64, what: &str) -> Result<String, Failure> {
    crate::io::read_text(path, limit).map_err(|e| {
        Failure::from_error(
            ExitCode::Usage,
            if what.is_empty() {
                format!("cannot read {}", path.display())
            } else {
                format!("cannot read {what} {}", path.display())
            },
            &e,
        )
        .help(e.help())
    })
}

/// A positive number of seconds that a `Duration` can hold (`1e20` cannot; `NaN` is not one), for
/// a flag such as `--timeout` (`cli` and `cost` read their flags through it).
pub fn seconds(flag: &str, secs: f64) -> Result<Duration, Failure> {
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(Failure::usage(format!(
            "{flag} must be a positive number of seconds, not {secs}"
        ))),
    }
}

/// A current-thread tokio runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot start the async runtime", &e))
}

#[cfg(test)]
mod seconds_tests {
    use super::*;

    #[test]
    fn timeouts_are_positive_seconds() {
        assert_eq!(
            seconds("--timeout", 1.5).unwrap(),
            Duration::from_millis(1500)
        );
        let f = seconds("--timeout", 0.0).unwrap_err();
        assert_eq!(
            f.message,
            "--timeout must be a positive number of seconds, not 0"
        );
        assert!(seconds("--timeout", f64::NAN).is_err());
        assert!(seconds("--timeout", 1e20).is_err());
    }
}
