//! GPU observability (issue 12): the collector against recorded nvidia-smi outputs (a fake
//! `nvidia-smi` and `journalctl` on PATH), and what every GPU example renders.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuform::catalog::prices::PriceTable;
use gpuform::plan::gpu_monitoring::{COLLECTOR, COLUMNS, TABLE};
use gpuform::spec::check_file;
use gpuform::spec::policy::Policy;
use serde_json::Value;

const QUERY: &str = "--query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total,driver_version";

struct Run {
    rows: Vec<Value>,
    code: i32,
    state: PathBuf,
    dir: PathBuf,
}

fn fixture(name: &str) -> String {
    Path::new("tests/fixtures/gpu")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpuform-gpu-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("bin")).unwrap();
    d
}

fn write_exec(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Run `gpuform-gpu collect EXPECTED` with nvidia-smi replaying `case` (`CASE.csv` + `CASE.smi`,
/// or `no-driver.err` with exit 9).
fn collect(case: &str, expected: u32, xid: bool) -> Run {
    let dir = tmpdir(case);
    let script = dir.join("gpuform-gpu");
    write_exec(&script, COLLECTOR);
    // the fake checks that the collector asks exactly the documented query
    let smi = if case == "no-driver" {
        format!(
            "#!/bin/sh\ncat '{}' >&2\nexit 9\n",
            fixture("no-driver.err")
        )
    } else {
        format!(
            "#!/bin/sh\ncase \"$1\" in\n  '{QUERY}') [ \"$2\" = '--format=csv,noheader,nounits' ] || exit 2; cat '{}' ;;\n  '') cat '{}' ;;\n  *) echo \"unexpected $*\" >&2; exit 2 ;;\nesac\n",
            fixture(&format!("{case}.csv")),
            fixture(&format!("{case}.smi"))
        )
    };
    write_exec(&dir.join("bin/nvidia-smi"), &smi);
    let journal = if xid {
        format!("#!/bin/sh\ncat '{}'\n", fixture("xid.log"))
    } else {
        "#!/bin/sh\nexit 0\n".to_string()
    };
    write_exec(&dir.join("bin/journalctl"), &journal);
    let imds = dir.join("imds.json");
    std::fs::write(
        &imds,
        r#"{"priority": "Spot", "vmId": "0d5f1c2e-0000-4000-8000-000000000001"}"#,
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("python3")
        .arg(&script)
        .args(["collect", &expected.to_string()])
        .env("PATH", path)
        .env("GPUFORM_GPU_LOG_DIR", dir.join("log"))
        .env("GPUFORM_GPU_STATE_DIR", dir.join("state"))
        .env("GPUFORM_IMDS_FILE", &imds)
        .env("GPUFORM_NOW", "2026-12-02T16:20:00Z")
        .output()
        .expect("python3 runs the collector");
    assert!(
        out.stderr.is_empty(),
        "{case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("log/gpu-20261202.json")).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // every key the collector writes is a column the table declares
    let declared: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
    for r in &rows {
        for k in r.as_object().unwrap().keys() {
            assert!(
                declared.contains(&k.as_str()),
                "{case}: {k} is not a column of {TABLE}"
            );
        }
        assert_eq!(r["TimeGenerated"], "2026-12-02T16:20:00Z");
        assert_eq!(r["Priority"], "Spot");
        assert_eq!(r["ExpectedGpus"], expected);
    }
    Run {
        rows,
        code: out.status.code().unwrap(),
        state: dir.join("state"),
        dir,
    }
}

fn health(run: &Run, now: &str) -> (String, i32) {
    let out = Command::new("python3")
        .arg(run.dir.join("gpuform-gpu"))
        .arg("health")
        .env("GPUFORM_GPU_STATE_DIR", &run.state)
        .env("GPUFORM_NOW", now)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        out.status.code().unwrap(),
    )
}

#[test]
fn t4_sample_is_one_healthy_row() {
    let r = collect("t4", 1, false);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "ok");
    assert_eq!(row["Healthy"], true);
    assert_eq!(row["GpuIndex"], 0);
    assert_eq!(row["GpuName"], "Tesla T4");
    assert_eq!(row["UtilizationPercent"], 37.0);
    assert_eq!(row["MemoryUsedMiB"], 4120.0);
    assert_eq!(row["MemoryTotalMiB"], 15360.0);
    assert_eq!(row["TemperatureC"], 45.0);
    assert_eq!(row["PowerDrawW"], 31.27);
    assert_eq!(row["EccUncorrected"], 0);
    assert_eq!(row["DriverVersion"], "535.161.08");
    assert_eq!(row["CudaVersion"], "12.2");
    assert_eq!(row["XidErrors"], 0);
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Healthy".into(), 0));
    // a sample older than five minutes no longer vouches for the VM
    assert_eq!(health(&r, "2026-12-02T16:30:00Z"), ("Unhealthy".into(), 1));
}

#[test]
fn a10_grid_partition_degrades_to_nulls_where_the_vgpu_reports_nothing() {
    let r = collect("a10-grid", 1, false);
    assert_eq!(r.code, 0);
    let row = &r.rows[0];
    assert_eq!(row["GpuName"], "NVIDIA A10-4Q");
    assert_eq!(row["Status"], "ok");
    assert!(row["PowerDrawW"].is_null());
    assert!(row["EccUncorrected"].is_null());
    assert!(row["TemperatureC"].is_null());
    assert_eq!(row["MemoryTotalMiB"], 4096.0);
    assert_eq!(row["CudaVersion"], "12.4");
}

#[test]
fn a100_sample() {
    let r = collect("a100", 1, false);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows[0]["UtilizationPercent"], 98.0);
    assert_eq!(r.rows[0]["MemoryUsedMiB"], 78412.0);
    assert_eq!(r.rows[0]["GpuName"], "NVIDIA A100 80GB PCIe");
}

#[test]
fn h100_eight_gpus_and_xid_errors() {
    let r = collect("h100", 8, true);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 8);
    let idx: Vec<i64> = r
        .rows
        .iter()
        .map(|x| x["GpuIndex"].as_i64().unwrap())
        .collect();
    assert_eq!(idx, (0..8).collect::<Vec<_>>());
    assert!(r.rows.iter().all(|x| x["Status"] == "ok"));
    // Xid events are counted per sample and land on every row of the VM
    assert!(
        r.rows
            .iter()
            .all(|x| x["XidErrors"] == 2 && x["XidCodes"] == "48,79")
    );
}

#[test]
fn a_gpu_missing_from_nvidia_smi_marks_the_vm_unhealthy() {
    let r = collect("h100-missing", 8, false);
    assert_eq!(r.code, 1);
    assert_eq!(r.rows.len(), 7);
    for row in &r.rows {
        assert_eq!(row["Status"], "gpu-missing");
        assert_eq!(row["Healthy"], false);
        assert_eq!(row["Message"], "nvidia-smi shows 7 of 8 GPUs");
    }
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Unhealthy".into(), 1));
}

#[test]
fn a_failing_driver_writes_one_health_row() {
    let r = collect("no-driver", 1, false);
    assert_eq!(r.code, 1);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "nvidia-smi-failed");
    assert_eq!(row["Healthy"], false);
    assert!(row["GpuIndex"].is_null());
    assert!(
        row["Message"]
            .as_str()
            .unwrap()
            .starts_with("NVIDIA-SMI has failed because it couldn't communicate")
    );
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Unhealthy".into(), 1));
}

fn rendered_arm(example: &str) -> Value {
    let c = check_file(
        Path::new(example),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    gpuform::emit::arm::template(&plan)
}

fn of_type<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == ty)
        .collect()
}

#[test]
fn every_linux_example_renders_collection_alerts_repairs_and_workbook() {
    for ex in [
        "examples/shortvideo-transcode.yaml",
        "examples/llm-finetune-a100.yaml",
        "examples/pretrain-nd-h100.yaml",
    ] {
        let arm = rendered_arm(ex);
        let vmss = of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets")[0];
        let exts = vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
            .as_array()
            .unwrap();
        let ama = exts
            .iter()
            .find(|e| e["properties"]["type"] == "AzureMonitorLinuxAgent")
            .unwrap_or_else(|| panic!("{ex}: no agent"));
        assert_eq!(ama["properties"]["publisher"], "Microsoft.Azure.Monitor");
        let mi = &ama["properties"]["settings"]["authentication"]["managedIdentity"];
        assert_eq!(mi["identifier-name"], "mi_res_id");
        assert!(
            mi["identifier-value"]
                .as_str()
                .unwrap()
                .contains("userAssignedIdentities")
        );
        assert!(
            exts.iter()
                .any(|e| e["properties"]["type"] == "ApplicationHealthLinux"),
            "{ex}: health extension"
        );
        let repairs = &vmss["properties"]["automaticRepairsPolicy"];
        assert_eq!(repairs["enabled"], true, "{ex}");
        assert_eq!(repairs["gracePeriod"], "PT30M", "{ex}");
        // the collector ships in custom data
        assert!(arm["variables"]["customData"].is_string(), "{ex}");

        let table = of_type(&arm, "Microsoft.OperationalInsights/workspaces/tables");
        assert_eq!(table.len(), 1, "{ex}");
        let cols: Vec<&str> = table[0]["properties"]["schema"]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(cols, COLUMNS.iter().map(|c| c.name).collect::<Vec<_>>());
        assert!(
            table[0]["name"]
                .as_str()
                .unwrap()
                .ends_with("/GpuTelemetry_CL")
        );

        assert_eq!(
            of_type(&arm, "Microsoft.Insights/dataCollectionEndpoints").len(),
            1
        );
        let dcr = of_type(&arm, "Microsoft.Insights/dataCollectionRules")[0];
        assert_eq!(dcr["kind"], "Linux");
        let lf = &dcr["properties"]["dataSources"]["logFiles"][0];
        assert_eq!(lf["format"], "json");
        assert_eq!(lf["filePatterns"][0], "/var/log/gpuform/gpu-*.json");
        assert_eq!(
            dcr["properties"]["dataFlows"][0]["outputStream"],
            "Custom-GpuTelemetry_CL"
        );
        let assoc = of_type(&arm, "Microsoft.Insights/dataCollectionRuleAssociations")[0];
        assert!(
            assoc["scope"]
                .as_str()
                .unwrap()
                .starts_with("Microsoft.Compute/virtualMachineScaleSets/")
        );

        let alerts = of_type(&arm, "Microsoft.Insights/scheduledQueryRules");
        let names: Vec<&str> = alerts.iter().map(|a| a["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 3, "{ex}: {names:?}");
        assert!(names.iter().any(|n| n.ends_with("-gpu-idle")));
        assert!(names.iter().any(|n| n.ends_with("-gpu-vram")));
        assert!(names.iter().any(|n| n.ends_with("-gpu-faults")));
        for a in &alerts {
            let q = a["properties"]["criteria"]["allOf"][0]["query"]
                .as_str()
                .unwrap();
            assert!(q.starts_with(TABLE), "{ex}: {q}");
        }

        // least privilege: Monitoring Metrics Publisher, scoped to the DCR alone
        let publisher: Vec<_> = of_type(&arm, "Microsoft.Authorization/roleAssignments")
            .into_iter()
            .filter(|r| {
                r["properties"]["roleDefinitionId"]
                    .as_str()
                    .unwrap()
                    .contains("3913510d-42f4-4d42-a2a6-6cf4e5e8ba81")
            })
            .collect();
        assert_eq!(publisher.len(), 1, "{ex}");
        assert!(
            publisher[0]["scope"]
                .as_str()
                .unwrap()
                .starts_with("Microsoft.Insights/dataCollectionRules/")
        );

        let wb = of_type(&arm, "Microsoft.Insights/workbooks");
        assert_eq!(wb.len(), 1);
        let data: Value =
            serde_json::from_str(wb[0]["properties"]["serializedData"].as_str().unwrap()).unwrap();
        assert_eq!(data["version"], "Notebook/1.0");
        assert!(data["items"].as_array().unwrap().len() >= 7);
        assert!(
            arm["outputs"]["gpuWorkbookId"].is_object(),
            "{ex}: deploy shows the workbook"
        );
    }
}

#[test]
fn the_thresholds_come_from_the_spec() {
    let text = std::fs::read_to_string("examples/llm-finetune-a100.yaml").unwrap();
    let text = text.replacen(
        "  monitoring:\n",
        "  monitoring:\n    gpu: {idleThresholdPercent: 25, idleMinutes: 45, memoryAlertPercent: 80}\n",
        1,
    );
    assert!(
        text.contains("idleThresholdPercent: 25"),
        "the example has a monitoring block"
    );
    let c = gpuform::spec::check_source(
        text,
        "llm.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let g = plan.gpu.as_ref().unwrap();
    let idle = g
        .alerts
        .iter()
        .find(|a| a.name.ends_with("-gpu-idle"))
        .unwrap();
    assert!(idle.query.contains("AvgUtilization < 25"));
    assert_eq!(idle.window_size, "PT45M");
    let vram = g
        .alerts
        .iter()
        .find(|a| a.name.ends_with("-gpu-vram"))
        .unwrap();
    assert!(vram.query.contains("PeakMemoryPercent > 80"));
}

#[test]
fn windows_pools_and_dev_boxes_render_no_gpu_monitoring() {
    for ex in [
        "examples/windows-viz-nv.yaml",
        "examples/dev-notebook-t4.yaml",
    ] {
        let arm = rendered_arm(ex);
        assert!(
            of_type(&arm, "Microsoft.Insights/dataCollectionRules").is_empty(),
            "{ex}"
        );
        assert!(
            of_type(&arm, "Microsoft.Insights/scheduledQueryRules").is_empty(),
            "{ex}"
        );
        assert!(arm["outputs"].get("gpuWorkbookId").is_none(), "{ex}");
    }
}

fn export_report(file: &str) -> gpuform::gpu_report::Report {
    let c = check_file(
        Path::new("examples/llm-finetune-a100.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let text = std::fs::read_to_string(format!("tests/fixtures/gpu/{file}")).unwrap();
    let samples = gpuform::gpu_report::parse_export(&text).unwrap();
    gpuform::gpu_report::report(c.spec.as_ref().unwrap(), &samples, PriceTable::embedded())
}

#[test]
fn the_export_reader_takes_az_cli_json_rest_json_and_portal_csv() {
    // az monitor log-analytics query: strings, a health row without memory (skipped)
    let r = export_report("export-az.json");
    assert_eq!(r.rows, 3);
    assert_eq!(r.vms.len(), 2);
    assert!((r.measured_peak_gib - 72.0).abs() < 1e-9);
    assert_eq!(r.vms[0].at.as_deref(), Some("2026-12-01T09:01:00Z"));
    assert!(
        r.exceeds_declared,
        "72 GiB measured against gpuMemoryGiB 70"
    );
    // the sizes that fit come from the same ranking as vmSize: auto, cheapest first
    assert_eq!(r.sizes_that_fit[0].size, "Standard_NC24ads_A100_v4");
    assert!(
        r.sizes_that_fit
            .iter()
            .all(|f| f.gpu_memory_gib.unwrap() >= 72.0)
    );
    // the REST answer ({"tables": ...}) with typed cells
    let r = export_report("export-rest.json");
    assert!((r.measured_peak_gib - 24.0).abs() < 1e-9);
    assert!(!r.exceeds_declared);
    // the portal's CSV ("TimeGenerated [UTC]", quoted dates, CRLF)
    let r = export_report("export-portal.csv");
    assert!((r.measured_peak_gib - 34.0).abs() < 1e-9);
    assert_eq!(r.vms[0].at.as_deref(), Some("12/1/2026, 9:01:00.000 AM"));
}

#[test]
fn a_multi_gpu_vm_peak_is_the_sum_of_its_gpus_at_one_time() {
    let c = check_file(
        Path::new("examples/pretrain-nd-h100.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let mut csv = String::from("TimeGenerated,Computer,GpuIndex,MemoryUsedMiB\n");
    for t in ["2026-12-01T09:00:00Z", "2026-12-01T09:01:00Z"] {
        for g in 0..8 {
            let mib = if t.ends_with("01:00Z") {
                70_000
            } else {
                60_000 + g * 1000
            };
            csv.push_str(&format!("{t},pretrain000000,{g},{mib}\n"));
        }
    }
    let samples = gpuform::gpu_report::parse_export(&csv).unwrap();
    let r = gpuform::gpu_report::report(c.spec.as_ref().unwrap(), &samples, PriceTable::embedded());
    assert!((r.measured_peak_gib - 8.0 * 70_000.0 / 1024.0).abs() < 1e-6);
}

#[test]
fn gpu_report_cli_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_gpuform");
    let run = |export: &str| {
        Command::new(bin)
            .args([
                "gpu-report",
                "examples/llm-finetune-a100.yaml",
                "--export",
                export,
                "--color",
                "never",
            ])
            .output()
            .unwrap()
    };
    let over = run("tests/fixtures/gpu/export-az.json");
    assert_eq!(
        over.status.code(),
        Some(1),
        "measured peak above gpuMemoryGiB is a finding"
    );
    assert!(String::from_utf8_lossy(&over.stdout).contains("workload.gpuMemoryGiB: 72.0"));
    assert_eq!(
        run("tests/fixtures/gpu/export-rest.json").status.code(),
        Some(0)
    );
    let bad = run("tests/fixtures/gpu/h100.csv");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no `Computer` column"));
}

#[test]
fn destroy_removes_the_gpu_alerts_and_association_before_what_they_use() {
    use gpuform::destroy::stage;
    for t in [
        "Microsoft.Insights/scheduledQueryRules",
        "Microsoft.Insights/workbooks",
        "Microsoft.Insights/dataCollectionRuleAssociations",
    ] {
        assert_eq!(stage(t), 0, "{t}");
    }
    assert!(
        stage("Microsoft.Insights/dataCollectionRules")
            > stage("Microsoft.Insights/dataCollectionRuleAssociations")
    );
    assert!(
        stage("Microsoft.Insights/actionGroups") > stage("Microsoft.Insights/scheduledQueryRules")
    );
}
