//! Issue 37: the first hour of a new user (an ML platform engineer with a vLLM inference pool in
//! West Europe). Items 2 (NVIDIA unless told otherwise), 5 (one GPU before several), 6 (errors
//! where users expect errors) and 10 (the smaller ones); each case failed before its fix.

use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::diag::Severity;
use gpuform::spec::{Checked, Policy};
use serde_json::Value;

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";

/// The spec: vLLM inference, 20 GiB, West Europe, `vmSize: auto`; `workload` and
/// `extra` (under `spec:`) vary.
fn spec(workload: &str, extra: &str) -> String {
    format!(
        "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata:\n  name: vllm\n  tags: {{project: p, team: t, env: prod, costCenter: cc-1}}\nspec:\n  region: westeurope\n  workload: {{type: inference, gpuMemoryGiB: 20, precision: fp16{workload}}}\n  compute:\n    vmSize: auto\n    sshPublicKey: \"{KEY}\"\n  capacity: {{min: 0, max: 4, default: 1}}\n  monitoring: {{alertEmails: [ops@example.com]}}\n{extra}"
    )
}

fn check(text: &str) -> Checked {
    check_source(
        text.to_string(),
        "vllm.yaml",
        PathBuf::from("."),
        &Policy::default(),
        PriceTable::embedded(),
    )
}

fn rules(c: &Checked) -> Vec<String> {
    c.diagnostics.iter().map(|d| d.rule.clone()).collect()
}

fn gpuform() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// Run gpuform on `text` written to a temporary spec: (exit code, stdout, stderr).
fn run_on(text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("vllm.yaml");
    std::fs::write(&f, text).unwrap();
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.insert(1, f.display().to_string());
    let out = gpuform().args(&all).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// ---- item 2: NVIDIA unless told otherwise ----------------------------------------------------

#[test]
fn inference_without_a_vendor_gets_nvidia_and_says_why() {
    let c = check(&spec("", ""));
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let size = c.size().unwrap();
    // it was the AMD Standard_NV24ads_V710_v5, silently
    assert_eq!(size.name, "Standard_NV36ads_A10_v5");
    let sel = c.sizing.as_ref().unwrap();
    let v710 = sel
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NV24ads_V710_v5")
        .unwrap();
    assert_eq!(
        v710.rejected.as_deref(),
        Some(
            "AMD GPU: gpuform picks NVIDIA unless the spec allows AMD (`workload.gpu.vendor: amd` or `any`)"
        )
    );
    assert!(
        c.vendor_line().unwrap().starts_with("NVIDIA, the default"),
        "{:?}",
        c.vendor_line()
    );
    // validate and show say it
    let (code, o, _) = run_on(&spec("", ""), &["validate"]);
    assert_eq!(code, 0, "{o}");
    assert!(
        o.contains("  GPU vendor: NVIDIA, the default (`workload.gpu.vendor: amd` or `any` lets vmSize: auto pick AMD) (NVIDIA A10)"),
        "{o}"
    );
    let (_, o, _) = run_on(&spec("", ""), &["validate", "--output", "json"]);
    let v: Value = serde_json::from_str(&o).unwrap();
    assert!(
        v["files"][0]["gpuVendor"]
            .as_str()
            .unwrap()
            .starts_with("NVIDIA, the default"),
        "{v}"
    );
    let (_, o, _) = run_on(&spec("", ""), &["show"]);
    assert!(o.contains("# GPU vendor: NVIDIA, the default"), "{o}");
    // the pull request's job summary too (validate --output markdown)
    let (_, o, _) = run_on(&spec("", ""), &["validate", "--output", "markdown"]);
    assert!(
        o.contains("[Standard_NV36ads_A10_v5]: GPU vendor NVIDIA, the default"),
        "{o}"
    );
}

#[test]
fn amd_only_when_the_spec_says_so_or_allows_either() {
    for (vendor, why) in [
        ("amd", "AMD, as workload.gpu.vendor asks"),
        ("any", "the cheapest fit of either vendor"),
    ] {
        let c = check(&spec(&format!(", gpu: {{vendor: {vendor}}}"), ""));
        assert!(!c.has_errors(), "{vendor}: {:#?}", c.diagnostics);
        assert_eq!(
            c.size().unwrap().name,
            "Standard_NV24ads_V710_v5",
            "{vendor}"
        );
        assert!(
            c.vendor_line().unwrap().contains(why),
            "{:?}",
            c.vendor_line()
        );
    }
    // `any` with cuda: CUDA still means NVIDIA
    let c = check(&spec(", cuda: \"12.2\", gpu: {vendor: any}", ""));
    assert_eq!(
        c.size().unwrap().gpu_vendor,
        gpuform::catalog::GpuVendor::Nvidia
    );
}

#[test]
fn init_writes_the_vendor_and_takes_it_as_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = gpuform()
        .current_dir(dir.path())
        .args([
            "init",
            "pool.yaml",
            "--vram",
            "20",
            "--region",
            "westeurope",
            "--gpu-vendor",
            "amd",
            "--ssh-public-key",
            KEY,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(dir.path().join("pool.yaml")).unwrap();
    assert!(text.contains("      vendor: amd "), "{text}");
    let c = check(&text);
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    assert_eq!(c.size().unwrap().name, "Standard_NV24ads_V710_v5");
    // the default is NVIDIA
    let out = gpuform()
        .current_dir(dir.path())
        .args(["init", "nv.yaml", "--vram", "20", "--ssh-public-key", KEY])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(dir.path().join("nv.yaml")).unwrap();
    assert!(text.contains("      vendor: nvidia "), "{text}");
}

// ---- item 5: one GPU before several -----------------------------------------------------------

#[test]
fn one_gpu_before_several_and_the_pin_that_unlocks_a_cheaper_one() {
    let c = check(&spec(", cuda: \"12.4\"", ""));
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let size = c.size().unwrap();
    // it was the 4 x T4 Standard_NC64as_T4_v3, whose 16 GiB GPUs need tensor parallelism
    assert_ne!(size.name, "Standard_NC64as_T4_v3");
    assert_eq!(gpuform::sizing::gpus(size), 1, "{}", size.name);
    let sel = c.sizing.as_ref().unwrap();
    let t4x4 = sel
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NC64as_T4_v3")
        .unwrap();
    assert_eq!(t4x4.split, Some(2));
    assert!(
        t4x4.rejected
            .as_deref()
            .unwrap()
            .contains("`workload.gpu.tensorParallelSize: 2` does"),
        "{t4x4:?}"
    );
    // the A10 fits with a newer GRID driver: validate says so, with the pin to write
    let a10 = sel
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NV36ads_A10_v5")
        .unwrap();
    assert_eq!(a10.unlock.as_deref(), Some("570.211.01"));
    let pin = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "driver-pin-unlocks-size")
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert!(
        pin.message
            .starts_with("Standard_NV36ads_A10_v5 ($4.160/h in westeurope)"),
        "{}",
        pin.message
    );
    assert!(
        pin.help.as_deref().unwrap().contains(
            "write `vmSize: Standard_NV36ads_A10_v5` and `driverVersion: \"570.211.01\"`"
        ),
        "{:?}",
        pin.help
    );
    let (_, o, _) = run_on(&spec(", cuda: \"12.4\"", ""), &["validate", "--explain"]);
    assert!(
        o.contains("Standard_NV36ads_A10_v5 ")
            && o.contains("fits with `driverVersion: \"570.211.01\"`"),
        "{o}"
    );
    // ... and the pin written does what it says
    let pinned = spec(", cuda: \"12.4\"", "").replace(
        "vmSize: auto",
        "vmSize: Standard_NV36ads_A10_v5\n    driverVersion: \"570.211.01\"",
    );
    let c = check(&pinned);
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    assert!(!rules(&c).contains(&"cuda-too-new".to_string()));
}

#[test]
fn a_split_is_chosen_when_the_spec_allows_it() {
    let c = check(&spec(", gpu: {tensorParallelSize: 2}", ""));
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let size = c.size().unwrap();
    assert!(gpuform::sizing::gpus(size) >= 2, "{}", size.name);
    assert!(!rules(&c).contains(&"model-split-across-gpus".to_string()));
    // a one-GPU size is no choice for a model split across two
    let sel = c.sizing.as_ref().unwrap();
    let one = sel
        .candidates
        .iter()
        .find(|x| x.size == "Standard_NC40ads_H100_v5")
        .unwrap();
    assert_eq!(
        one.rejected.as_deref(),
        Some("1 GPU < workload.gpu.tensorParallelSize 2")
    );
}

#[test]
fn a_split_is_chosen_when_no_single_gpu_holds_the_model_and_says_so() {
    // 120 GiB: no single GPU of the catalog's inference sizes holds it
    let text = spec("", "")
        .replace("gpuMemoryGiB: 20", "gpuMemoryGiB: 120")
        .replace("westeurope", "eastus");
    let c = check(&text);
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let size = c.size().unwrap();
    assert!(gpuform::sizing::gpus(size) >= 2, "{}", size.name);
    let sel = c.sizing.as_ref().unwrap();
    assert!(
        sel.note
            .as_deref()
            .unwrap()
            .contains("no single GPU holds 120 GiB"),
        "{:?}",
        sel.note
    );
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "model-split-across-gpus")
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("--tensor-parallel-size"),
        "{:?}",
        d.help
    );
}

// ---- item 6: errors where users expect errors -------------------------------------------------

#[test]
fn a_region_typo_is_an_error_with_the_fix() {
    let text = spec("", "").replace(
        "region: westeurope",
        "region: westeurop   # the pool region",
    );
    let (code, o, _) = run_on(&text, &["validate"]);
    assert_eq!(code, 1, "{o}");
    assert!(
        o.contains(
            "error[region-typo]: `westeurop` is not an Azure region; did you mean `westeurope`?"
        ),
        "{o}"
    );
    assert!(o.contains("vllm.yaml:7:11"), "{o}");
    // render and cost refuse it
    let (code, _, e) = run_on(&text, &["cost"]);
    assert_ne!(code, 0, "{e}");
    // a transposition is the same error
    let c = check(&spec("", "").replace("region: westeurope", "region: westeuorpe"));
    assert!(
        rules(&c).contains(&"region-typo".to_string()),
        "{:?}",
        rules(&c)
    );
}

#[test]
fn a_pinned_size_without_a_price_in_the_region_is_said_to_be_likely_not_offered() {
    let text = spec("", "")
        .replace("region: westeurope", "region: francecentral")
        .replace("vmSize: auto", "vmSize: Standard_NC40ads_H100_v5");
    let c = check(&text);
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "size-unpriced-in-region")
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.message.contains("most likely does not offer it there"),
        "{}",
        d.message
    );
    let help = d.help.as_deref().unwrap();
    assert!(
        help.starts_with(
            "the nearest regions with a price for it: switzerlandnorth (about 490 km)"
        ),
        "{help}"
    );
    assert!(
        d.notes.iter().any(|n| n.contains("great-circle distance")),
        "{:?}",
        d.notes
    );
    // with a residency list, only its regions
    let c = check(&text.replace(
        "  region: francecentral\n",
        "  region: francecentral\n  allowedRegions: [francecentral, swedencentral]\n",
    ));
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "size-unpriced-in-region")
        .unwrap();
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .starts_with("the nearest allowed regions with a price for it: swedencentral (about"),
        "{:?}",
        d.help
    );
}

#[test]
fn a_budget_below_the_policy_floor_fails_validate_at_the_budget() {
    let text = spec("", "    budget: {monthly: 100}\n")
        .replace(
            "monitoring: {alertEmails: [ops@example.com]}\n",
            "monitoring:\n    alertEmails: [ops@example.com]\n",
        )
        .replace("min: 0, max: 4, default: 1", "min: 1, max: 4, default: 1");
    let (code, o, _) = run_on(&text, &["validate", "--output", "github"]);
    assert_eq!(code, 1, "{o}");
    assert!(o.contains("::error file="), "{o}");
    assert!(o.contains("title=gpuform budget-below-floor::"), "{o}");
    let (_, o, _) = run_on(&text, &["validate"]);
    assert!(o.contains("error[budget-below-floor]: monitoring.budget.monthly $100.00 is less than the pool costs at its minimum: 1 instance of Standard_NV36ads_A10_v5 all month, $3,036.80"), "{o}");
    assert!(o.contains("vllm.yaml:15:23"), "{o}");
    // a pool of none has no floor; a budget above the floor passes
    let c = check(&text.replace("min: 1, max: 4, default: 1", "min: 0, max: 4, default: 0"));
    assert!(
        !rules(&c).contains(&"budget-below-floor".to_string()),
        "{:?}",
        rules(&c)
    );
    let c = check(&text.replace("monthly: 100", "monthly: 5000"));
    assert!(!rules(&c).contains(&"budget-below-floor".to_string()));
    // the 5,000 EUR budget: validate has no EUR prices nor a rate, and says so (it
    // passed silently) with the floor in the table's currency and what compares in EUR
    let eur = text.replace("monthly: 100", "monthly: 5000, currency: EUR");
    let (code, o, _) = run_on(&eur, &["validate"]);
    assert_eq!(code, 0, "{o}");
    assert!(o.contains("info[budget-floor-not-compared]: monitoring.budget.monthly is in EUR, the price table in USD: the floor of 1 instance of Standard_NV36ads_A10_v5 all month ($3,036.80) is not compared with it"), "{o}");
    assert!(o.contains("gpuform cost SPEC --refresh-prices"), "{o}");
}

// ---- item 10: the smaller ones ------------------------------------------------------------------

#[test]
fn a_key_typo_is_one_error_with_its_did_you_mean() {
    let text = spec("", "").replace(
        "capacity: {min: 0, max: 4, default: 1}",
        "capacity: {min: 0, maxx: 4, default: 1}",
    );
    let c = check(&text);
    assert_eq!(rules(&c), ["unknown-field"], "{:#?}", c.diagnostics);
    assert_eq!(
        c.diagnostics[0].help.as_deref(),
        Some("did you mean `max`? (`max` is required here and missing)")
    );
}

#[test]
fn a_quoted_value_is_underlined_without_its_comment() {
    let text = spec("", "").replace(
        "region: westeurope",
        "region: \"westeurop\"   # the pool region",
    );
    let (_, o, _) = run_on(&text, &["validate"]);
    let underline = o
        .lines()
        .skip_while(|l| !l.contains("region: \"westeurop\""))
        .nth(1)
        .unwrap();
    assert_eq!(
        underline.trim_end().matches('^').count(),
        "\"westeurop\"".len(),
        "{o}"
    );
}

#[test]
fn synthetic_load_is_documented_and_takes_a_rate() {
    let out = gpuform().args(["simulate", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--synthetic-rate <JOBS_PER_MIN>"), "{help}");
    assert!(
        help.contains("jobs arrive at 20 % of what capacity.max instances serve"),
        "{help}"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut arrivals = Vec::new();
    for rate in [None, Some("0.5")] {
        let mut c = gpuform();
        c.args([
            "simulate",
            "examples/batch-inference-standby.yaml",
            "--synthetic",
            "--days",
            "1",
            "--output",
            "json",
        ]);
        if let Some(r) = rate {
            c.args(["--synthetic-rate", r]);
        }
        let out = c.current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        arrivals.push(v.to_string());
        if rate.is_some() {
            assert!(
                v.to_string().contains("0.50 jobs/min outside the windows"),
                "{v}"
            );
        }
    }
    assert_ne!(arrivals[0], arrivals[1]);
    drop(dir);
}

#[test]
fn sizes_for_inference_hide_training_class_and_unpriced_sizes_and_filter_by_vendor_and_cuda() {
    let run = |args: &[&str]| {
        let out = gpuform().arg("sizes").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let o = run(&["--workload", "inference", "--region", "westeurope"]);
    for hidden in [
        "Standard_ND96isr_H100_v5",
        "Standard_NC40ads_H100_v5",
        "Standard_ND96isr_H200_v5",
    ] {
        assert!(!o.contains(hidden), "{hidden}: {o}");
    }
    assert!(o.contains("not listed: 11 training-class"), "{o}");
    assert!(o.contains("$4.160/h"), "{o}");
    assert!(run(&["--workload", "inference", "--all"]).contains("Standard_ND96isr_H100_v5"));
    let o = run(&["--workload", "inference", "--vendor", "amd"]);
    assert!(
        o.contains("Standard_NV24ads_V710_v5") && !o.contains("A10"),
        "{o}"
    );
    let o = run(&[
        "--workload",
        "inference",
        "--region",
        "westeurope",
        "--cuda",
        "12.4",
    ]);
    assert!(!o.contains("V710"), "{o}");
    assert!(
        o.lines().any(|l| l.starts_with("Standard_NV36ads_A10_v5")
            && l.ends_with("CUDA 12.4 with driverVersion 570.211.01")),
        "{o}"
    );
}

#[test]
fn the_int8_lever_names_the_missing_spot_price() {
    // Spot in West Europe: the embedded Spot table covers US regions only
    let text = spec("", "")
        .replace(
            "capacity: {min: 0, max: 4, default: 1}",
            "capacity: {min: 0, max: 4, default: 2, regularBase: 1, regularPercentAboveBase: 0}",
        )
        .replace("precision: fp16", "precision: fp16, interruptible: true")
        .replace("vmSize: auto", "vmSize: Standard_NV36ads_A10_v5");
    let (code, o, e) = run_on(&text, &["cost", "--output", "json"]);
    assert_eq!(code, 0, "{e}");
    let v: Value = serde_json::from_str(&o).unwrap();
    let lever = v["levers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "precision-int8")
        .unwrap_or_else(|| panic!("{}", v["levers"]));
    let detail = lever["detail"].as_str().unwrap();
    assert_eq!(lever["status"], "missing-price", "{lever}");
    // it blamed "a price of it or of the current size"; the on-demand prices are there
    assert!(
        detail.contains("the Spot price of Standard_NV36ads_A10_v5 in westeurope and the Spot price of Standard_NC4as_T4_v3 in westeurope are missing"),
        "{detail}"
    );
    assert!(!detail.contains("current size is missing"), "{detail}");
}

#[test]
fn the_a100_example_runs_on_an_a100() {
    let c = gpuform::check::check_file(
        Path::new("examples/llm-finetune-a100.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let size = c.size().unwrap();
    assert!(
        size.gpu_model.contains("A100"),
        "{}: {}",
        size.name,
        size.gpu_model
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
}

#[test]
fn the_cloud_init_example_installs_the_container_toolkit_before_docker_uses_gpus() {
    let text = std::fs::read_to_string("examples/cloud-init/transcode.yaml").unwrap();
    let doc: Value = serde_yaml_ng_or_json(&text);
    let cmds: Vec<String> = doc["runcmd"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| match c {
            Value::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            other => other.as_str().unwrap_or_default().to_string(),
        })
        .collect();
    let at = |needle: &str| {
        cmds.iter()
            .position(|c| c.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in {cmds:#?}"))
    };
    // NVIDIA's documented apt repository and key, the toolkit, Docker's runtime configured
    let key = at("https://nvidia.github.io/libnvidia-container/gpgkey");
    let list =
        at("https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list");
    let install = at("apt-get install -y nvidia-container-toolkit");
    let configure = at("nvidia-ctk runtime configure --runtime=docker");
    let restart = at("systemctl restart docker");
    let run = at("docker run -d --restart=always --gpus all");
    assert!(
        key < list && list < install && install < configure && configure < restart && restart < run
    );
    assert!(text.contains("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"));
}

/// The cloud-init file through gpuform's own YAML reader.
fn serde_yaml_ng_or_json(text: &str) -> Value {
    gpuform::spec::yaml::parse(text).unwrap().value
}

#[test]
fn a_blocked_preflight_is_a_workflow_error() {
    let out = gpuform()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "preflight",
            "examples/shortvideo-transcode.yaml",
            "--usages",
            "tests/fixtures/preflight/az-vm-list-usage-recorded.json",
            "--output",
            "github",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let o = String::from_utf8_lossy(&out.stdout);
    let verdict = o.lines().find(|l| l.contains("is BLOCKED")).unwrap();
    assert!(verdict.starts_with("::error "), "{o}");
}

#[test]
fn a_pinned_amd_size_keeps_its_amd_alternates_without_a_vendor() {
    // the pin is the spec's choice of vendor: its failover sizes may be AMD too
    let text = spec("", "").replace(
        "vmSize: auto",
        "vmSize: Standard_NV24ads_V710_v5\n    alternateSizes: [Standard_NV28adms_V710_v5]",
    );
    let c = check(&text);
    assert!(
        !rules(&c).contains(&"alternate-size-unfit".to_string()),
        "{:#?}",
        c.diagnostics
    );
    // an NVIDIA alternate of an AMD pin is unfit (the vendor of the pin)
    let c = check(&text.replace("[Standard_NV28adms_V710_v5]", "[Standard_NV36ads_A10_v5]"));
    assert!(
        rules(&c).contains(&"alternate-size-unfit".to_string()),
        "{:?}",
        rules(&c)
    );
}
