//! Private DNS zone names (issue 19): gpuform's zone facts and every zone name the rendered
//! templates derive from `environment()`, evaluated with each cloud's suffixes (azure-cli's
//! cloud table, `tests/fixtures/sources/clouds.json`), are Learn's recommended names for that
//! cloud (`tests/fixtures/sources/private-dns-zones.json`), never the code's own table.

use std::path::{Path, PathBuf};

use gpuform::catalog::prices::PriceTable;
use gpuform::emit;
use gpuform::facts::clouds::Cloud;
use gpuform::facts::private_dns::{ZoneOf, zone_name};
use gpuform::spec::Policy;
use regex::Regex;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap()
}

/// Learn's zone names of `cloud` (the third column of its rows).
fn learn_zones(cloud: Cloud) -> Vec<String> {
    read("tests/fixtures/sources/private-dns-zones.json")["rows"][cloud.name()]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_str()
                .unwrap()
                .split('|')
                .nth(3)
                .unwrap()
                .trim()
                .to_string()
        })
        .collect()
}

/// `environment().suffixes.<name>` in `cloud`, from azure-cli's cloud table.
fn suffix(cloud: Cloud, name: &str) -> String {
    let c = &read("tests/fixtures/sources/clouds.json")["clouds"][cloud.name()];
    match name {
        "keyvaultDns" => c["keyvaultDns"].as_str().unwrap().to_string(),
        "storage" => c["storage"].as_str().unwrap().to_string(),
        other => panic!("no source for environment().suffixes.{other}"),
    }
}

fn specs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["examples", "tests/fixtures/render/variants"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                v.push(p);
            }
        }
    }
    v.push(root().join("tests/fixtures/render/adversarial.yaml"));
    v.sort();
    v
}

fn render(path: &Path) -> (String, String) {
    let checked = gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded());
    assert!(!checked.has_errors(), "{}", path.display());
    let files = emit::render(&checked).unwrap().files;
    let get = |n: &str| {
        files
            .iter()
            .find(|(f, _)| *f == n)
            .map(|(_, t)| t.clone())
            .unwrap()
    };
    (get(emit::ARM_TEMPLATE), get(emit::MAIN_BICEP))
}

/// Every derived zone name in a rendered text, evaluated in `cloud`; the text with them removed.
fn derived(text: &str, cloud: Cloud) -> (Vec<String>, String) {
    // ARM: format('privatelink…{0}', replace(environment().suffixes.X, 'a', 'b')) or
    //      format('privatelink…{0}', environment().suffixes.X)
    // Bicep: 'privatelink…${replace(environment().suffixes.X, 'a', 'b')}' or '…${environment().suffixes.X}'
    let arm = Regex::new(
        r"format\('(privatelink[^'{]*)\{0\}', (?:replace\(environment\(\)\.suffixes\.(\w+), '([^']*)', '([^']*)'\)|environment\(\)\.suffixes\.(\w+))\)",
    )
    .unwrap();
    let bicep = Regex::new(
        r"'(privatelink[^'$]*)\$\{(?:replace\(environment\(\)\.suffixes\.(\w+), '([^']*)', '([^']*)'\)|environment\(\)\.suffixes\.(\w+))\}'",
    )
    .unwrap();
    let mut names = Vec::new();
    let mut rest = text.to_string();
    for re in [&arm, &bicep] {
        for c in re.captures_iter(text) {
            let prefix = &c[1];
            let name = match (c.get(2), c.get(5)) {
                (Some(s), _) => format!(
                    "{prefix}{}",
                    suffix(cloud, s.as_str()).replacen(&c[3], &c[4], 1)
                ),
                (None, Some(s)) => format!("{prefix}{}", suffix(cloud, s.as_str())),
                _ => unreachable!(),
            };
            names.push(name);
        }
        rest = re.replace_all(&rest, "").into_owned();
    }
    (names, rest)
}

#[test]
fn facts_are_learns_names_in_every_cloud() {
    for cloud in Cloud::ALL {
        let learn = learn_zones(cloud);
        for of in [ZoneOf::KeyVault, ZoneOf::StorageQueue, ZoneOf::StorageBlob] {
            assert!(
                learn.iter().any(|z| z == zone_name(of, cloud)),
                "{cloud} {of:?}: {} is not in Learn's table {learn:?}",
                zone_name(of, cloud)
            );
        }
    }
}

#[test]
fn every_rendered_zone_name_is_learns_for_each_cloud() {
    let mut seen = 0;
    for p in specs() {
        let (arm, bicep) = render(&p);
        for cloud in Cloud::ALL {
            let learn = learn_zones(cloud);
            for (what, text) in [("azuredeploy.json", &arm), ("main.bicep", &bicep)] {
                // comments are not names
                let text: String = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let (names, rest) = derived(&text, cloud);
                seen += names.len();
                for n in &names {
                    assert!(
                        learn.contains(n),
                        "{} {what} in {cloud}: zone {n} is not in Learn's table {learn:?}",
                        p.display()
                    );
                }
                // anything else naming a privatelink zone is a literal (a zone id the spec
                // gives): it must be one of Learn's names in some cloud
                for m in Regex::new(r"privatelink[A-Za-z0-9.\-]*")
                    .unwrap()
                    .find_iter(&rest)
                {
                    let lit = m.as_str().trim_end_matches('.');
                    assert!(
                        Cloud::ALL
                            .iter()
                            .any(|c| learn_zones(*c).iter().any(|z| z == lit)),
                        "{} {what}: {lit} is neither derived nor one of Learn's names",
                        p.display()
                    );
                }
            }
        }
    }
    assert!(seen > 0, "no rendered zone name was found");
}

#[test]
fn the_evaluator_catches_a_wrong_name() {
    let bad = "\"name\": \"[format('privatelink.vault{0}', environment().suffixes.keyvaultDns)]\"";
    let (names, _) = derived(bad, Cloud::AzureCloud);
    assert_eq!(names, vec!["privatelink.vault.vault.azure.net".to_string()]);
    assert!(!learn_zones(Cloud::AzureCloud).contains(&names[0]));
}
