//! Azure facts: every Azure constant gpuform emits or relies on, each with where it comes from.
//!
//! This is the bottom floor of the house: it imports nothing from the crate. `plan`, `azure`,
//! `catalog`, `preflight` and `cost` read their constants from here, so a fact is written once
//! and its source sits beside it.
//!
//! The rule (docs/src/facts.md, "Where each fact comes from"): every entry names its [`Source`] (a URL, or a
//! repository path and commit) and the date it was read. A fact no source settles is an
//! [`Source::assumption`], and every output that depends on it says so. Tests compare these
//! facts with the sources themselves (`../shared/azure/*.json`, or the dated copies under
//! `tests/fixtures/sources/`), never with the code's own values.

pub mod api;
pub mod app_insights;
pub mod arm;
pub mod authorization;
pub mod autoscale;
pub mod capacity;
pub mod clouds;
pub mod custom_tables;
pub mod deletion;
pub mod egress;
pub mod extensions;
pub mod identity;
pub mod images;
pub mod limits;
pub mod logs_ingestion;
pub mod monitor;
pub mod monitoring;
pub mod naming;
pub mod nat;
pub mod placement;
pub mod private_dns;
pub mod quota;
pub mod regions;
pub mod retail_prices;
pub mod roles;
pub mod serving;
pub mod serving_ops;
pub mod spot;
pub mod spot_placement;
pub mod standby;

/// Where a fact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// A URL, or `owner/repo path@commit`.
    pub what: &'static str,
    /// The date the source was read (ISO 8601 date).
    pub read: &'static str,
    /// No source settles the fact: it is gpuform's assumption, said in every output that
    /// depends on it.
    pub assumption: bool,
}

impl Source {
    pub const fn doc(what: &'static str, read: &'static str) -> Self {
        Source {
            what,
            read,
            assumption: false,
        }
    }

    /// A fact without a source: `why` says what was looked for and what was chosen.
    pub const fn assumption(why: &'static str, read: &'static str) -> Self {
        Source {
            what: why,
            read,
            assumption: true,
        }
    }
}
