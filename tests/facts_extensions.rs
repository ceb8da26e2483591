//! VM extensions and Marketplace images held against their sources, never against the code's
//! own constants.
//!
//! - Every extension in `gpuform::facts::extensions` and every image in
//!   `gpuform::facts::images` is in `extensions.json` (publisher/type for the same OS, version
//!   in the documented list; publisher/offer/sku), and the GPU driver extensions also in
//!   `driver-extensions.json` (Microsoft.HpcCompute's resource files).
//! - Every extension and every `imageReference` in every rendered template (every example,
//!   render variant and the adversarial spec) passes the same check, for the template's OS.
//!
//! The files are `../shared/azure/` when the team's reference data is beside the checkout,
//! else the dated copies in `tests/fixtures/sources/`.

mod sources;

use std::collections::BTreeMap;

use gpuform::facts::extensions::{self, Os, VmExtension};
use gpuform::facts::images;
use serde_json::Value;
use sources::{objects, read_json, render_all, source_path, str_of};

struct Known {
    /// (publisher, type) lowercase → (os, accepted major.minor versions)
    extensions: BTreeMap<(String, String), (String, Vec<String>)>,
    /// (publisher, offer, sku) lowercase
    images: Vec<(String, String, String)>,
    /// type (lowercase) → the typeHandlerVersion text of driver-extensions.json
    drivers: BTreeMap<String, String>,
}

fn known() -> Known {
    let doc = read_json(&source_path("azure/extensions.json", "extensions.json"));
    // extensions.json does not list the Linux hibernation extension: its page's dated excerpt, in
    // the same shape (tests/fixtures/sources/hibernation.json)
    let hibernation = read_json(&sources::root().join("tests/fixtures/sources/hibernation.json"));
    let mut extensions = BTreeMap::new();
    for e in doc["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .chain(hibernation["extensions"].as_array().unwrap())
    {
        let s = |k: &str| e[k].as_str().unwrap().to_ascii_lowercase();
        let accepted = e["typeHandlerVersion"]["accepted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        extensions.insert((s("publisher"), s("type")), (s("os"), accepted));
    }
    let images: Vec<_> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let s = |k: &str| i[k].as_str().unwrap().to_ascii_lowercase();
            (s("publisher"), s("offer"), s("sku"))
        })
        .collect();
    let doc = read_json(&source_path(
        "azure/driver-extensions.json",
        "driver-extensions.json",
    ));
    let mut drivers = BTreeMap::new();
    for e in doc["extensions"].as_array().unwrap() {
        // "InfiniBandDriverLinux / InfiniBandDriverWindows" names two types
        for t in e["type"].as_str().unwrap().split('/') {
            drivers.insert(
                t.trim().to_ascii_lowercase(),
                e["typeHandlerVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
    }
    assert!(extensions.len() >= 10 && images.len() >= 5 && drivers.len() >= 4);
    Known {
        extensions,
        images,
        drivers,
    }
}

fn os_name(os: Os) -> &'static str {
    match os {
        Os::Linux => "linux",
        Os::Windows => "windows",
    }
}

/// Is `publisher`/`kind`@`version` a documented extension for `os`?
fn check_extension(
    k: &Known,
    publisher: &str,
    kind: &str,
    version: &str,
    os: &str,
) -> Result<(), String> {
    let key = (publisher.to_ascii_lowercase(), kind.to_ascii_lowercase());
    let Some((ext_os, accepted)) = k.extensions.get(&key) else {
        return Err(format!("{publisher}/{kind} is not a known extension"));
    };
    if ext_os != os {
        return Err(format!(
            "{publisher}/{kind} is a {ext_os} extension, rendered on {os}"
        ));
    }
    if !accepted.iter().any(|a| a == version) {
        return Err(format!(
            "{publisher}/{kind} {version} is not a documented typeHandlerVersion (documented: {})",
            accepted.join(", ")
        ));
    }
    if key.0 == "microsoft.hpccompute" {
        let text = k
            .drivers
            .get(&key.1)
            .ok_or_else(|| format!("{kind} is not in driver-extensions.json"))?;
        let mentions = text
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .any(|w| w == version);
        if !mentions {
            return Err(format!(
                "{kind} {version}: driver-extensions.json says `{text}`"
            ));
        }
    }
    Ok(())
}

fn check_image(k: &Known, publisher: &str, offer: &str, sku: &str) -> Result<(), String> {
    let key = (
        publisher.to_ascii_lowercase(),
        offer.to_ascii_lowercase(),
        sku.to_ascii_lowercase(),
    );
    if k.images.contains(&key) {
        Ok(())
    } else {
        Err(format!(
            "image {publisher}:{offer}:{sku} is not in the sourced image list"
        ))
    }
}

#[test]
fn the_checker_refuses_what_the_sources_do_not_document() {
    let k = known();
    assert!(
        check_extension(
            &k,
            "Microsoft.HpcCompute",
            "NvidiaGpuDriverLinux",
            "1.6",
            "linux"
        )
        .is_ok()
    );
    // unknown type, wrong OS, undocumented version (Linux AMA starts at 1.9)
    assert!(
        check_extension(
            &k,
            "Microsoft.HpcCompute",
            "NvidiaGpuDriver",
            "1.6",
            "linux"
        )
        .is_err()
    );
    assert!(
        check_extension(
            &k,
            "Microsoft.HpcCompute",
            "NvidiaGpuDriverLinux",
            "1.6",
            "windows"
        )
        .is_err()
    );
    assert!(
        check_extension(
            &k,
            "Microsoft.Azure.Monitor",
            "AzureMonitorLinuxAgent",
            "1.0",
            "linux"
        )
        .is_err()
    );
    assert!(
        check_extension(
            &k,
            "Microsoft.HpcCompute",
            "NvidiaGpuDriverWindows",
            "3.0",
            "windows"
        )
        .is_err()
    );
    assert!(
        check_image(
            &k,
            "Canonical",
            "0001-com-ubuntu-server-jammy",
            "22_04-lts-gen2"
        )
        .is_ok()
    );
    // the Gen1 sku is not in the list
    assert!(check_image(&k, "Canonical", "0001-com-ubuntu-server-jammy", "22_04-lts").is_err());
}

#[test]
fn every_extension_and_image_in_the_facts_layer_is_documented() {
    let k = known();
    let all: &[VmExtension] = extensions::ALL;
    let mut problems = Vec::new();
    for e in all {
        if let Err(p) = check_extension(
            &k,
            e.publisher,
            e.kind,
            e.type_handler_version,
            os_name(e.os),
        ) {
            problems.push(p);
        }
        if e.source.assumption || e.source.what.is_empty() {
            problems.push(format!("{}: no source", e.kind));
        }
    }
    for i in images::ALL {
        if let Err(p) = check_image(&k, i.publisher, i.offer, i.sku) {
            problems.push(p);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_rendered_extension_and_image_is_documented_for_the_templates_os() {
    let k = known();
    let mut extensions_seen = 0;
    let mut images_seen = 0;
    let mut problems = Vec::new();
    for r in render_all() {
        let mut objs = Vec::new();
        objects(&r.arm, "$".into(), &mut objs);
        let windows = objs
            .iter()
            .any(|(_, m)| m.contains_key("windowsConfiguration"));
        let os = if windows { "windows" } else { "linux" };
        for (path, m) in &objs {
            if let (Some(p), Some(t), Some(v)) = (
                str_of(m, "publisher"),
                str_of(m, "type"),
                str_of(m, "typeHandlerVersion"),
            ) {
                extensions_seen += 1;
                if let Err(e) = check_extension(&k, p, t, v, os) {
                    problems.push(format!("{} {path}: {e}", r.spec.display()));
                }
            }
            if let Some(Value::Object(img)) = m.get("imageReference")
                && let (Some(p), Some(o), Some(s)) = (
                    str_of(img, "publisher"),
                    str_of(img, "offer"),
                    str_of(img, "sku"),
                )
            {
                images_seen += 1;
                if let Err(e) = check_image(&k, p, o, s) {
                    problems.push(format!("{} {path}: {e}", r.spec.display()));
                }
            }
        }
    }
    assert!(
        extensions_seen >= 40 && images_seen >= 15,
        "{extensions_seen} extensions, {images_seen} images: the scan is broken"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
