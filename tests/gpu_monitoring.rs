//! GPU observability (issue 12): the collector against recorded nvidia-smi outputs (a fake
//! `nvidia-smi` and `journalctl` on PATH), and what every GPU example renders.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::plan::gpu_monitoring::{COLLECTOR, COLUMNS, TABLE};
use gpuform::spec::policy::Policy;
use serde_json::Value;

#[path = "support/scripts.rs"]
mod scripts;
use scripts::{fixture, tmpdir, write_exec};

const QUERY: &str = "--query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total,driver_version";

struct Run {
    rows: Vec<Value>,
    code: i32,
    state: PathBuf,
    dir: PathBuf,
}

/// Run `gpuform-gpu collect EXPECTED` with nvidia-smi replaying `case` (`CASE.csv` + `CASE.smi`,
/// or `no-driver.err` with exit 9).
fn collect(case: &str, expected: u32, xid: bool) -> Run {
    let dir = tmpdir("gpu", case);
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
    // the job count the workload writes: `CASE.jobs` where the case has one, else no file
    let jobs = Path::new("tests/fixtures/gpu").join(format!("{case}.jobs"));
    let jobs = if jobs.is_file() {
        jobs
    } else {
        dir.join("no-jobs-file")
    };
    let out = Command::new("python3")
        .arg(&script)
        .args(["collect", &expected.to_string()])
        .env("GPUFORM_JOBS_FILE", &jobs)
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

/// The job count the workload writes (tests/fixtures/gpu/t4.jobs: 3) lands on every row of the
/// VM; without the file the column is empty.
#[test]
fn running_jobs_come_from_the_file_the_workload_writes() {
    let with = collect("t4", 1, false);
    assert!(
        with.rows.iter().all(|r| r["RunningJobs"] == 3),
        "{:?}",
        with.rows
    );
    let without = collect("a100", 1, false);
    assert!(without.rows.iter().all(|r| r["RunningJobs"].is_null()));
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

// ------------------------------------------------------------------ AMD (ROCm) pools
// The collector with `collect N amd`: a fake amd-smi and/or rocm-smi on PATH replaying the
// outputs in tests/fixtures/gpu/amd/ (their provenance is in tests/fixtures/gpu/README.md), a
// fake /sys/bus/pci/devices (GPUFORM_PCI_DIR) and a fake /opt/rocm (GPUFORM_ROCM_DIR).

/// The rocm-smi arguments the collector must pass (the fake refuses any other).
const ROCM_SMI_ARGS: &str = "--showuse --showmeminfo vram --showtemp --showpower --showproductname --showuniqueid --showdriverversion --json";

struct Amd<'a> {
    tag: &'a str,
    expected: u32,
    /// (metric, static, list) files for amd-smi; None: no amd-smi on the VM
    amd_smi: Option<(String, String, String)>,
    /// amd-smi exits 255 with the driver-not-loaded message
    amd_smi_fails: bool,
    /// rocm-smi --json file; None: no rocm-smi
    rocm_smi: Option<String>,
    /// AMD GPUs on the (fake) PCI bus and their PCI class
    on_bus: u32,
    class: &'a str,
}

fn amd_fixture(name: &str) -> String {
    fixture(&format!("amd/{name}"))
}

fn amd_case<'a>(tag: &'a str, expected: u32, metric: &str, stat: &str, list: &str) -> Amd<'a> {
    Amd {
        tag,
        expected,
        amd_smi: Some((amd_fixture(metric), amd_fixture(stat), amd_fixture(list))),
        amd_smi_fails: false,
        rocm_smi: None,
        on_bus: expected,
        class: "0x120000",
    }
}

/// Eight MI300X on ROCm 6.2 (value/unit JSON): the case most tests vary.
fn mi300x_case(tag: &str) -> Amd<'_> {
    amd_case(
        tag,
        8,
        "mi300x-6.2-metric.json",
        "mi300x-6.2-static.json",
        "mi300x-list.json",
    )
}

fn collect_amd(case: &Amd) -> Run {
    let dir = tmpdir("gpu", &format!("amd-{}", case.tag));
    let script = dir.join("gpuform-gpu");
    write_exec(&script, COLLECTOR);
    if let Some((metric, stat, list)) = &case.amd_smi {
        let body = if case.amd_smi_fails {
            format!(
                "#!/bin/sh\ncat '{}' >&2\nexit 255\n",
                amd_fixture("amd-smi-no-driver.err")
            )
        } else {
            format!(
                "#!/bin/sh\ncase \"$*\" in\n  'metric --json') cat '{metric}' ;;\n  'static --json') cat '{stat}' ;;\n  'list --json') cat '{list}' ;;\n  *) echo \"unexpected $*\" >&2; exit 2 ;;\nesac\n"
            )
        };
        write_exec(&dir.join("bin/amd-smi"), &body);
    }
    if let Some(out) = &case.rocm_smi {
        write_exec(
            &dir.join("bin/rocm-smi"),
            &format!(
                "#!/bin/sh\n[ \"$*\" = '{ROCM_SMI_ARGS}' ] || {{ echo \"unexpected $*\" >&2; exit 2; }}\ncat '{out}'\n"
            ),
        );
    }
    // nothing may ask the kernel log for Xid events on an AMD VM
    write_exec(
        &dir.join("bin/journalctl"),
        "#!/bin/sh\necho journalctl called >&2\nexit 1\n",
    );
    // the PCI bus: the GPUs, and what must not count (an AMD HDMI audio function, the Hyper-V
    // synthetic video adapter, a Mellanox InfiniBand NIC)
    let pci = dir.join("pci");
    let mut devices: Vec<(String, &str, &str)> = (0..case.on_bus)
        .map(|i| (format!("0000:{:02x}:00.0", 0x0c + i), "0x1002", case.class))
        .collect();
    devices.push(("0000:0c:00.1".into(), "0x1002", "0x040300"));
    devices.push(("5620e0c7-8062:00:08.0".into(), "0x1414", "0x030000"));
    devices.push(("0101:00:00.0".into(), "0x15b3", "0x020700"));
    for (name, vendor, class) in devices {
        let d = pci.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("vendor"), format!("{vendor}\n")).unwrap();
        std::fs::write(d.join("class"), format!("{class}\n")).unwrap();
    }
    let rocm = dir.join("rocm");
    std::fs::create_dir_all(rocm.join(".info")).unwrap();
    std::fs::copy(amd_fixture("rocm-version"), rocm.join(".info/version")).unwrap();
    let imds = dir.join("imds.json");
    std::fs::write(
        &imds,
        r#"{"priority": "Regular", "vmId": "0d5f1c2e-0000-4000-8000-0000000000a3"}"#,
    )
    .unwrap();
    // no inherited PATH: a real amd-smi on the test machine must not answer (python3 itself is
    // looked up on the test's PATH first)
    let python = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .expect("python3 on PATH");
    let path = format!("{}:/usr/bin:/bin", dir.join("bin").display());
    let out = Command::new(python)
        .arg(&script)
        .args(["collect", &case.expected.to_string(), "amd"])
        .env("PATH", path)
        .env("GPUFORM_GPU_LOG_DIR", dir.join("log"))
        .env("GPUFORM_GPU_STATE_DIR", dir.join("state"))
        .env("GPUFORM_IMDS_FILE", &imds)
        .env("GPUFORM_PCI_DIR", &pci)
        .env("GPUFORM_JOBS_FILE", dir.join("no-jobs-file"))
        .env("GPUFORM_ROCM_DIR", &rocm)
        .env("GPUFORM_NOW", "2026-12-02T16:20:00Z")
        .output()
        .expect("python3 runs the collector");
    assert!(
        out.stderr.is_empty(),
        "{}: {}",
        case.tag,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("log/gpu-20261202.json")).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let declared: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
    for r in &rows {
        for k in r.as_object().unwrap().keys() {
            assert!(
                declared.contains(&k.as_str()),
                "{}: {k} is not a column of {TABLE}",
                case.tag
            );
        }
        assert_eq!(r["TimeGenerated"], "2026-12-02T16:20:00Z");
        assert_eq!(r["Priority"], "Regular");
        assert_eq!(r["ExpectedGpus"], case.expected);
        // Xid is NVIDIA's: empty on AMD rows
        assert!(r["XidErrors"].is_null(), "{}", case.tag);
        assert_eq!(r["XidCodes"], "", "{}", case.tag);
    }
    Run {
        rows,
        code: out.status.code().unwrap(),
        state: dir.join("state"),
        dir,
    }
}

/// The eight MI300X rows every recorded MI300X output describes (values of the fixtures).
fn assert_mi300x_rows(r: &Run, driver: &str) {
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 8);
    let idx: Vec<i64> = r
        .rows
        .iter()
        .map(|x| x["GpuIndex"].as_i64().unwrap())
        .collect();
    assert_eq!(idx, (0..8).collect::<Vec<_>>());
    for row in &r.rows {
        assert_eq!(row["Status"], "ok");
        assert_eq!(row["Healthy"], true);
        assert_eq!(row["Message"], "");
        assert_eq!(row["GpuName"], "AMD Instinct MI300X");
        assert_eq!(row["MemoryTotalMiB"], 196592.0);
        assert_eq!(row["DriverVersion"], driver);
        // the CudaVersion column carries the ROCm release on AMD
        assert_eq!(row["CudaVersion"], "6.2.1");
    }
    let g0 = &r.rows[0];
    assert_eq!(g0["UtilizationPercent"], 98.0);
    assert_eq!(g0["MemoryUsedMiB"], 181024.0);
    // MI300X reports no edge temperature: the hotspot (junction) one
    assert_eq!(g0["TemperatureC"], 71.0);
    assert_eq!(g0["PowerDrawW"], 712.0);
    assert_eq!(g0["EccUncorrected"], 0);
    assert_eq!(r.rows[3]["EccUncorrected"], 2);
    assert_eq!(r.rows[6]["UtilizationPercent"], 0.0);
    assert_eq!(r.rows[6]["MemoryUsedMiB"], 283.0);
}

/// The rows without the columns that legitimately differ between two outputs.
fn comparable(r: &Run, drop: &[&str]) -> Vec<Value> {
    r.rows
        .iter()
        .map(|row| {
            let mut o = row.as_object().unwrap().clone();
            for k in drop {
                o.remove(*k);
            }
            Value::Object(o)
        })
        .collect()
}

#[test]
fn mi300x_amd_smi_rocm_6_0_plain_values() {
    let r = collect_amd(&amd_case(
        "mi300x-6.0",
        8,
        "mi300x-6.0-metric.json",
        "mi300x-6.0-static.json",
        "mi300x-list.json",
    ));
    assert_mi300x_rows(&r, "6.3.6");
    assert_eq!(r.rows[0]["GpuUuid"], "1fff74a1-0000-1000-8010-4c3f5a0e9d20");
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Healthy".into(), 0));
}

#[test]
fn mi300x_amd_smi_rocm_6_2_value_and_unit_and_the_gpu_data_envelope() {
    let plain = collect_amd(&amd_case(
        "mi300x-6.0-cmp",
        8,
        "mi300x-6.0-metric.json",
        "mi300x-6.0-static.json",
        "mi300x-list.json",
    ));
    let r = collect_amd(&mi300x_case("mi300x-6.2"));
    assert_mi300x_rows(&r, "6.8.5");
    // both shapes give the same rows (the driver versions of the two recordings differ)
    assert_eq!(
        comparable(&r, &["DriverVersion"]),
        comparable(&plain, &["DriverVersion"])
    );
    // later amd-smi releases wrap the list: {"gpu_data": [...]}
    let dir = std::env::temp_dir().join(format!("gpuform-amd-envelope-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut wrapped = Vec::new();
    for f in [
        "mi300x-6.2-metric.json",
        "mi300x-6.2-static.json",
        "mi300x-list.json",
    ] {
        let list: Value =
            serde_json::from_str(&std::fs::read_to_string(amd_fixture(f)).unwrap()).unwrap();
        let p = dir.join(f);
        std::fs::write(&p, serde_json::json!({ "gpu_data": list }).to_string()).unwrap();
        wrapped.push(p.display().to_string());
    }
    let mut case = mi300x_case("mi300x-envelope");
    case.amd_smi = Some((wrapped[0].clone(), wrapped[1].clone(), wrapped[2].clone()));
    let env = collect_amd(&case);
    assert_eq!(comparable(&env, &[]), comparable(&r, &[]));
}

#[test]
fn v710_partition_reports_what_a_vm_guest_sees() {
    let mut case = amd_case(
        "v710",
        1,
        "v710-metric.json",
        "v710-static.json",
        "v710-list.json",
    );
    case.class = "0x030000";
    let r = collect_amd(&case);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "ok");
    assert_eq!(row["Healthy"], true);
    assert_eq!(row["GpuIndex"], 0);
    assert_eq!(row["GpuName"], "AMD Radeon PRO V710");
    assert_eq!(row["GpuUuid"], "e5ff7461-0000-1000-8000-000000000000");
    assert_eq!(row["UtilizationPercent"], 41.0);
    assert_eq!(row["MemoryUsedMiB"], 5210.0);
    assert_eq!(row["MemoryTotalMiB"], 12272.0);
    // a guest reads no temperature, power or ECC: empty, not an error
    assert!(row["TemperatureC"].is_null());
    assert!(row["PowerDrawW"].is_null());
    assert!(row["EccUncorrected"].is_null());
    assert_eq!(row["DriverVersion"], "6.10.5");
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Healthy".into(), 0));
}

#[test]
fn rocm_smi_is_the_fallback_without_amd_smi() {
    let mut case = mi300x_case("rocm-smi");
    case.amd_smi = None;
    case.rocm_smi = Some(amd_fixture("mi300x-rocm-smi.json"));
    let r = collect_amd(&case);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 8);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "ok");
    assert_eq!(row["GpuName"], "AMD Instinct MI300X");
    assert_eq!(row["GpuUuid"], "0x5a1b2c3d4e5f6070");
    // bytes -> MiB, the same figures amd-smi reports
    assert_eq!(row["MemoryUsedMiB"], 181024.0);
    assert_eq!(row["MemoryTotalMiB"], 196592.0);
    assert_eq!(row["UtilizationPercent"], 98.0);
    assert_eq!(row["TemperatureC"], 71.0);
    assert_eq!(row["PowerDrawW"], 712.0);
    // rocm-smi has no ECC total in its JSON
    assert!(row["EccUncorrected"].is_null());
    assert_eq!(row["DriverVersion"], "6.3.6");
    assert_eq!(row["CudaVersion"], "6.2.1");
}

#[test]
fn an_amd_gpu_missing_from_amd_smi_marks_the_vm_unhealthy() {
    // the MI300X recording without GPU 5
    let dir = std::env::temp_dir().join(format!("gpuform-amd-seven-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let all: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(amd_fixture("mi300x-6.2-metric.json")).unwrap(),
    )
    .unwrap();
    let seven: Vec<&Value> = all.iter().filter(|g| g["gpu"] != 5).collect();
    let metric = dir.join("metric.json");
    std::fs::write(&metric, serde_json::to_string(&seven).unwrap()).unwrap();
    let mut case = mi300x_case("mi300x-seven");
    case.amd_smi = Some((
        metric.display().to_string(),
        amd_fixture("mi300x-6.2-static.json"),
        amd_fixture("mi300x-list.json"),
    ));
    let r = collect_amd(&case);
    assert_eq!(r.code, 1);
    assert_eq!(r.rows.len(), 7);
    for row in &r.rows {
        assert_eq!(row["Status"], "gpu-missing");
        assert_eq!(row["Healthy"], false);
        assert_eq!(row["Message"], "amd-smi shows 7 of 8 GPUs");
    }
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Unhealthy".into(), 1));
}

#[test]
fn an_amd_gpu_missing_from_the_pci_bus_is_caught_without_any_tool() {
    let mut case = mi300x_case("pci-seven");
    case.amd_smi = None;
    case.on_bus = 7;
    let r = collect_amd(&case);
    assert_eq!(r.code, 1);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "gpu-missing");
    assert_eq!(row["Healthy"], false);
    assert!(row["GpuIndex"].is_null());
    // the HDMI audio function, the Hyper-V video adapter and the NIC are not GPUs
    assert_eq!(
        row["Message"],
        "7 of 8 AMD GPUs on the PCI bus (no amd-smi or rocm-smi to read them)"
    );
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Unhealthy".into(), 1));
}

#[test]
fn an_image_without_amd_smi_or_rocm_smi_is_reported_but_not_repaired() {
    let mut case = mi300x_case("tool-missing");
    case.amd_smi = None;
    let r = collect_amd(&case);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    // the faults alert reports every Status other than ok ...
    assert_eq!(row["Status"], "tool-missing");
    assert!(
        row["Message"]
            .as_str()
            .unwrap()
            .starts_with("no amd-smi or rocm-smi on PATH or in "),
        "{row}"
    );
    assert!(
        row["Message"]
            .as_str()
            .unwrap()
            .ends_with("(8 of 8 AMD GPUs on the PCI bus)")
    );
    // ... but the probe stays healthy: a new VM from the same image would have no tool either
    assert_eq!(row["Healthy"], true);
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Healthy".into(), 0));
}

#[test]
fn a_failing_amd_smi_writes_one_unhealthy_row() {
    let mut case = mi300x_case("amd-smi-fails");
    case.amd_smi_fails = true;
    // no rocm-smi to fall back on: the failure is the answer
    let r = collect_amd(&case);
    assert_eq!(r.code, 1);
    assert_eq!(r.rows.len(), 1);
    let row = &r.rows[0];
    assert_eq!(row["Status"], "amd-smi-failed");
    assert_eq!(row["Healthy"], false);
    assert_eq!(
        row["Message"],
        "ERROR:root:Driver not loaded (amdgpu not found in modules)"
    );
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Unhealthy".into(), 1));
}

/// amd-smi prints warnings before its JSON, brackets included ("[WARNING] ..."): the document
/// after them is read, not mistaken for a failure (which would mark a healthy VM unhealthy).
#[test]
fn amd_smi_warnings_before_the_json_are_skipped() {
    let dir = tmpdir("gpu", "amd-warning-fixture");
    let metric = dir.join("metric-with-warning.json");
    std::fs::write(
        &metric,
        format!(
            "[WARNING] amdsmi: {{some}} library version mismatch, [continuing]\n{}",
            std::fs::read_to_string(amd_fixture("mi300x-6.2-metric.json")).unwrap()
        ),
    )
    .unwrap();
    let mut case = mi300x_case("amd-smi-warning");
    if let Some((m, _, _)) = case.amd_smi.as_mut() {
        *m = metric.display().to_string();
    }
    let r = collect_amd(&case);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 8);
    assert!(r.rows.iter().all(|x| x["Status"] == "ok"));
    assert_eq!(r.rows[0]["UtilizationPercent"], 98.0);
}

/// amd-smi broken in the image while rocm-smi reads the GPUs: the rows come from rocm-smi and
/// the VM stays healthy (replacing it would give a VM from the same image, amd-smi as broken).
#[test]
fn a_failing_amd_smi_falls_back_to_rocm_smi() {
    let mut case = mi300x_case("amd-smi-fails-rocm-reads");
    case.amd_smi_fails = true;
    case.rocm_smi = Some(amd_fixture("mi300x-rocm-smi.json"));
    let r = collect_amd(&case);
    assert_eq!(r.code, 0);
    assert_eq!(r.rows.len(), 8);
    assert!(
        r.rows
            .iter()
            .all(|x| x["Status"] == "ok" && x["Healthy"] == true)
    );
    assert_eq!(health(&r, "2026-12-02T16:21:00Z"), ("Healthy".into(), 0));
}

#[test]
fn the_faults_alert_covers_the_amd_statuses() {
    use gpuform::plan::gpu_monitoring::COLUMNS;
    // every Status the collector writes is in the column's description, and the faults alert
    // fires on anything but ok
    let status = COLUMNS.iter().find(|c| c.name == "Status").unwrap();
    for s in [
        "amd-smi-failed",
        "rocm-smi-failed",
        "tool-missing",
        "gpu-missing",
        "no-gpu",
    ] {
        assert!(status.description.contains(s), "{s}");
        let written = match s.strip_suffix("-failed") {
            // Status=name + "-failed", name being the tool that ran
            Some(tool) => {
                COLLECTOR.contains(&format!("name = \"{tool}\""))
                    && COLLECTOR.contains("Status=name + \"-failed\"")
            }
            None => COLLECTOR.contains(&format!("\"{s}\"")),
        };
        assert!(written, "the collector never writes {s}");
    }
    let arm = rendered_arm("tests/fixtures/render/variants/amd-v710-inference.yaml");
    let faults = of_type(&arm, "Microsoft.Insights/scheduledQueryRules")
        .into_iter()
        .find(|a| a["name"].as_str().unwrap().ends_with("-gpu-faults"))
        .unwrap();
    let q = faults["properties"]["criteria"]["allOf"][0]["query"]
        .as_str()
        .unwrap();
    assert!(q.contains("and Status != \"ok\""), "{q}");
}

#[test]
fn the_amd_variant_renders_the_amd_collector_after_the_amd_driver() {
    let arm = rendered_arm("tests/fixtures/render/variants/amd-v710-inference.yaml");
    let vmss = of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets")[0];
    let exts = vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
        .as_array()
        .unwrap();
    assert_eq!(
        ext(exts, "AmdGpuDriverLinux")["properties"]["publisher"],
        "Microsoft.HpcCompute"
    );
    ext(exts, "AzureMonitorLinuxAgent");
    let health = ext(exts, "ApplicationHealthLinux");
    assert_eq!(
        health["properties"]["provisionAfterExtensions"],
        serde_json::json!(["AmdGpuDriverLinux"])
    );
    assert_eq!(
        vmss["properties"]["automaticRepairsPolicy"]["enabled"],
        true
    );
    // the custom data installs the collector with the vendor and the size's GPU count
    let c = check_file(
        Path::new("tests/fixtures/render/variants/amd-v710-inference.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let g = plan.gpu.as_ref().unwrap();
    assert_eq!((g.vendor, g.expected_gpus, g.kind), ("amd", 1, "Linux"));
    // what the template carries (base64 of the cloud-init script)
    let text =
        String::from_utf8(unbase64(arm["variables"]["customData"].as_str().unwrap())).unwrap();
    assert!(text.contains("ExecStart=/usr/local/lib/gpuform/gpuform-gpu collect 1 amd\n"));
    assert!(text.contains("Description=gpuform GPU sample (amd-smi to "));
    assert!(text.contains(COLLECTOR));
    // the workbook names the tool
    let wb = of_type(&arm, "Microsoft.Insights/workbooks")[0];
    assert!(
        wb["properties"]["serializedData"]
            .as_str()
            .unwrap()
            .contains("by the gpuform collector (`amd-smi`)")
    );
    assert_eq!(
        of_type(&arm, "Microsoft.Insights/dataCollectionRules").len(),
        1
    );
}

/// The rule reaches every VM: an association on a Uniform scale set or a dev box's VM (Learn: it
/// reaches their VMs); on a Flexible scale set, whose VMs a scale-set association does not reach,
/// the built-in per-VM association policy (Azure/azure-policy
/// AzureMonitor_DCRA_VM_{Linux,Windows}_DINE.json) with the roles its definition names
/// (roleDefinitionIds) and a remediation for the VMs created before it acted.
fn assert_delivery(arm: &Value, ex: &str) {
    let assoc = of_type(arm, "Microsoft.Insights/dataCollectionRuleAssociations");
    let policy = of_type(arm, "Microsoft.Authorization/policyAssignments");
    let vmss = of_type(arm, "Microsoft.Compute/virtualMachineScaleSets");
    let ingestion = vmss.first().is_some_and(|v| {
        v["properties"]["virtualMachineProfile"]["osProfile"]["customData"]
            .as_str()
            .is_some_and(|c| c.contains("logsIngestion.endpoint"))
    });
    match vmss.first() {
        // the Logs Ingestion path (tests/gpu_ingestion.rs): no association, no policy
        Some(_) if ingestion => {
            assert!(assoc.is_empty() && policy.is_empty(), "{ex}");
        }
        Some(v) if v["properties"]["orchestrationMode"] == "Flexible" => {
            assert!(
                assoc.is_empty(),
                "{ex}: a scale-set association does not reach Flexible VMs"
            );
            assert_eq!(policy.len(), 1, "{ex}: the per-VM association policy");
            let p = &policy[0];
            let def = p["properties"]["policyDefinitionId"].as_str().unwrap();
            let windows =
                v["properties"]["virtualMachineProfile"]["osProfile"]["windowsConfiguration"]
                    .is_object();
            // the GUIDs as the definitions' files name them (`name`)
            let want = if windows {
                "244efd75-0d92-453c-b9a3-7d73ca36ed52"
            } else {
                "58e891b9-ce13-4ac3-86e4-ac3e1f20cb07"
            };
            assert!(def.contains(want), "{ex}: {def}");
            assert_eq!(p["identity"]["type"], "SystemAssigned", "{ex}");
            let params = &p["properties"]["parameters"];
            assert_eq!(
                params["resourceType"]["value"],
                "Microsoft.Insights/dataCollectionRules"
            );
            assert_eq!(
                params["scopeToSupportedImages"]["value"], false,
                "{ex}: GPU images are not on the list"
            );
            assert!(
                params["dcrResourceId"]["value"]
                    .as_str()
                    .unwrap()
                    .contains("dataCollectionRules")
            );
            // the definition's roleDefinitionIds: Monitoring Contributor, Log Analytics Contributor
            for role in [
                "749f88d5-cbae-40b8-bcfc-e573ddc772fa",
                "92aaf0da-9dab-42b6-94a3-d43ce8d16293",
            ] {
                assert!(
                    of_type(arm, "Microsoft.Authorization/roleAssignments")
                        .iter()
                        .any(|r| {
                            r["properties"]["roleDefinitionId"]
                                .as_str()
                                .unwrap()
                                .contains(role)
                                && r["properties"]["principalId"]
                                    .as_str()
                                    .unwrap()
                                    .contains("policyAssignments")
                        }),
                    "{ex}: {role} for the policy's identity"
                );
            }
            let rem = of_type(arm, "Microsoft.PolicyInsights/remediations");
            assert_eq!(rem.len(), 1, "{ex}: remediation");
            assert!(
                rem[0]["dependsOn"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d.as_str().unwrap().contains("virtualMachineScaleSets")),
                "{ex}: the remediation runs once the VMs exist"
            );
        }
        Some(_) => {
            assert!(policy.is_empty(), "{ex}");
            assert_eq!(assoc.len(), 1, "{ex}: association");
            assert!(
                assoc[0]["scope"]
                    .as_str()
                    .unwrap()
                    .starts_with("Microsoft.Compute/virtualMachineScaleSets/"),
                "{ex}"
            );
        }
        None => {
            assert!(policy.is_empty(), "{ex}");
            assert_eq!(assoc.len(), 1, "{ex}: association");
            assert!(
                assoc[0]["scope"]
                    .as_str()
                    .unwrap()
                    .starts_with("Microsoft.Compute/virtualMachines/"),
                "{ex}"
            );
        }
    }
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
        assert_delivery(&arm, ex);

        let alerts = of_type(&arm, "Microsoft.Insights/scheduledQueryRules");
        let names: Vec<&str> = alerts.iter().map(|a| a["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 4, "{ex}: {names:?}");
        assert!(names.iter().any(|n| n.ends_with("-gpu-idle")));
        assert!(names.iter().any(|n| n.ends_with("-gpu-vram")));
        assert!(names.iter().any(|n| n.ends_with("-gpu-faults")));
        assert!(names.iter().any(|n| n.ends_with("-gpu-telemetry-missing")));
        for a in &alerts {
            let q = a["properties"]["criteria"]["allOf"][0]["query"]
                .as_str()
                .unwrap();
            assert!(q.contains(TABLE), "{ex}: {q}");
        }

        // least privilege: Monitoring Metrics Publisher, scoped to the DCR alone
        let publisher: Vec<_> = of_type(&arm, "Microsoft.Authorization/roleAssignments")
            .into_iter()
            .filter(|r| {
                r["properties"]["roleDefinitionId"]
                    .as_str()
                    .unwrap()
                    .contains("3913510d-42f4-4e42-8a64-420c390055eb")
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
    let c = gpuform::check::check_source(
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
    // the threshold is the rule's, compared with the query's measure
    assert_eq!(vram.measure, "PeakMemoryPercent");
    assert_eq!(vram.threshold, 80);
    assert!(!vram.query.contains("> 80"), "{}", vram.query);
}

/// The dev box's extension resources by their extension type.
fn vm_ext<'a>(arm: &'a Value, ty: &str) -> &'a Value {
    of_type(arm, "Microsoft.Compute/virtualMachines/extensions")
        .into_iter()
        .find(|e| e["properties"]["type"] == ty)
        .unwrap_or_else(|| panic!("no {ty} extension on the VM"))
}

fn depends_on_ext(e: &Value, vm: &str, name: &str) -> bool {
    let want =
        format!("[resourceId('Microsoft.Compute/virtualMachines/extensions', '{vm}', '{name}')]");
    e["dependsOn"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d.as_str() == Some(want.as_str()))
}

/// Issue 12 on dev boxes (a standalone VM): the agent, the collector and its health probe as
/// extension resources of the VM, the association scoped to the VM, the three alerts and the
/// workbook; no automatic repairs (a VM has none).
#[test]
fn dev_boxes_render_collection_alerts_health_and_workbook() {
    use gpuform::plan::gpu_monitoring::{HEALTH_PATH, HEALTH_PORT};
    for (ex, vm, windows) in [
        ("examples/dev-notebook-t4.yaml", "vm-dev-notebook", false),
        (
            "tests/fixtures/render/variants/devbox-windows.yaml",
            "vm-variant-devbox-windows",
            true,
        ),
        (
            "tests/fixtures/render/variants/lz-devbox-spoke.yaml",
            "vm-variant-devbox-spoke",
            false,
        ),
    ] {
        let arm = rendered_arm(ex);
        assert!(of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets").is_empty());
        let (ama_ty, health_ty, driver, collector_ty) = if windows {
            (
                "AzureMonitorWindowsAgent",
                "ApplicationHealthWindows",
                "NvidiaGpuDriverWindows",
                "CustomScriptExtension",
            )
        } else {
            (
                "AzureMonitorLinuxAgent",
                "ApplicationHealthLinux",
                "NvidiaGpuDriverLinux",
                "CustomScript",
            )
        };
        // the agent, signed in with the pool's identity
        let ama = vm_ext(&arm, ama_ty);
        assert_eq!(ama["properties"]["publisher"], "Microsoft.Azure.Monitor");
        let mi = &ama["properties"]["settings"]["authentication"]["managedIdentity"];
        assert_eq!(mi["identifier-name"], "mi_res_id", "{ex}");
        assert!(
            mi["identifier-value"]
                .as_str()
                .unwrap()
                .contains("userAssignedIdentities"),
            "{ex}"
        );
        // the collector after the driver (which may reboot the VM)
        let col = vm_ext(&arm, collector_ty);
        assert_eq!(col["name"], format!("{vm}/GpuCollector"));
        assert!(
            depends_on_ext(col, vm, driver),
            "{ex}: {}",
            col["dependsOn"]
        );
        // the probe asks the collector's responder, after the driver and the collector
        let health = vm_ext(&arm, health_ty);
        assert_eq!(
            health["properties"]["publisher"],
            "Microsoft.ManagedServices"
        );
        let hs = &health["properties"]["settings"];
        assert_eq!(hs["port"], HEALTH_PORT, "{ex}");
        assert_eq!(hs["requestPath"], HEALTH_PATH, "{ex}");
        assert_eq!(hs["protocol"], "http", "{ex}");
        assert!(depends_on_ext(health, vm, driver), "{ex}");
        assert!(depends_on_ext(health, vm, "GpuCollector"), "{ex}");
        // no provisionAfterExtensions on a VM's extensions, no repairs policy anywhere
        let text = arm.to_string();
        assert!(!text.contains("provisionAfterExtensions"), "{ex}");
        assert!(!text.contains("automaticRepairsPolicy"), "{ex}");

        // the association is an extension resource of the VM
        let assoc = of_type(&arm, "Microsoft.Insights/dataCollectionRuleAssociations");
        assert_eq!(assoc.len(), 1, "{ex}");
        assert_eq!(
            assoc[0]["scope"],
            format!("Microsoft.Compute/virtualMachines/{vm}"),
            "{ex}"
        );
        assert!(
            assoc[0]["dependsOn"].as_array().unwrap().iter().any(|d| d
                .as_str()
                .unwrap()
                .contains("Microsoft.Compute/virtualMachines'")),
            "{ex}"
        );
        let dcr = of_type(&arm, "Microsoft.Insights/dataCollectionRules")[0];
        assert_eq!(dcr["kind"], if windows { "Windows" } else { "Linux" });
        assert_eq!(
            dcr["properties"]["dataFlows"][0]["outputStream"],
            "Custom-GpuTelemetry_CL"
        );

        let alerts = of_type(&arm, "Microsoft.Insights/scheduledQueryRules");
        let names: Vec<&str> = alerts.iter().map(|a| a["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 4, "{ex}: {names:?}");
        for suffix in [
            "-gpu-idle",
            "-gpu-vram",
            "-gpu-faults",
            "-gpu-telemetry-missing",
        ] {
            assert!(names.iter().any(|n| n.ends_with(suffix)), "{ex}: {suffix}");
        }
        let faults = alerts
            .iter()
            .find(|a| a["name"].as_str().unwrap().ends_with("-gpu-faults"))
            .unwrap();
        assert!(
            faults["properties"]["description"]
                .as_str()
                .unwrap()
                .contains(&format!("az vm redeploy --name {vm}")),
            "{ex}"
        );
        assert_eq!(of_type(&arm, "Microsoft.Insights/workbooks").len(), 1);
        assert!(arm["outputs"]["gpuWorkbookId"].is_object(), "{ex}");
    }
}

/// The Linux dev box's collector: the Custom Script Extension's `script` is the gzip'ed,
/// base64 install script a scale set's cloud-init runs, byte for byte, which writes the
/// collector and enables its units; the VM's custom data stays the spec's own (none here).
#[test]
fn the_dev_box_script_installs_exactly_the_scale_sets_collector() {
    use gpuform::plan::gpu_monitoring::{COLLECTOR, install_script};
    use std::io::Read;
    let arm = rendered_arm("examples/dev-notebook-t4.yaml");
    let col = vm_ext(&arm, "CustomScript");
    let p = &col["properties"];
    assert_eq!(p["publisher"], "Microsoft.Azure.Extensions");
    assert_eq!(p["typeHandlerVersion"], "2.1");
    assert_eq!(p["settings"]["skipDos2Unix"], true);
    assert!(p["settings"].get("commandToExecute").is_none());
    assert!(p.get("protectedSettings").is_none());
    let packed = p["settings"]["script"].as_str().unwrap();
    assert!(
        packed.len() < 256 * 1024,
        "the extension refuses more than 256 KB"
    );
    let gz = unbase64(packed);
    assert_eq!(&gz[..2], &[0x1f, 0x8b], "gzip");
    let mut script = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut script)
        .unwrap();
    // one GPU on a T4 VM: the same script the scale set's cloud-init part is
    assert_eq!(script, install_script(1, "nvidia"));
    assert!(script.starts_with("#!/bin/sh\n"));
    assert!(script.contains(COLLECTOR));
    assert!(
        script.contains(
            "systemctl enable --now gpuform-gpu-collect.timer gpuform-gpu-health.service\n"
        )
    );
    // not in custom data: the example has no cloud-init, so the VM has none
    assert!(arm["variables"].get("customData").is_none());
    let vm = of_type(&arm, "Microsoft.Compute/virtualMachines")[0];
    assert!(vm["properties"]["osProfile"].get("customData").is_none());
}

/// A dev box's own cloud-init file stays its custom data, untouched (no multipart with the
/// collector: the collector comes with the Custom Script Extension).
#[test]
fn a_dev_box_keeps_its_cloud_init_as_custom_data() {
    let text = std::fs::read_to_string("examples/dev-notebook-t4.yaml")
        .unwrap()
        .replace(
            "    vmSize: auto\n",
            "    vmSize: auto\n    cloudInit: ./cloud-init/transcode.yaml\n",
        );
    assert!(text.contains("cloudInit"));
    let c = gpuform::check::check_source(
        text,
        "dev.yaml",
        PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let user = std::fs::read("examples/cloud-init/transcode.yaml").unwrap();
    assert_eq!(
        plan.compute.custom_data.as_deref(),
        Some(gpuform::plan::base64(&user).as_str())
    );
    assert!(plan.gpu.is_some());
}

/// The Windows dev box carries the scale set's collector installer unchanged.
#[test]
fn the_windows_dev_box_installs_the_pools_collector() {
    use gpuform::plan::gpu_monitoring::windows_install_command;
    let arm = rendered_arm("tests/fixtures/render/variants/devbox-windows.yaml");
    let cse = vm_ext(&arm, "CustomScriptExtension");
    assert_eq!(cse["properties"]["publisher"], "Microsoft.Compute");
    assert_eq!(cse["properties"]["typeHandlerVersion"], "1.10");
    // an NV12ads A10 v5 is a third of an A10: one GPU to expect
    assert_eq!(
        cse["properties"]["settings"]["commandToExecute"],
        windows_install_command(1)
    );
    assert!(arm["variables"].get("customData").is_none());
}

fn export_report(file: &str) -> gpuform::gpu_report::Report {
    let c = check_file(
        Path::new("examples/llm-finetune-a100.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let text = std::fs::read_to_string(format!("tests/fixtures/gpu/{file}")).unwrap();
    let samples = gpuform::gpu_report::parse_export(&text).unwrap();
    // the exports were taken from a one-GPU pool that declared 70 GiB (the example now declares
    // its eight-GPU VM's 330 GiB)
    let mut spec = c.spec.clone().unwrap();
    spec.spec.workload.gpu_memory_gib = 70.0;
    gpuform::gpu_report::report(&spec, &samples, PriceTable::embedded())
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
    // the sizes that fit come from the same ranking as vmSize: auto, cheapest unrestricted first
    // (NC A100 v4 takes no new capacity: it ranks after the sizes that do)
    assert_eq!(r.sizes_that_fit[0].size, "Standard_NC40ads_H100_v5");
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

/// `az monitor log-analytics query` prints nulls as the text `None` (the log-analytics
/// extension's `str(value)`, tests/fixtures/gpu/README.md): its export of a health row reads, and
/// the az, REST and portal exports of the same rows give the same figures.
#[test]
fn az_none_rest_and_portal_exports_of_the_same_rows_agree() {
    let reports: Vec<_> = [
        "export-az-none.json",
        "export-rest-none.json",
        "export-portal-none.csv",
    ]
    .iter()
    .map(|f| export_report(f))
    .collect();
    for r in &reports {
        // the health row (no memory figure) is skipped, not an error
        assert_eq!(r.rows, 3);
        assert!((r.measured_peak_gib - 72.0).abs() < 1e-9);
        assert!(r.exceeds_declared);
    }
    let figures = |r: &gpuform::gpu_report::Report| {
        (
            r.rows,
            r.measured_peak_gib,
            r.sizes_that_fit.iter().map(|f| f.size).collect::<Vec<_>>(),
            r.vms.len(),
        )
    };
    assert_eq!(figures(&reports[0]), figures(&reports[1]));
    assert_eq!(figures(&reports[0]), figures(&reports[2]));
    // a `None` where a number must be is still refused outside the az shape
    let bad = "Computer,MemoryUsedMiB\nvm1,None\n";
    assert!(gpuform::gpu_report::parse_export(bad).is_err());
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
    // the exports come from a one-GPU pool that declared 70 GiB (the example's eight-GPU VM
    // declares 330)
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("llm-finetune-70.yaml");
    std::fs::write(
        &spec,
        std::fs::read_to_string("examples/llm-finetune-a100.yaml")
            .unwrap()
            .replace("gpuMemoryGiB: 330", "gpuMemoryGiB: 70")
            .replace("Standard_ND96amsr_A100_v4", "Standard_NC40ads_H100_v5"),
    )
    .unwrap();
    let run = |export: &str| {
        Command::new(bin)
            .args([
                "gpu-report",
                spec.to_str().unwrap(),
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

// ------------------------------------------------------------------ Windows pools
// The Windows collector (templates/gpu-collector.ps1) is PowerShell. No PowerShell can be
// installed on the machines this suite runs on (no pwsh/.NET package in the registries they
// reach), so these tests do not execute it: they check that it asks nvidia-smi the same
// question as the Linux collector, maps the answer to the same columns, writes only declared
// columns, and that what the template renders (extension settings, install command, probe)
// agrees with the plan.

fn windows_plan() -> gpuform::plan::Plan {
    let c = check_file(
        Path::new("examples/windows-viz-nv.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    gpuform::plan::Plan::build(&c).unwrap()
}

fn ext<'a>(exts: &'a [Value], ty: &str) -> &'a Value {
    exts.iter()
        .find(|e| e["properties"]["type"] == ty)
        .unwrap_or_else(|| panic!("no {ty} extension"))
}

#[test]
fn the_windows_example_renders_collection_alerts_repairs_and_workbook() {
    use gpuform::plan::gpu_monitoring::{
        HEALTH_PATH, HEALTH_PORT, WINDOWS_LOG_PATTERN, windows_install_command,
    };
    let arm = rendered_arm("examples/windows-viz-nv.yaml");
    let vmss = of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets")[0];
    let exts = vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = exts.iter().map(|e| e["name"].as_str().unwrap()).collect();

    // the collector's installer: Custom Script Extension 1.10, after the GRID driver
    let cse = ext(exts, "CustomScriptExtension");
    assert_eq!(cse["properties"]["publisher"], "Microsoft.Compute");
    assert_eq!(cse["properties"]["typeHandlerVersion"], "1.10");
    assert_eq!(
        cse["properties"]["provisionAfterExtensions"],
        serde_json::json!(["NvidiaGpuDriverWindows"])
    );
    let cmd = cse["properties"]["settings"]["commandToExecute"]
        .as_str()
        .unwrap();
    assert_eq!(
        cmd,
        windows_install_command(1),
        "one GPU (a third of an A10)"
    );
    assert!(cmd.contains(&format!("install 1 {HEALTH_PORT};")), "{cmd}");
    // nothing is downloaded and no storage account is named
    assert!(cse["properties"]["settings"].get("fileUris").is_none());
    assert!(cse["properties"].get("protectedSettings").is_none());

    // the agent for Windows, signed in with the pool's identity
    let ama = ext(exts, "AzureMonitorWindowsAgent");
    assert_eq!(ama["properties"]["publisher"], "Microsoft.Azure.Monitor");
    let mi = &ama["properties"]["settings"]["authentication"]["managedIdentity"];
    assert_eq!(mi["identifier-name"], "mi_res_id");
    assert!(
        mi["identifier-value"]
            .as_str()
            .unwrap()
            .contains("userAssignedIdentities")
    );
    assert!(!names.contains(&"AzureMonitorLinuxAgent"));

    // the probe asks the collector's responder, once the driver and the collector are there
    let health = ext(exts, "ApplicationHealthWindows");
    assert_eq!(health["properties"]["settings"]["port"], HEALTH_PORT);
    assert_eq!(health["properties"]["settings"]["requestPath"], HEALTH_PATH);
    assert_eq!(health["properties"]["settings"]["protocol"], "http");
    assert_eq!(
        health["properties"]["provisionAfterExtensions"],
        serde_json::json!(["NvidiaGpuDriverWindows", "GpuCollector"])
    );
    let repairs = &vmss["properties"]["automaticRepairsPolicy"];
    assert_eq!(repairs["enabled"], true);
    assert_eq!(repairs["gracePeriod"], "PT30M");
    // Windows runs no custom data: the collector is not there
    assert!(arm["variables"].get("customData").is_none());

    // DCE and DCR for Windows, the Windows path, the same table and stream
    for ty in [
        "Microsoft.Insights/dataCollectionEndpoints",
        "Microsoft.Insights/dataCollectionRules",
    ] {
        assert_eq!(of_type(&arm, ty)[0]["kind"], "Windows", "{ty}");
    }
    let dcr = of_type(&arm, "Microsoft.Insights/dataCollectionRules")[0];
    let lf = &dcr["properties"]["dataSources"]["logFiles"][0];
    assert_eq!(lf["format"], "json");
    assert_eq!(lf["filePatterns"][0], WINDOWS_LOG_PATTERN);
    assert_eq!(
        dcr["properties"]["dataFlows"][0]["outputStream"],
        "Custom-GpuTelemetry_CL"
    );
    let table = of_type(&arm, "Microsoft.OperationalInsights/workspaces/tables");
    let cols: Vec<&str> = table[0]["properties"]["schema"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cols, COLUMNS.iter().map(|c| c.name).collect::<Vec<_>>());
    assert_delivery(&arm, "examples/windows-viz-nv.yaml");
    assert_eq!(
        of_type(&arm, "Microsoft.Insights/scheduledQueryRules").len(),
        4
    );
    assert_eq!(of_type(&arm, "Microsoft.Insights/workbooks").len(), 1);
    assert!(arm["outputs"]["gpuWorkbookId"].is_object());
    assert!(
        of_type(&arm, "Microsoft.Authorization/roleAssignments")
            .iter()
            .any(|r| r["properties"]["roleDefinitionId"]
                .as_str()
                .unwrap()
                .contains("3913510d-42f4-4e42-8a64-420c390055eb"))
    );

    // Bicep says the same (the path's backslashes escaped for a Bicep string)
    let bicep = gpuform::emit::bicep::main_bicep(&windows_plan()).unwrap();
    assert!(bicep.contains(r"'C:\\ProgramData\\gpuform\\logs\\gpu-*.json'"));
    assert!(bicep.contains("type: 'AzureMonitorWindowsAgent'"));
    assert!(bicep.contains("type: 'CustomScriptExtension'"));
    assert_eq!(bicep.matches("kind: 'Windows'").count(), 2);
}

#[test]
fn the_idle_alert_quotes_the_windows_price() {
    use gpuform::catalog::prices::{PriceKind, PriceOs};
    let plan = windows_plan();
    let g = plan.gpu.as_ref().unwrap();
    let price = |os| {
        PriceTable::embedded().hourly(
            "Standard_NV12ads_A10_v5",
            "westeurope",
            os,
            PriceKind::OnDemand,
        )
    };
    let idle = g.alerts.iter().find(|a| a.sym == "gpuAlertIdle").unwrap();
    match price(PriceOs::Windows) {
        Some(w) => {
            assert_eq!(g.hourly_price, Some(w));
            assert!(!g.licence_extra);
        }
        // the embedded table has no Windows prices: the Linux rate, said to be a lower bound
        None => {
            let linux = price(PriceOs::Linux).unwrap();
            assert_eq!(g.hourly_price, Some(linux));
            assert!(g.licence_extra);
            assert!(
                idle.description
                    .contains(&format!("${linux:.3}/h each plus the Windows licence")),
                "{}",
                idle.description
            );
            assert!(
                idle.email_subject
                    .contains(&format!("${linux:.3}/h each + Windows licence")),
                "{}",
                idle.email_subject
            );
            assert!(
                g.workbook
                    .serialized_data
                    .contains("the Windows licence is extra")
            );
        }
    }
    // a Linux pool is quoted as before
    let linux_plan = {
        let c = check_file(
            Path::new("examples/llm-finetune-a100.yaml"),
            &Policy::default(),
            PriceTable::embedded(),
        );
        gpuform::plan::Plan::build(&c).unwrap()
    };
    let lg = linux_plan.gpu.as_ref().unwrap();
    assert!(!lg.licence_extra);
    assert!(!lg.alerts[0].query.contains("licence"));
}

/// Standard base64 (RFC 4648), for reading the install command back.
fn unbase64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {}", c as char),
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|c| u32::from(val(*c))).collect();
        let n = v
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, x)| n | (x << (18 - 6 * i)));
        for i in 0..v.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

#[test]
fn the_install_command_carries_the_whole_collector_and_fits_a_command_line() {
    use gpuform::plan::gpu_monitoring::{
        MAX_WINDOWS_COMMAND_CHARS, WINDOWS_COLLECTOR, windows_collector_compact,
        windows_install_command,
    };
    use std::io::Read;
    for gpus in [1, 4] {
        let cmd = windows_install_command(gpus);
        assert!(
            cmd.len() < MAX_WINDOWS_COMMAND_CHARS,
            "{} characters",
            cmd.len()
        );
        assert!(cmd.starts_with(
            "powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command \""
        ));
        assert!(cmd.ends_with(&format!("& $f install {gpus} 8711;exit $LASTEXITCODE\"")));
        // cmd.exe would expand %...% and treat ^ as an escape; the command has neither, and
        // its only double quotes are the two around the PowerShell command
        assert!(!cmd.contains('%') && !cmd.contains('^'));
        assert_eq!(cmd.matches('"').count(), 2);
        // the folder of a script SYSTEM runs is not writable by users who sign in, and the
        // rights are set before the script is written
        let acl = cmd.find("/inheritance:r /grant:r '*S-1-5-18:(OI)(CI)F' '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-32-545:(OI)(CI)RX' /T /C").unwrap();
        let owner = cmd
            .find("icacls $d /setowner '*S-1-5-32-544' /T /C")
            .unwrap();
        let write = cmd.find("WriteAllText($f").unwrap();
        assert!(owner < write && acl < write);
        let b64 = cmd
            .split("FromBase64String('")
            .nth(1)
            .unwrap()
            .split("')")
            .next()
            .unwrap();
        let mut script = String::new();
        flate2::read::GzDecoder::new(&unbase64(b64)[..])
            .read_to_string(&mut script)
            .unwrap();
        assert_eq!(script, windows_collector_compact());
    }
    // compacting drops comments, blank lines and indentation, and nothing else; packing writes
    // in the instance metadata endpoint (held against instance-metadata-service.md by
    // tests/facts_logs_ingestion.rs)
    let compact = windows_collector_compact();
    let imds = format!(
        "{}?api-version={}",
        gpuform::facts::logs_ingestion::IMDS_INSTANCE_URL,
        gpuform::facts::logs_ingestion::IMDS_INSTANCE_API_VERSION
    );
    let kept: Vec<String> = WINDOWS_COLLECTOR
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.replace("@@GPUFORM_IMDS_URL@@", &imds))
        .collect();
    assert!(compact.contains(&format!("$ImdsUrl = '{imds}'")));
    assert_eq!(compact.lines().collect::<Vec<_>>(), kept);
    // which is safe only without here-strings (whose lines keep their blanks)
    // (the placeholder's `'@@` is not a here-string)
    let source = WINDOWS_COLLECTOR.replace("@@", "");
    assert!(!source.contains("@'") && !source.contains("@\""));
}

#[test]
fn the_windows_collector_is_ascii_for_windows_powershell() {
    use gpuform::plan::gpu_monitoring::WINDOWS_COLLECTOR;
    // Windows PowerShell 5.1 reads a .ps1 without a byte order mark in the ANSI code page
    assert!(WINDOWS_COLLECTOR.is_ascii());
    // and the log must be UTF-8 for the agent: no Out-File/Set-Content/Add-Content (UTF-16 or
    // ANSI by default in 5.1), only the UTF-8 encoder without BOM
    for cmdlet in ["Out-File", "Set-Content", "Add-Content", ">>"] {
        assert!(!WINDOWS_COLLECTOR.contains(cmdlet), "{cmdlet}");
    }
    assert!(WINDOWS_COLLECTOR.contains("New-Object System.Text.UTF8Encoding($false)"));
    assert!(WINDOWS_COLLECTOR.contains("[System.IO.File]::AppendAllText($Path, $text, $Utf8)"));
}

/// The string literal assigned by `$Name = '...'` in the PowerShell collector.
fn ps_assignment<'a>(script: &'a str, name: &str) -> &'a str {
    let line = script
        .lines()
        .find(|l| l.starts_with(&format!("${name} = '")))
        .unwrap_or_else(|| panic!("no ${name}"));
    line.split('\'').nth(1).unwrap()
}

/// `QUERY = ("..." "...")` of the Python collector, concatenated.
fn py_query(script: &str) -> String {
    let start = script.find("QUERY = (").unwrap();
    let body = &script[start..start + script[start..].find(")\n").unwrap()];
    body.split('"').skip(1).step_by(2).collect()
}

#[test]
fn the_windows_collector_asks_nvidia_smi_what_the_linux_one_asks() {
    use gpuform::plan::gpu_monitoring::WINDOWS_COLLECTOR;
    let ps_query = ps_assignment(WINDOWS_COLLECTOR, "Query");
    assert_eq!(ps_query, py_query(COLLECTOR));
    assert_eq!(format!("--query-gpu={ps_query}"), QUERY);
    assert_eq!(
        ps_assignment(WINDOWS_COLLECTOR, "Format"),
        "csv,noheader,nounits"
    );
    assert!(COLLECTOR.contains("\"--format=csv,noheader,nounits\""));
    assert!(WINDOWS_COLLECTOR.contains("@(\"--query-gpu=$Query\", \"--format=$Format\")"));
    // the 11 fields are checked on both sides
    assert!(COLLECTOR.contains("if len(f) != 11:"));
    assert!(WINDOWS_COLLECTOR.contains("if ($f.Count -ne 11) { continue }"));
    // nvidia-smi.exe where NVIDIA's Windows drivers put it
    assert!(WINDOWS_COLLECTOR.contains(r"'System32\nvidia-smi.exe'"));
    assert!(WINDOWS_COLLECTOR.contains(r"'NVIDIA Corporation\NVSMI\nvidia-smi.exe'"));
}

/// Column -> normalised source of its value (`num(4)`, `integer(1)`, `str(2)`, or the
/// expression) in the GPU row of each collector.
fn py_gpu_row(script: &str) -> Vec<(String, String)> {
    let start = script.find("GpuIndex=integer(").unwrap();
    let block = &script[start..start + script[start..].find("Message=\"\",").unwrap() + 11];
    row_sources(block, ["num(f[", "integer(f[", "f["])
}

fn ps_gpu_row(script: &str) -> Vec<(String, String)> {
    let start = script.find("$gpu = @{").unwrap();
    let block = &script[start + 9..start + script[start..].find("\n            }").unwrap()];
    row_sources(
        block,
        ["(ConvertTo-Number $f[", "(ConvertTo-Integer $f[", "$f["],
    )
}

/// `Column = <expression>` lines -> (column, normalised source), where `prefixes` are how the
/// collector's language spells a number, an integer and a string field of the CSV row `f`.
fn row_sources(block: &str, [num, int, text]: [&str; 3]) -> Vec<(String, String)> {
    block
        .lines()
        .map(|l| l.trim().trim_end_matches(','))
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            let v = v.trim();
            let norm = if let Some(i) = v.strip_prefix(num) {
                format!("num({})", i.trim_end_matches("])"))
            } else if let Some(i) = v.strip_prefix(int) {
                format!("integer({})", i.trim_end_matches("])"))
            } else if let Some(i) = v.strip_prefix(text) {
                format!("str({})", i.trim_end_matches(']'))
            } else {
                v.to_string()
            };
            (k.trim().to_string(), norm)
        })
        .collect()
}

#[test]
fn the_windows_collector_maps_each_field_to_the_column_the_linux_one_does() {
    use gpuform::plan::gpu_monitoring::WINDOWS_COLLECTOR;
    let py = py_gpu_row(COLLECTOR);
    let ps = ps_gpu_row(WINDOWS_COLLECTOR);
    let fields = |row: &[(String, String)]| -> Vec<(String, String)> {
        let mut v: Vec<_> = row
            .iter()
            .filter(|(_, v)| v.ends_with(')') && v.contains('(') && !v.contains(' '))
            .cloned()
            .collect();
        v.sort();
        v
    };
    let py_fields = fields(&py);
    assert_eq!(py_fields.len(), 10, "{py:?}");
    assert_eq!(fields(&ps), py_fields);
    // the constant columns agree too
    let get =
        |row: &[(String, String)], k: &str| row.iter().find(|(c, _)| c == k).unwrap().1.clone();
    assert_eq!(get(&py, "Status"), "\"ok\"");
    assert_eq!(get(&ps, "Status"), "'ok'");
    assert_eq!(get(&py, "Healthy"), "True");
    assert_eq!(get(&ps, "Healthy"), "$true");
    let mut keys_py: Vec<_> = py.iter().map(|(k, _)| k.clone()).collect();
    let mut keys_ps: Vec<_> = ps.iter().map(|(k, _)| k.clone()).collect();
    keys_py.sort();
    keys_ps.sort();
    assert_eq!(keys_ps, keys_py);
    // the status words the alerts and the workbook filter on
    for status in ["'nvidia-smi-failed'", "'no-gpu'", "'gpu-missing'"] {
        assert!(WINDOWS_COLLECTOR.contains(status), "{status}");
        assert!(COLLECTOR.contains(&status.replace('\'', "\"")), "{status}");
    }
}

#[test]
fn the_windows_collector_writes_only_declared_columns() {
    use gpuform::plan::gpu_monitoring::WINDOWS_COLLECTOR;
    let declared: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
    // $Columns, the list New-Row starts every row from and checks every key against
    let start = WINDOWS_COLLECTOR.find("$Columns = @(").unwrap();
    let list = &WINDOWS_COLLECTOR[start..start + WINDOWS_COLLECTOR[start..].find("\n)").unwrap()];
    let listed: Vec<&str> = list.split('\'').skip(1).step_by(2).collect();
    assert_eq!(listed, declared);
    assert!(WINDOWS_COLLECTOR.contains(
        "if (-not $row.Contains($k)) { throw \"gpuform: $k is not a column of GpuTelemetry_CL\" }"
    ));
    // and every key the script sets is one of them: the base, the GPU row, the health row and
    // the gpu-missing rewrite
    let mut keys = Vec::new();
    for (open, close) in [
        ("$base = @{", "\n    }"),
        ("$gpu = @{", "\n            }"),
        ("New-Row $base @{", "\n            })"),
    ] {
        let at = WINDOWS_COLLECTOR
            .find(open)
            .unwrap_or_else(|| panic!("{open}"));
        let block =
            &WINDOWS_COLLECTOR[at + open.len()..at + WINDOWS_COLLECTOR[at..].find(close).unwrap()];
        for l in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
            keys.push(l.split_once('=').unwrap().0.trim().to_string());
        }
    }
    for part in WINDOWS_COLLECTOR.split("$row['").skip(1) {
        keys.push(part.split('\'').next().unwrap().to_string());
    }
    assert!(keys.len() >= 21 + 6, "{keys:?}");
    for k in &keys {
        assert!(
            declared.contains(&k.as_str()),
            "`{k}` is not a column of {TABLE}"
        );
    }
    // every column is written by the GPU row (base + GPU values)
    for c in &declared {
        assert!(keys.iter().any(|k| k == c), "{c} never written");
    }
}

#[test]
fn the_windows_health_responder_keeps_the_linux_contract() {
    use gpuform::plan::gpu_monitoring::{HEALTH_PORT, WINDOWS_COLLECTOR};
    // rich health state in a 200 answer (Healthy or Unhealthy: a non-2xx reads as Unknown to
    // the extension), stale after 5 minutes
    assert!(WINDOWS_COLLECTOR.contains("@{ ApplicationHealthState = $h[1] }"));
    assert!(COLLECTOR.contains("{\"ApplicationHealthState\": state}"));
    assert!(WINDOWS_COLLECTOR.contains("return @(200, 'Healthy')"));
    assert!(WINDOWS_COLLECTOR.contains("return @(200, 'Unhealthy')"));
    assert!(!WINDOWS_COLLECTOR.contains("503"));
    assert!(WINDOWS_COLLECTOR.contains("if ($h[1] -eq 'Healthy') { exit 0 }"));
    assert!(WINDOWS_COLLECTOR.contains("$Stale = 300"));
    assert!(COLLECTOR.contains(".total_seconds() < 300"));
    // healthy only when the last sample was
    assert!(WINDOWS_COLLECTOR.contains("if ($s.healthy -eq $true -and $fresh)"));
    // loopback only
    assert!(
        WINDOWS_COLLECTOR
            .contains("@([System.Net.IPAddress]::Loopback, [System.Net.IPAddress]::IPv6Loopback)")
    );
    assert!(!WINDOWS_COLLECTOR.contains("IPAddress]::Any"));
    assert!(!WINDOWS_COLLECTOR.contains("HttpListener"));
    // the port: the script's default and the install command's argument are the plan's
    assert!(WINDOWS_COLLECTOR.contains(&format!(
        "[Parameter(Position = 2)][int]$Port = {HEALTH_PORT}"
    )));
    // the scheduled tasks: SYSTEM, every minute and at startup; the responder without a time
    // limit and restarted
    for needle in [
        "New-ScheduledTaskPrincipal -UserId 'NT AUTHORITY\\SYSTEM' -LogonType ServiceAccount",
        "-RepetitionInterval (New-TimeSpan -Minutes 1)",
        "-Trigger @($boot, $every)",
        "-ExecutionTimeLimit ([TimeSpan]::Zero) -RestartCount 999",
        "-Argument \"$common collect $Expected\"",
        "-Argument \"$common serve $ListenPort\"",
    ] {
        assert!(WINDOWS_COLLECTOR.contains(needle), "{needle}");
    }
}

/// Brackets of a PowerShell script balance outside comments and strings ('…' with '' escapes,
/// "…" with backtick escapes and `$( … )` subexpressions): a cheap guard against a syntax error
/// nobody can run here. Returns the first problem.
fn ps_unbalanced(s: &str) -> Option<String> {
    fn code(
        b: &[u8],
        mut i: usize,
        stack: &mut Vec<u8>,
        until: Option<usize>,
    ) -> Result<usize, String> {
        while i < b.len() {
            match b[i] {
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'`' => i += 1,
                b'\'' => {
                    i += 1;
                    loop {
                        match b.get(i) {
                            None => return Err("unterminated '".into()),
                            Some(b'\'') if b.get(i + 1) == Some(&b'\'') => i += 2,
                            Some(b'\'') => break,
                            Some(_) => i += 1,
                        }
                    }
                }
                b'"' => {
                    i += 1;
                    loop {
                        match b.get(i) {
                            None => return Err("unterminated \"".into()),
                            Some(b'`') => i += 2,
                            Some(b'"') => break,
                            Some(b'$') if b.get(i + 1) == Some(&b'(') => {
                                let depth = stack.len();
                                i = code(b, i + 2, stack, Some(depth))?;
                            }
                            Some(_) => i += 1,
                        }
                    }
                }
                c @ (b'(' | b'{' | b'[') => stack.push(match c {
                    b'(' => b')',
                    b'{' => b'}',
                    _ => b']',
                }),
                c @ (b')' | b'}' | b']') => {
                    if c == b')' && until == Some(stack.len()) {
                        return Ok(i + 1);
                    }
                    match stack.pop() {
                        Some(want) if want == c => {}
                        other => {
                            return Err(format!(
                                "`{}` at byte {i} closes {:?}",
                                c as char,
                                other.map(|w| w as char)
                            ));
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(i)
    }
    let mut stack = Vec::new();
    match code(s.as_bytes(), 0, &mut stack, None) {
        Err(e) => Some(e),
        Ok(_) if !stack.is_empty() => Some(format!("unclosed {stack:?}")),
        Ok(_) => None,
    }
}

#[test]
fn the_windows_collector_brackets_and_strings_balance() {
    use gpuform::plan::gpu_monitoring::{WINDOWS_COLLECTOR, windows_collector_compact};
    assert_eq!(ps_unbalanced(WINDOWS_COLLECTOR), None);
    assert_eq!(ps_unbalanced(&windows_collector_compact()), None);
    // the checker itself catches the mistakes it is for
    assert!(ps_unbalanced("if ($a) { $b = @(1, 2 }").is_some());
    assert!(ps_unbalanced("$s = 'it''s").is_some());
    assert!(ps_unbalanced("$s = \"x $($h[0]) y\"; $t = (1)").is_none());
    assert!(ps_unbalanced("$s = \"x $($h[0] y\"").is_some());
}

/// ND MI300X v5 has no driver extension: `image: auto` must boot the HPC image with ROCm (the
/// NVIDIA HPC image would leave the GPUs without a driver), and the collector samples amd-smi.
#[test]
fn mi300x_boots_the_rocm_image_and_samples_amd_smi() {
    let c = check_file(
        Path::new("tests/fixtures/render/variants/amd-mi300x-training.yaml"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let img = &plan.compute.image;
    assert_eq!(
        (
            img.publisher.as_deref(),
            img.offer.as_deref(),
            img.sku.as_deref()
        ),
        (
            Some("microsoft-dsvm"),
            Some("ubuntu-hpc"),
            Some("2204-rocm")
        )
    );
    assert!(img.has_gpu_drivers);
    let g = plan.gpu.as_ref().expect("Linux AMD pools are monitored");
    assert_eq!((g.vendor, g.expected_gpus), ("amd", 8));
    // the same spec naming the NVIDIA HPC image is refused before render
    let text = std::fs::read_to_string("tests/fixtures/render/variants/amd-mi300x-training.yaml")
        .unwrap()
        .replace(
            "    orchestration: uniform\n",
            "    orchestration: uniform\n    image: ubuntu-hpc-22.04\n",
        );
    let c = gpuform::check::check_source(
        text,
        "mi300x.yaml",
        PathBuf::from("tests"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(
        c.diagnostics.iter().any(|d| d.rule == "image-gpu-vendor"),
        "{:#?}",
        c.diagnostics
    );
}

/// Issue 12's "done when": every GPU example (all of examples/, scale sets and dev boxes, Linux
/// and Windows, landing zone and sovereign cloud) renders the collection, the three alerts, the
/// health repair (or, on a dev box, the health probe) and the workbook.
#[test]
fn every_example_renders_collection_three_alerts_health_and_workbook() {
    let mut examples: Vec<_> = std::fs::read_dir("examples")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 7, "{examples:?}");
    for ex in &examples {
        let ex = ex.to_str().unwrap();
        let arm = rendered_arm(ex);
        // collection: a rule feeding the table, associated with the compute, and the agent on it
        let dcr = of_type(&arm, "Microsoft.Insights/dataCollectionRules");
        assert_eq!(dcr.len(), 1, "{ex}: data collection rule");
        assert_eq!(
            dcr[0]["properties"]["dataFlows"][0]["outputStream"], "Custom-GpuTelemetry_CL",
            "{ex}"
        );
        assert_delivery(&arm, ex);
        let vmss = of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets");
        let extensions: Vec<&Value> = match vmss.first() {
            Some(v) => v["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["properties"])
                .collect(),
            None => of_type(&arm, "Microsoft.Compute/virtualMachines/extensions")
                .into_iter()
                .map(|e| &e["properties"])
                .collect(),
        };
        let has = |ty: &str| extensions.iter().any(|e| e["type"] == ty);
        assert!(
            has("AzureMonitorLinuxAgent") || has("AzureMonitorWindowsAgent"),
            "{ex}: agent"
        );
        // health: the probe, and automatic repairs where there is a scale set
        assert!(
            has("ApplicationHealthLinux")
                || has("ApplicationHealthWindows")
                || vmss.first().is_some_and(|v| {
                    v["properties"]["virtualMachineProfile"]["networkProfile"]["healthProbe"]
                        .is_object()
                }),
            "{ex}: health probe"
        );
        if let Some(v) = vmss.first() {
            assert_eq!(
                v["properties"]["automaticRepairsPolicy"]["enabled"], true,
                "{ex}: repairs"
            );
        }
        let alerts: Vec<String> = of_type(&arm, "Microsoft.Insights/scheduledQueryRules")
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect();
        for kind in ["-gpu-idle", "-gpu-vram", "-gpu-faults"] {
            assert!(
                alerts.iter().any(|n| n.ends_with(kind)),
                "{ex}: {kind} in {alerts:?}"
            );
        }
        assert_eq!(
            of_type(&arm, "Microsoft.Insights/workbooks").len(),
            1,
            "{ex}: workbook"
        );
    }
}

/// Issue 19: the health endpoint answers the Application Health extension's documented rich
/// states (../shared/azure/extensions.json `healthStates`, "rich (typeHandlerVersion 2.0)": "2xx
/// with body {"ApplicationHealthState": "Healthy"} -> Healthy; 2xx with "Unhealthy" ->
/// Unhealthy; non-2xx [...] -> Unknown"). An unhealthy VM answers 200 with Unhealthy, so the
/// extension reports Unhealthy, not Unknown.
#[test]
fn the_health_endpoint_answers_the_documented_rich_states() {
    let facts: Value = serde_json::from_str(
        &std::fs::read_to_string("../shared/azure/extensions.json")
            .or_else(|_| std::fs::read_to_string("/work/shared/azure/extensions.json"))
            .unwrap(),
    )
    .unwrap();
    let rich = facts
        .to_string()
        .contains(r#"2xx with \"Unhealthy\" -> Unhealthy; non-2xx"#);
    assert!(rich, "the source no longer says what a non-2xx means");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("gpuform-gpu");
    std::fs::write(&script, COLLECTOR).unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let answer = |health: Option<&str>| -> String {
        if let Some(h) = health {
            std::fs::write(state.join("health.json"), h).unwrap();
        }
        let out = Command::new("python3")
            .arg("-c")
            .arg("import runpy, sys; m = runpy.run_path(sys.argv[1]); c, s = m['health'](); print(c, s)")
            .arg(&script)
            .env("GPUFORM_GPU_STATE_DIR", &state)
            .env("GPUFORM_NOW", "2026-12-02T16:21:00Z")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // no sample yet, a stale one, an unhealthy one: 200 Unhealthy, never a non-2xx (Unknown)
    assert_eq!(answer(None), "200 Unhealthy");
    assert_eq!(
        answer(Some(r#"{"time": "2026-12-02T16:00:00Z", "healthy": true}"#)),
        "200 Unhealthy"
    );
    assert_eq!(
        answer(Some(
            r#"{"time": "2026-12-02T16:20:00Z", "healthy": false}"#
        )),
        "200 Unhealthy"
    );
    assert_eq!(
        answer(Some(r#"{"time": "2026-12-02T16:20:00Z", "healthy": true}"#)),
        "200 Healthy"
    );
}
