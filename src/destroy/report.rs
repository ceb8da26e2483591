//! What `gpuform destroy` prints on stdout: the summary of a run, as text or a JSON document.

use serde_json::json;

use super::delete::Deletion;
use super::inventory::Target;

/// The result of the deletions.
#[derive(Debug)]
pub struct Summary {
    pub resource_group: String,
    /// The deployments whose resources went.
    pub deployments: Vec<String>,
    pub succeeded: bool,
    pub deleted: usize,
    /// Already gone before this run, or answered 404.
    pub already_gone: usize,
    pub failed: usize,
    pub not_attempted: usize,
    pub results: Vec<Deletion>,
    /// Kept with --keep-data.
    pub kept: Vec<Target>,
    /// A Flexible set's instances' data disks, detached and kept with --keep-data.
    pub kept_data_disks: usize,
    /// What Azure keeps after deletion (soft-deleted vaults), and what was done about it.
    pub notes: Vec<String>,
}

impl Summary {
    pub fn json(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "schemaVersion": 1,
                "resourceGroup": self.resource_group,
                "deployments": self.deployments,
                "succeeded": self.succeeded,
                "deleted": self.deleted, "alreadyGone": self.already_gone, "failed": self.failed, "notAttempted": self.not_attempted,
                "results": self.results,
                "kept": self.kept,
                "keptDataDisks": self.kept_data_disks,
                "notes": self.notes,
            }))
            .expect("serialises")
        )
    }

    /// The summary for people; `spec` is the spec file as given (for the command that resumes).
    pub fn text(&self, spec: &std::path::Path) -> String {
        let (deleted, already, failed, skipped) = (
            self.deleted,
            self.already_gone,
            self.failed,
            self.not_attempted,
        );
        let (ok, rg, kept_disks) = (self.succeeded, &self.resource_group, self.kept_data_disks);
        let mut s = format!(
            "{}: {deleted} deleted, {already} already gone, {failed} failed, {skipped} not attempted{}\n",
            if ok {
                "destroyed"
            } else {
                "destroy incomplete"
            },
            if self.kept.is_empty() && kept_disks == 0 {
                String::new()
            } else if kept_disks == 0 {
                format!(", {} kept", self.kept.len())
            } else {
                format!(
                    ", {} kept and {kept_disks} data disks detached and kept",
                    self.kept.len()
                )
            }
        );
        for d in self.results.iter().filter(|d| d.result == "failed") {
            s.push_str(&format!("  failed: {} {}\n", d.resource_type, d.name));
            if let Some(e) = &d.error {
                s.push_str(&format!("    {}\n", e.summary()));
                for l in e.detail_lines() {
                    s.push_str(&format!("    {l}\n"));
                }
                if let Some(h) = &e.help {
                    s.push_str(&format!("    help: {h}\n"));
                }
            }
        }
        if !ok {
            s.push_str(&format!(
                "  run `gpuform destroy {} -g {rg}` again to resume: what is gone counts as done\n",
                spec.display()
            ));
        }
        for n in &self.notes {
            s.push_str(&format!("  note: {n}\n"));
        }
        s
    }
}

/// The JSON document of a run with nothing to destroy (`msg` says why).
pub fn empty_json(rg: &str, msg: &str) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({"schemaVersion": 1, "resourceGroup": rg, "succeeded": true,
            "deleted": 0, "alreadyGone": 0, "failed": 0, "notAttempted": 0, "results": [], "notes": [msg]}))
        .expect("serialises")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(succeeded: bool) -> Summary {
        Summary {
            resource_group: "rg".into(),
            deployments: vec!["pool-0a1b2c3d".into()],
            succeeded,
            deleted: 3,
            already_gone: 1,
            failed: usize::from(!succeeded),
            not_attempted: 0,
            results: Vec::new(),
            kept: Vec::new(),
            kept_data_disks: 0,
            notes: vec!["a note".into()],
        }
    }

    #[test]
    fn the_summary_counts_and_says_how_to_resume() {
        let done = summary(true).text(std::path::Path::new("pool.yaml"));
        assert_eq!(
            done,
            "destroyed: 3 deleted, 1 already gone, 0 failed, 0 not attempted\n  note: a note\n"
        );
        let half = summary(false).text(std::path::Path::new("pool.yaml"));
        assert!(half.starts_with("destroy incomplete: 3 deleted, 1 already gone, 1 failed"));
        assert!(half.contains(
            "  run `gpuform destroy pool.yaml -g rg` again to resume: what is gone counts as done\n"
        ));
        let json: serde_json::Value = serde_json::from_str(&summary(true).json()).unwrap();
        assert_eq!(json["alreadyGone"], 1);
        assert_eq!(json["deployments"][0], "pool-0a1b2c3d");
        let empty: serde_json::Value = serde_json::from_str(&empty_json("rg", "why")).unwrap();
        assert_eq!(empty["notes"][0], "why");
        assert_eq!(empty["succeeded"], true);
    }
}
