//! The existing Log Analytics workspace a spec names (landing zones' central workspace).

use crate::azure::ArmApi;
use crate::preflight::fetch::Fetch;
use crate::preflight::report::{Check, Status};
use crate::spec::model::Spec;

use super::common::{check, failed, with_fix};
use super::network::last_segment;
use super::policy::same_location;

/// What preflight reads of the platform team's workspace: its region, and the GPU table the DCR
/// writes to, which must exist before the DCR (the workspace is not gpuform's to change).
#[derive(Debug, Clone)]
pub struct WorkspaceInputs {
    pub id: String,
    /// The pool's region.
    pub region: String,
    /// The custom table the data collection rule needs, with the command that creates it
    /// (`None`: GPU monitoring is off).
    pub table: Option<(String, String)>,
}

impl WorkspaceInputs {
    pub fn of(spec: &Spec) -> Option<WorkspaceInputs> {
        let s = &spec.spec;
        let ws = crate::plan::shared::workspace(s)?;
        let gpu_on = s.monitoring.gpu.enabled.unwrap_or(true);
        let table = crate::plan::shared::prerequisites(&spec.metadata.name, s, gpu_on)
            .into_iter()
            .find(|p| p.kind == "table")
            .map(|p| {
                let command = p
                    .what
                    .split_once('`')
                    .and_then(|(_, rest)| rest.split_once('`'))
                    .map(|(c, _)| c.to_string())
                    .unwrap_or(p.what);
                (crate::plan::gpu_monitoring::TABLE.to_string(), command)
            });
        Some(WorkspaceInputs {
            id: ws.id,
            region: s.region.trim().to_ascii_lowercase(),
            table,
        })
    }
}

#[derive(Debug, Clone)]
pub struct WorkspaceData {
    pub location: Fetch<String>,
    pub table: Option<Fetch<bool>>,
}

pub async fn gather_workspace(api: &dyn ArmApi, inputs: &WorkspaceInputs) -> Option<WorkspaceData> {
    let lz = api.landing_zone()?;
    let table = async {
        match &inputs.table {
            Some((t, _)) => Some(Fetch::from_result(lz.table_exists(&inputs.id, t).await)),
            None => None,
        }
    };
    let (location, table) = futures::join!(lz.workspace_location(&inputs.id), table);
    Some(WorkspaceData {
        location: Fetch::from_result(location),
        table,
    })
}

/// The workspace's region (said: the pool's agents send to it over the public endpoint, no
/// data collection endpoint is rendered, facts::monitor::DCE) and whether the GPU table exists.
pub fn workspace_checks(inputs: &WorkspaceInputs, data: &WorkspaceData) -> Vec<Check> {
    const TITLE: &str = "The existing Log Analytics workspace";
    let mut out = Vec::new();
    match &data.location {
        Fetch::Got(l) => out.push(check(
            "workspace",
            TITLE,
            Status::Pass,
            if same_location(l, &inputs.region) {
                format!("{} is readable, in {l} with the pool", last_segment(&inputs.id))
            } else {
                format!(
                    "{} is readable, in {l} (the pool is in {}): the agents send to it directly; gpuform renders no data collection endpoint for a workspace it does not own (a DCE's logs ingestion must be in the workspace's region)",
                    last_segment(&inputs.id),
                    inputs.region
                )
            },
        )),
        Fetch::Skipped(why) => out.push(check("workspace", TITLE, Status::Skipped, why.clone())),
        Fetch::Failed(e) => out.push(failed("workspace", TITLE, "the existing workspace", e)),
    }
    if let (Some((table, command)), Some(fetch)) = (&inputs.table, &data.table) {
        const TABLE_TITLE: &str = "The GPU table in the existing workspace";
        match fetch {
            Fetch::Got(true) => out.push(check(
                "workspace-table",
                TABLE_TITLE,
                Status::Pass,
                format!("{table} exists in {}", last_segment(&inputs.id)),
            )),
            Fetch::Got(false) => out.push(with_fix(
                check(
                    "workspace-table",
                    TABLE_TITLE,
                    Status::Fail,
                    format!(
                        "{table} does not exist in {}: the data collection rule and the GPU alerts refer to it, and the workspace is the platform team's to change",
                        last_segment(&inputs.id)
                    ),
                ),
                format!("the platform team creates it before the deploy: {command}"),
            )),
            Fetch::Skipped(why) => out.push(check(
                "workspace-table",
                TABLE_TITLE,
                Status::Skipped,
                why.clone(),
            )),
            Fetch::Failed(e) => out.push(failed(
                "workspace-table",
                TABLE_TITLE,
                "the workspace's GPU table",
                e,
            )),
        }
    }
    out
}
