//! How a check is spelled: the constructor, its fix, a failed call, a list.

use crate::azure::ArmError;

use crate::preflight::report::{Check, Status};

pub(super) const NOT_CHECKED: &str = "not checked:";

pub(super) fn check(
    id: &'static str,
    title: &'static str,
    status: Status,
    message: impl Into<String>,
) -> Check {
    Check {
        id,
        title,
        status,
        message: message.into(),
        fix: None,
        quota: None,
        error: None,
    }
}

impl Check {
    pub(super) fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub(super) fn failed(id: &'static str, title: &'static str, e: &ArmError) -> Self {
        let mut c = check(
            id,
            title,
            Status::Unknown,
            format!("could not {}: {}", e.operation, e.summary()),
        );
        c.fix = e.help.clone();
        c.error = Some(e.clone());
        c
    }
}

pub(super) fn list(v: &[String]) -> String {
    v.join(", ")
}

// ---------------------------------------------------------------------------------------------
// Subscription-wide
