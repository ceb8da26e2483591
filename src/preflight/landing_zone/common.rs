//! How a landing-zone check is spelled (shared by the subnet, policy and workspace checks).

use crate::azure::ArmError;
use crate::preflight::report::{Check, Status};

pub(super) fn check(
    id: &'static str,
    title: &'static str,
    status: Status,
    message: String,
) -> Check {
    Check {
        id,
        title,
        status,
        message,
        fix: None,
        quota: None,
        error: None,
    }
}

pub(super) fn with_fix(mut c: Check, fix: impl Into<String>) -> Check {
    c.fix = Some(fix.into());
    c
}

/// A call that failed: 403 is a warning (the identity may not read it: say what to grant),
/// anything else could not be answered (unknown).
pub(super) fn failed(id: &'static str, title: &'static str, what: &str, e: &ArmError) -> Check {
    let status = if e.status == Some(403) {
        Status::Warn
    } else {
        Status::Unknown
    };
    let mut c = check(
        id,
        title,
        status,
        format!(
            "could not check {what}: could not {}: {}",
            e.operation,
            e.summary()
        ),
    );
    c.fix = e.help.clone();
    c.error = Some(e.clone());
    c
}
