//! `vmSize: auto` and every size recommendation satisfy every rule of the spec (issue 10,
//! item 11): the reported case, and a property test over generated specs.

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::diag::Severity;
use gpuform::spec::{Checked, Policy};
use proptest::prelude::*;

fn check(text: &str) -> Checked {
    check_source(
        text.to_string(),
        "auto.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

#[allow(clippy::too_many_arguments)]
fn spec(
    kind: &str,
    gib: f64,
    interruptible: bool,
    cuda: Option<&str>,
    region: &str,
    spot: bool,
    image: &str,
    vm_size: &str,
) -> String {
    let cuda = cuda.map(|c| format!(", cuda: \"{c}\"")).unwrap_or_default();
    let capacity = if spot {
        "{min: 0, max: 4, default: 1, regularBase: 0, regularPercentAboveBase: 0}"
    } else {
        "{min: 0, max: 4, default: 1}"
    };
    let (sign_in, precision) = if image.starts_with("windows") {
        ("adminUsername: gpuadmin", "")
    } else {
        (
            "sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com\"",
            "",
        )
    };
    let precision = if kind == "visualization" {
        precision
    } else {
        ", precision: fp16"
    };
    format!(
        r#"apiVersion: gpuform/v1
kind: GpuWorkload
metadata:
  name: auto-size
  tags: {{project: p, team: t, env: dev, costCenter: cc-1}}
spec:
  region: {region}
  workload: {{type: {kind}, gpuMemoryGiB: {gib}, interruptible: {interruptible}{precision}{cuda}}}
  compute:
    vmSize: {vm_size}
    image: {image}
    {sign_in}
  capacity: {capacity}
  autoscale:
    queue:
      storageQueue: {{account: stautosize01, queue: jobs, create: true}}
      targetPerInstance: 10
  network: {{addressSpace: 10.40.0.0/16}}
  monitoring: {{alertEmails: [ops@example.com]}}
"#
    )
}

/// The rule ids whose verdict depends on the size (the size-dependent halves of the rules).
const SIZE_RULES: &[&str] = &[
    "spot-not-supported",
    "cuda-too-new",
    "cuda-needs-nvidia",
    "gpu-vendor-mismatch",
    "driver-mismatch",
    "nd-needs-hpc-image",
    "trusted-launch-driver",
    "image-generation",
    "size-retired",
    "size-retiring",
    "size-undocumented",
    "arm64-size",
    "vram-exceeds-size",
    "distributed-needs-infiniband",
    "training-size-for-inference",
    "visualization-needs-nv",
    "data-disk-count",
    "premium-storage-unsupported",
    "encryption-at-host-unsupported",
];

fn size_errors(c: &Checked) -> Vec<String> {
    c.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && SIZE_RULES.contains(&d.rule.as_str()))
        .map(|d| format!("{}: {}", d.rule, d.message))
        .collect()
}

#[test]
fn a_4_gib_spot_workload_with_cuda_12_4_gets_a_size_its_rules_accept() {
    let text = spec(
        "inference",
        4.0,
        true,
        Some("12.4"),
        "eastus2",
        true,
        "ubuntu-22.04",
        "auto",
    );
    let c = check(&text);
    let chosen = c.spec.as_ref().unwrap().spec.compute.vm_size.clone();
    assert_ne!(chosen, "Standard_NV6ads_A10_v5", "{:#?}", c.diagnostics);
    assert!(
        size_errors(&c).is_empty(),
        "{chosen}: {:?}",
        size_errors(&c)
    );
    assert!(
        !c.diagnostics.iter().any(|d| d.severity == Severity::Error),
        "{chosen}: {:#?}",
        c.diagnostics
    );
    // the ranking says why the A10 slice is out
    let sel = c.sizing.as_ref().unwrap();
    let nv6 = sel
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NV6ads_A10_v5")
        .unwrap();
    let why = nv6.rejected.as_deref().unwrap();
    assert!(
        why.starts_with("spot-not-supported") || why.starts_with("cuda-too-new"),
        "{why}"
    );

    // the explicit size gets a vram-underused suggestion only of a size the rules accept
    let text = spec(
        "inference",
        4.0,
        true,
        Some("12.4"),
        "eastus2",
        true,
        "ubuntu-22.04",
        "Standard_NC24ads_A100_v4",
    );
    let c = check(&text);
    for d in c.diagnostics.iter().filter(|d| d.rule == "vram-underused") {
        let help = d.help.as_deref().unwrap_or_default();
        assert!(!help.contains("NV6ads_A10_v5"), "{help}");
        assert!(help.contains(&format!("`{chosen}`")), "{help}");
    }
}

/// Issue 19: `gpuform init --workload inference --vram 20 --region westeurope` plus
/// `cuda: "12.4"` resolved `vmSize: auto` to Standard_NV24ads_V710_v5 (AMD Radeon PRO V710).
#[test]
fn cuda_keeps_vm_size_auto_on_nvidia_and_gpu_vendor_amd_on_amd() {
    let cuda = spec(
        "inference",
        20.0,
        false,
        Some("12.4"),
        "westeurope",
        false,
        "auto",
        "auto",
    );
    let c = check(&cuda);
    let chosen = c.spec.as_ref().unwrap().spec.compute.vm_size.clone();
    let size = gpuform::catalog::find(&chosen).unwrap();
    assert_eq!(
        size.gpu_vendor,
        gpuform::catalog::GpuVendor::Nvidia,
        "{chosen}: {:#?}",
        c.diagnostics
    );
    assert!(
        !c.diagnostics.iter().any(|d| d.severity == Severity::Error),
        "{chosen}: {:#?}",
        c.diagnostics
    );
    let v710 = c
        .sizing
        .as_ref()
        .unwrap()
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NV24ads_V710_v5")
        .unwrap();
    assert_eq!(
        v710.rejected.as_deref(),
        Some("AMD GPU: workload.cuda needs NVIDIA")
    );

    // gpu.vendor: amd (a ROCm framework) picks an AMD size
    let amd = cuda.replace(r#"cuda: "12.4""#, "gpu: {vendor: amd}");
    assert_ne!(amd, cuda);
    let c = check(&amd);
    let chosen = c.spec.as_ref().unwrap().spec.compute.vm_size.clone();
    assert_eq!(
        gpuform::catalog::find(&chosen).unwrap().gpu_vendor,
        gpuform::catalog::GpuVendor::Amd,
        "{chosen}: {:#?}",
        c.diagnostics
    );

    // a pinned AMD size with cuda is an error at workload.cuda
    let pinned = cuda.replace("vmSize: auto", "vmSize: Standard_NV24ads_V710_v5");
    let c = check(&pinned);
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "cuda-needs-nvidia")
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.pointer.as_deref(), Some("/spec/workload/cuda"));
    assert!(d.location.is_some(), "span at the field");

    // vendor amd with cuda contradict each other
    let both = cuda.replace(r#"cuda: "12.4""#, r#"cuda: "12.4", gpu: {vendor: amd}"#);
    let c = check(&both);
    assert!(
        c.diagnostics.iter().any(|d| d.rule == "cuda-needs-nvidia"
            && d.pointer.as_deref() == Some("/spec/workload/gpu/vendor")),
        "{:#?}",
        c.diagnostics
    );

    // a pinned NVIDIA size against gpu.vendor: amd
    let nv = amd.replace("vmSize: auto", "vmSize: Standard_NC4as_T4_v3");
    let c = check(&nv);
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "gpu-vendor-mismatch" && d.severity == Severity::Error),
        "{:#?}",
        c.diagnostics
    );
}

fn kinds() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("inference"),
        Just("training"),
        Just("batch"),
        Just("visualization")
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// For generated specs, the size `vmSize: auto` picks passes every size-dependent rule, and
    /// pinning that size explicitly gives no error the auto spec did not have.
    #[test]
    fn the_auto_chosen_size_passes_every_rule(
        kind in kinds(),
        gib in prop_oneof![Just(2.0), Just(4.0), Just(8.0), Just(12.0), Just(16.0), Just(24.0), Just(40.0), Just(80.0)],
        interruptible in any::<bool>(),
        cuda in prop_oneof![Just(None), Just(Some("11.8")), Just(Some("12.2")), Just(Some("12.4")), Just(Some("12.8")), Just(Some("13.0"))],
        region in prop_oneof![Just("eastus"), Just("eastus2"), Just("westeurope"), Just("southcentralus"), Just("japaneast")],
        spot in any::<bool>(),
        image in prop_oneof![Just("auto"), Just("ubuntu-22.04"), Just("ubuntu-24.04"), Just("windows-2022")],
    ) {
        let interruptible = interruptible || spot;
        let auto = check(&spec(kind, gib, interruptible, cuda, region, spot, image, "auto"));
        let Some(s) = auto.spec.as_ref() else { return Ok(()); };
        if auto.diagnostics.iter().any(|d| d.rule == "no-size-fits") {
            return Ok(());
        }
        prop_assert!(size_errors(&auto).is_empty(), "{}: {:?}", s.spec.compute.vm_size, size_errors(&auto));
        let pinned = check(&spec(kind, gib, interruptible, cuda, region, spot, image, &s.spec.compute.vm_size));
        let errors = |c: &Checked| -> Vec<String> {
            let mut v: Vec<String> = c.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| d.rule.clone()).collect();
            v.sort();
            v
        };
        prop_assert_eq!(errors(&pinned), errors(&auto), "{}", s.spec.compute.vm_size);
    }
}
