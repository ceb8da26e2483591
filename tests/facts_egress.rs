//! The landing zone's egress hosts (`gpuform::facts::egress`) held against their sources:
//!
//! - the driver extensions' resource lists (Azure/azhpc-extensions, verbatim copies in
//!   `../shared/azure/driver-extensions-raw/` or `tests/fixtures/sources/driver-extensions-raw/`):
//!   every host of a URL in the lists of a vendor and OS, on Linux only the entries for Ubuntu
//!   (the only Linux images gpuform renders);
//! - the AKS egress page's row for Ubuntu's package hosts and the Windows Update FQDN tag of
//!   the firewall cmdlet's example (`tests/fixtures/sources/egress-pages.md`).

mod sources;

use std::collections::BTreeSet;
use std::path::PathBuf;

use gpuform::facts::egress::{self, Vendor};
use serde_json::Value;

fn raw(file: &str) -> Value {
    let path = sources::source_path(
        &format!("azure/driver-extensions-raw/{file}"),
        &format!("driver-extensions-raw/{file}"),
    );
    sources::read_json(&path)
}

/// Whether an object names the OS versions it is for: `Some(true)` when Ubuntu is one of them.
fn ubuntu(o: &serde_json::Map<String, Value>) -> Option<bool> {
    if let Some(list) = o.get("SupportedOSVersions").and_then(Value::as_array) {
        return Some(
            list.iter()
                .filter_map(Value::as_str)
                .any(|v| v.starts_with("Ubuntu")),
        );
    }
    match o.get("Name").and_then(Value::as_str) {
        Some("Ubuntu") => Some(true),
        Some(n)
            if ["RHEL", "CentOS", "Red Hat", "SLES"]
                .iter()
                .any(|p| n.starts_with(p)) =>
        {
            Some(false)
        }
        _ => {
            // a driver version whose every driver names its OS versions, none of them Ubuntu
            // (its DKMS and LIS links go with those drivers)
            let drivers = o.get("Driver").and_then(Value::as_array)?;
            let each: Vec<Option<bool>> = drivers
                .iter()
                .filter_map(Value::as_object)
                .map(ubuntu)
                .collect();
            (!each.is_empty() && each.iter().all(|u| *u == Some(false))).then_some(false)
        }
    }
}

/// The URLs under `v`, with whether they count (`linux`: only those not in an entry for another
/// distribution).
fn urls(v: &Value, linux: bool, counts: bool, out: &mut Vec<(String, bool)>) {
    match v {
        Value::Object(o) => {
            let counts = counts && !(linux && ubuntu(o) == Some(false));
            for x in o.values() {
                urls(x, linux, counts, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| urls(x, linux, counts, out)),
        Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => {
            out.push((s.clone(), counts))
        }
        _ => {}
    }
}

/// The hosts of the lists of `dir` for one OS (`Linux` or `Windows`), and whether each URL is
/// https.
fn hosts_of(dir: &str, files: &[&str], os: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut found = Vec::new();
    for f in files {
        let doc = raw(&format!("{dir}/{f}"));
        let linux = os == "Linux";
        if let Some(meta) = doc.get("Metadata") {
            // the v2 schema: one OS per file
            if meta["OS"] != os {
                continue;
            }
            for (k, v) in doc.as_object().unwrap() {
                if k != "Metadata" {
                    urls(v, linux, true, &mut found);
                }
            }
        } else {
            // the v1 schema: OS → Version → Driver
            for entry in doc["OS"].as_array().unwrap() {
                if entry["Name"] == os {
                    urls(entry, linux, true, &mut found);
                }
            }
        }
    }
    let counted: Vec<&String> = found.iter().filter(|(_, c)| *c).map(|(u, _)| u).collect();
    let hosts = counted
        .iter()
        .map(|u| url::Url::parse(u).unwrap().host_str().unwrap().to_string())
        .collect();
    let plain = counted
        .iter()
        .filter(|u| !u.starts_with("https://"))
        .map(|u| u.to_string())
        .collect();
    (hosts, plain)
}

#[test]
fn the_driver_download_hosts_are_the_hosts_of_the_extensions_resource_lists() {
    let nvidia = [
        "resources.json",
        "Nvidia-GPU-Linux-Resources.json",
        "Nvidia-GPU-Windows-Resources.json",
    ];
    let amd = [
        "resources.json",
        "AMD-GPU-Linux-Resources.json",
        "AMD-AMA-Linux-Resources.json",
        "AMD-GPU-Windows-Resources.json",
    ];
    for (vendor, dir, files) in [
        (Vendor::Nvidia, "NvidiaGPU", &nvidia[..]),
        (Vendor::Amd, "AmdGPU", &amd[..]),
    ] {
        for (os, windows) in [("Linux", false), ("Windows", true)] {
            let (want, plain) = hosts_of(dir, files, os);
            assert!(!want.is_empty(), "{dir} {os}: no URL found in the lists");
            let have: BTreeSet<String> = egress::driver_download_hosts(vendor, windows)
                .iter()
                .map(|h| h.to_string())
                .collect();
            assert_eq!(
                have, want,
                "{dir} {os}: the facts' hosts against the lists'"
            );
            // the facts say every host is reached on 443
            assert!(plain.is_empty(), "{dir} {os}: not https: {plain:?}");
        }
    }
}

#[test]
fn the_linux_lists_other_distributions_entries_are_left_out() {
    // the walk is not vacuous: the NVIDIA Linux lists do name EPEL and LIS for RHEL/CentOS
    let mut found = Vec::new();
    urls(
        &raw("NvidiaGPU/Nvidia-GPU-Linux-Resources.json"),
        false,
        true,
        &mut found,
    );
    let all: BTreeSet<String> = found
        .iter()
        .map(|(u, _)| url::Url::parse(u).unwrap().host_str().unwrap().to_string())
        .collect();
    assert!(all.contains("dl.fedoraproject.org"), "{all:?}");
    let (ubuntu_only, _) = hosts_of("NvidiaGPU", &["Nvidia-GPU-Linux-Resources.json"], "Linux");
    assert!(!ubuntu_only.contains("dl.fedoraproject.org"));
    assert!(!ubuntu_only.contains("aka.ms"));
    assert!(ubuntu_only.contains("developer.download.nvidia.com"));
}

#[test]
fn the_ubuntu_package_hosts_are_the_aks_pages_row() {
    let path: PathBuf = sources::root().join("tests/fixtures/sources/egress-pages.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("| **`") && l.contains("ubuntu.com"))
        .expect("the page's Ubuntu row");
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let hosts: BTreeSet<&str> = cells[1]
        .split('`')
        .filter(|s| s.ends_with(".com"))
        .collect();
    let have: BTreeSet<&str> = egress::UBUNTU_PACKAGE_HOSTS.iter().copied().collect();
    assert_eq!(have, hosts);
    let port = cells[2]
        .trim_matches(|c| c == '*' || c == '`')
        .to_ascii_lowercase();
    assert_eq!(egress::UBUNTU_PACKAGE_PORT, port);
}

#[test]
fn the_windows_update_tag_is_spelled_as_the_cmdlets_example() {
    let text =
        std::fs::read_to_string(sources::root().join("tests/fixtures/sources/egress-pages.md"))
            .unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("New-AzFirewallApplicationRule") && l.contains("-FqdnTag"))
        .expect("the example");
    let tag = line
        .split("-FqdnTag ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    assert_eq!(egress::WINDOWS_UPDATE_TAG, tag);
}
