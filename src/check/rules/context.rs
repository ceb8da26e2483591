//! What every rule reads: the checked spec and its surroundings. It sits below
//! `check/rules/mod.rs` (which runs the rules) so the rule files do not import their module root.

use std::path::Path;

use crate::catalog::GpuSize;
use crate::catalog::prices::PriceTable;
use crate::sizing::Selection;
use crate::spec::model::Spec;
use crate::spec::policy::Policy;
use crate::spec::resolve::{self, ResolvedImage};

pub struct Context<'a> {
    /// The spec with defaults applied and `auto` values resolved.
    pub spec: &'a Spec,
    pub sizing: Option<&'a Selection>,
    /// The user wrote `vmSize: auto`.
    pub auto_sized: bool,
    pub base_dir: &'a Path,
    pub policy: &'a Policy,
    pub prices: &'a PriceTable,
}

impl<'a> Context<'a> {
    pub fn size(&self) -> Option<&'static GpuSize> {
        self.spec.size()
    }

    /// The rules run for one candidate of `vmSize: auto`'s ranking ([`super::size_checks`] from
    /// `crate::check::rank_sizes`), which reads each finding's rule, severity and message only; the final
    /// check of a spec has its selection in `sizing`.
    pub fn ranking(&self) -> bool {
        self.sizing.is_none()
    }

    pub fn image(&self) -> ResolvedImage {
        resolve::image(&self.spec.spec.compute.image)
    }
}

/// `$1.23/h` style price for messages.
pub(crate) fn per_hour(p: Option<f64>) -> String {
    p.map(crate::report::number::per_hour)
        .unwrap_or_else(|| "price unknown".into())
}
