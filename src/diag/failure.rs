//! A command that could not do its job: the exit code, the message, the causes and what to try.
//! Every command module returns these; `cli` prints them (the shared piece under the commands).

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ExitCode {
    Ok = 0,
    Findings = 1,
    Usage = 2,
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
