//! The two emitters of a [`Plan`]: Bicep (Handlebars templates) and ARM JSON (serde_json), and
//! the set of files `gpuform render` writes.

pub mod arm;
mod bench;
pub mod bicep;
mod bicep_text;
mod hbs;
mod pretty;
pub mod standby;
mod value;
mod value_ser;
pub mod write;

use crate::plan::{Plan, PlanError};
use crate::spec::Checked;

/// Why rendering failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("a Bicep template failed to render (a gpuform bug)")]
    Template(#[from] handlebars::RenderError),
}

impl RenderError {
    /// The spec cannot be rendered as written (exit 1), as opposed to an I/O error or a bug in
    /// gpuform (exit 2).
    pub fn is_spec_problem(&self) -> bool {
        match self {
            RenderError::Plan(e) => e.is_spec_problem(),
            RenderError::Template(_) => false,
        }
    }

    /// What to change or do.
    pub fn help(&self) -> Option<&str> {
        match self {
            RenderError::Plan(e) => e.help(),
            RenderError::Template(_) => {
                Some("this is a bug in gpuform; please report it with the spec that triggers it")
            }
        }
    }
}

/// The files of one rendered spec: `(file name, contents)`, in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub files: Vec<(&'static str, String)>,
}

pub const MAIN_BICEP: &str = "main.bicep";
pub const BICEPPARAM: &str = "main.bicepparam";
pub const BICEPCONFIG: &str = "bicepconfig.json";
pub const ARM_TEMPLATE: &str = "azuredeploy.json";
pub const ARM_PARAMETERS: &str = "azuredeploy.parameters.json";

/// Every file name render writes.
pub const FILES: [&str; 5] = [
    MAIN_BICEP,
    BICEPPARAM,
    BICEPCONFIG,
    ARM_TEMPLATE,
    ARM_PARAMETERS,
];

/// The size of one buffer for `main.bicep` or `azuredeploy.json` (60-135 KB for the examples):
/// large enough that a render does not copy them into a buffer twice the size halfway through.
const TEMPLATE_CAPACITY: usize = 160 * 1024;

/// Pretty JSON with a newline (as serde_json prints it, [`pretty`]); `capacity` is a guess of
/// its size.
fn json_text(v: &value::Value, capacity: usize) -> String {
    let mut buf = Vec::with_capacity(capacity);
    pretty::write(&mut buf, v);
    buf.push(b'\n');
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

/// Render a plan into its files.
pub fn render_plan(plan: &Plan) -> Result<Rendered, RenderError> {
    let mut b = Buffers::default();
    b.render(plan)?;
    let text = |v: Vec<u8>| String::from_utf8(v).expect("the emitters write UTF-8");
    Ok(Rendered {
        files: vec![
            (MAIN_BICEP, b.main),
            (BICEPPARAM, b.param),
            (BICEPCONFIG, bicep::bicepconfig()),
            (ARM_TEMPLATE, text(b.arm)),
            (ARM_PARAMETERS, text(b.arm_params)),
        ],
    })
}

/// The files of one spec rendered into buffers that a worker thread keeps from spec to spec
/// (`render -o DIR`, [`write`]): a render of thousands of specs no longer allocates (and has
/// the system zero the pages of) two fresh buffers of ~160 KB per spec.
#[derive(Debug, Default)]
pub struct Buffers {
    main: String,
    param: String,
    arm: Vec<u8>,
    arm_params: Vec<u8>,
}

impl Buffers {
    /// Render `plan` into the buffers (what was in them is dropped).
    pub fn render(&mut self, plan: &Plan) -> Result<(), RenderError> {
        self.main.clear();
        self.param.clear();
        self.main.reserve(TEMPLATE_CAPACITY);
        bicep::main_and_param_into(plan, &mut self.main, &mut self.param)?;
        json_into(&arm::tree(plan), &mut self.arm, TEMPLATE_CAPACITY);
        json_into(&arm::parameters_file(plan), &mut self.arm_params, 1024);
        Ok(())
    }

    /// The files, as [`Rendered`] orders them.
    pub fn files(&self) -> [(&'static str, &[u8]); 5] {
        [
            (MAIN_BICEP, self.main.as_bytes()),
            (BICEPPARAM, self.param.as_bytes()),
            (BICEPCONFIG, bicep::bicepconfig_str().as_bytes()),
            (ARM_TEMPLATE, &self.arm),
            (ARM_PARAMETERS, &self.arm_params),
        ]
    }
}

/// [`json_text`] into `buf` (cleared first).
fn json_into(v: &value::Value, buf: &mut Vec<u8>, capacity: usize) {
    buf.clear();
    buf.reserve(capacity);
    pretty::write(buf, v);
    buf.push(b'\n');
}

/// Render a checked spec (it must be free of validation errors).
pub fn render(checked: &Checked) -> Result<Rendered, RenderError> {
    render_plan(&Plan::build(checked)?)
}

/// The ARM template (`azuredeploy.json`) of a checked spec, byte for byte what `render` writes.
pub fn arm_template(checked: &Checked) -> Result<String, RenderError> {
    Ok(json_text(
        &arm::tree(&Plan::build(checked)?),
        TEMPLATE_CAPACITY,
    ))
}

/// The managed disks a dev box spec's VM creates (OS disk first), or none for a pool.
pub fn devbox_disk_names(checked: &Checked) -> Result<Vec<String>, RenderError> {
    Ok(Plan::build(checked)?
        .devbox
        .map(|d| d.disk_names())
        .unwrap_or_default())
}

/// The ARM template of a dev box spec whose disks `kept` exist already (kept by
/// `destroy --keep-data`): the VM attaches them instead of creating them.
pub fn arm_template_attaching(checked: &Checked, kept: &[String]) -> Result<String, RenderError> {
    let mut plan = Plan::build(checked)?;
    if let Some(d) = plan.devbox.as_mut() {
        d.kept_disks = kept.to_vec();
    }
    Ok(json_text(&arm::tree(&plan), TEMPLATE_CAPACITY))
}

/// The ARM parameters file (`azuredeploy.parameters.json`) of a checked spec.
pub fn arm_parameters(checked: &Checked) -> Result<String, RenderError> {
    Ok(json_text(
        &arm::parameters_file(&Plan::build(checked)?),
        1024,
    ))
}
