//! `vmSize: auto` never picks a size its source marks as restricted or retiring when another fits
//! (issue 24, item 1), and the examples do not use one. The lifecycle comes from
//! `../shared/azure/gpu-skus.json` (`status`: "GA (docs note: no net-new capacity; ...)",
//! "retiring on ...", "retired ..."), else its dated copy in `tests/fixtures/sources/`; never from
//! the catalog's own values.

use std::path::PathBuf;

use gpuform::catalog::prices::PriceTable;
use gpuform::sizing::{DriverChoice, select};
use gpuform::spec::Policy;
use gpuform::spec::model::{GpuDriver, Image, ImageAlias, Workload, WorkloadType};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn source() -> Value {
    let shared = root().join("../shared/azure/gpu-skus.json");
    let path = if shared.is_file() {
        shared
    } else {
        root().join("tests/fixtures/sources/gpu-skus.json")
    };
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Sizes the source says take no new deployments (restricted) or are retiring/retired.
fn avoid() -> Vec<String> {
    source()["skus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            let st = s["status"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase();
            st.contains("no net-new capacity") || st.contains("retir")
        })
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_source_names_the_a100_v4_as_taking_no_new_capacity() {
    let a = avoid();
    assert!(a.contains(&"Standard_NC24ads_A100_v4".to_string()), "{a:?}");
    assert!(a.contains(&"Standard_NV12s_v3".to_string()), "{a:?}");
}

#[test]
fn auto_picks_no_restricted_or_retiring_size_when_another_fits() {
    let avoid = avoid();
    let image = Image::Alias(ImageAlias::Auto);
    let driver = DriverChoice {
        image: &image,
        gpu_driver: GpuDriver::Auto,
        driver_version: None,
    };
    for kind in [
        WorkloadType::Training,
        WorkloadType::Inference,
        WorkloadType::Batch,
        WorkloadType::Visualization,
    ] {
        for gib in [4.0, 8.0, 16.0, 24.0, 40.0, 70.0, 80.0, 94.0, 160.0, 300.0] {
            let wl = Workload {
                kind,
                gpu_memory_gib: gib,
                precision: None,
                interruptible: false,
                distributed: false,
                cuda: None,
                job_duration: None,
                concurrent_jobs_per_instance: None,
                gpu: None,
            };
            let sel = select(&wl, "eastus", &driver, PriceTable::embedded());
            let Some(chosen) = sel.chosen else { continue };
            let other_fits = sel
                .candidates
                .iter()
                .any(|c| c.rejected.is_none() && !avoid.contains(&c.size.to_string()));
            if other_fits {
                assert!(
                    !avoid.contains(&chosen.to_string()),
                    "{kind:?} {gib} GiB: auto chose {chosen}, which the source marks restricted/retiring"
                );
            }
        }
    }
}

#[test]
fn no_example_uses_a_restricted_or_retiring_size() {
    let avoid = avoid();
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("yaml") {
            continue;
        }
        let c = gpuform::check::check_file(&p, &Policy::default(), PriceTable::embedded());
        let Some(s) = c.spec.as_ref() else { continue };
        let size = &s.spec.compute.vm_size;
        assert!(
            !avoid.contains(size),
            "{}: {size} is restricted or retiring in the source",
            p.display()
        );
    }
}

#[test]
fn validate_names_an_unrestricted_size_next_to_a_restricted_one() {
    let yaml = std::fs::read_to_string(root().join("examples/llm-finetune-a100.yaml"))
        .unwrap()
        .replace("Standard_ND96amsr_A100_v4", "Standard_NC24ads_A100_v4")
        .replace("gpuMemoryGiB: 330", "gpuMemoryGiB: 70")
        .replace("image: ubuntu-hpc-22.04", "image: ubuntu-22.04");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a100.yaml");
    std::fs::write(&p, yaml).unwrap();
    let c = gpuform::check::check_file(&p, &Policy::default(), PriceTable::embedded());
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "size-limited")
        .expect("size-limited");
    let help = format!("{d:?}");
    assert!(
        help.contains("Standard_NC40ads_H100_v5") && help.contains("image: auto"),
        "{help}"
    );
}
