//! The region and driver facts issue 37 added, against their sources (never against the code's
//! own constants): the region coordinates "nearest" is measured with (Resource Manager's list of
//! locations, a dated copy), and the driver versions a pin may name (the NVIDIA extension's
//! resource list).

mod sources;

use serde_json::Value;

#[test]
fn region_coordinates_are_the_sources() {
    let v =
        sources::read_json(&sources::root().join("tests/fixtures/sources/region-coordinates.json"));
    let listed: Vec<(String, f64, f64)> = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let f = |k: &str| r[k].as_str().unwrap().parse::<f64>().unwrap();
            (
                r["name"].as_str().unwrap().to_string(),
                f("latitude"),
                f("longitude"),
            )
        })
        .collect();
    // every coordinate gpuform has is the source's
    for (name, lat, lon) in gpuform::facts::regions::COORDINATES {
        let (_, la, lo) = listed
            .iter()
            .find(|(n, ..)| n == name)
            .unwrap_or_else(|| panic!("{name} is not in the source"));
        assert!((la - lat).abs() < 1e-9 && (lo - lon).abs() < 1e-9, "{name}");
    }
    // and every region gpuform knows that the source places has them (the source's canary and
    // logical entries are not regions a spec names)
    for r in gpuform::catalog::regions::REGIONS {
        if listed.iter().any(|(n, ..)| n == r) {
            assert!(gpuform::facts::regions::coordinates(r).is_some(), "{r}");
        }
    }
}

/// The Ubuntu 22.x CUDA and GRID lists of the extension's resource list.
fn ubuntu_2204_lists() -> (Vec<String>, Vec<String>) {
    let excerpt = sources::read_json(
        &sources::root().join("tests/fixtures/sources/nvidia-linux-driver-versions.json"),
    );
    let list = |v: &Value, kind: &str| -> Vec<String> {
        v["Driver"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["Type"] == kind)
            .unwrap()["Versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let (cuda, grid) = (list(&excerpt, "CUDA"), list(&excerpt, "GRID"));
    // the excerpt is the raw file's, where the team's copy of it is beside the checkout
    let raw =
        sources::root().join("../shared/azure/driver-extensions-raw/NvidiaGPU/resources.json");
    if raw.is_file() {
        let v = sources::read_json(&raw);
        let ubuntu = v["OS"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["Name"] == "Linux")
            .unwrap()["Version"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["Name"] == "Ubuntu" && x["Version"] == "22.x")
            .unwrap()
            .clone();
        let nums = |kind: &str| -> Vec<String> {
            ubuntu["Driver"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["Type"] == kind)
                .unwrap()["Version"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["Num"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(cuda, nums("CUDA"));
        assert_eq!(grid, nums("GRID"));
    }
    (cuda, grid)
}

#[test]
fn driver_pins_are_versions_the_extension_lists() {
    let (cuda, grid) = ubuntu_2204_lists();
    for v in gpuform::catalog::drivers::LINUX_GRID_PINS {
        assert!(grid.iter().any(|g| g == v), "GRID {v} not in {grid:?}");
        // none of the 550 branch: GRID 17.x, whose 17.5 broke CUDA on A10 vGPU
        assert!(!v.starts_with("550."), "{v}");
    }
    for v in gpuform::catalog::drivers::LINUX_CUDA_PINS {
        assert!(cuda.iter().any(|c| c == v), "CUDA {v} not in {cuda:?}");
    }
}
