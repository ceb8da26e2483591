//! A section of the status screen, or why Azure did not give it.

use serde::Serialize;

use crate::azure::ArmError;

/// A section, or why it is missing.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Section<T> {
    Ok(T),
    NotAvailable {
        #[serde(rename = "notAvailable")]
        not_available: String,
    },
}

impl<T> Section<T> {
    pub(super) fn from(r: Result<T, ArmError>) -> Result<Self, ArmError> {
        match r {
            Ok(v) => Ok(Section::Ok(v)),
            Err(e) if e.is_fatal() => Err(e),
            Err(e) => {
                let mut reason = e.summary();
                if let Some(h) = &e.help {
                    reason.push_str(&format!(" ({h})"));
                }
                Ok(Section::NotAvailable {
                    not_available: reason,
                })
            }
        }
    }

    pub(super) fn missing(reason: impl Into<String>) -> Self {
        Section::NotAvailable {
            not_available: reason.into(),
        }
    }
}
