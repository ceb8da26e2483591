//! The embedded price table (`src/catalog/prices.json`) held against its source,
//! `../shared/azure/prices.json` (or its dated copy in `tests/fixtures/sources/`): every price
//! embedded is the source's, and every catalog size the source prices in a region is embedded
//! there. So a region or priority the table lacks is one no source gpuform has prices (Spot
//! outside the 2023 US snapshot's five regions, e.g. westeurope): the commands then say it is
//! missing and what to run (tests/simulate_prices.rs), never guess.

mod sources;

use serde_json::Value;

fn embedded() -> Value {
    serde_json::from_str(include_str!("../src/catalog/prices.json")).unwrap()
}

#[test]
fn the_embedded_table_is_its_sources() {
    let src = sources::read_json(&sources::source_path("azure/prices.json", "prices.json"));
    let e = embedded();
    let catalog: Vec<String> = gpuform::catalog::sizes()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    // the source's keys are armSkuName as the API spells them, one with trailing spaces
    // ("Standard_NM16ads_MA35D  "): the embedded table trims them
    let od_src: serde_json::Map<String, Value> = src["onDemandLinuxHourly"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.trim().to_string(), v.clone()))
        .collect();
    let od = e["onDemandLinux"].as_object().unwrap();
    for (size, regions) in od {
        for (region, p) in regions.as_object().unwrap() {
            assert_eq!(&od_src[size][region], p, "{size} {region}");
        }
    }
    for size in &catalog {
        for (region, p) in od_src
            .get(size)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            assert_eq!(
                &e["onDemandLinux"][size][region], p,
                "{size} in {region}: in the source, not embedded"
            );
        }
    }
    // Spot: the source's 2023 US snapshot, nothing else
    let sp_src = src["spotLinuxHourly_circa2023_US"].as_object().unwrap();
    let sp = e["spotLinux"].as_object().unwrap();
    for (size, regions) in sp {
        for (region, p) in regions.as_object().unwrap() {
            assert_eq!(&sp_src[size][region]["spot"], p, "{size} {region}");
        }
    }
    for size in &catalog {
        for (region, v) in sp_src
            .get(size)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            // (a null Spot price in the source: the size had no Spot meter there)
            assert_eq!(
                &e["spotLinux"][size][region], &v["spot"],
                "{size} in {region}"
            );
        }
    }
    assert!(
        sp.values().all(|r| r.get("westeurope").is_none()),
        "no source gpuform has prices Spot in westeurope"
    );
    // the dates the embedded table gives are its source's
    assert_eq!(
        e["_meta"]["onDemand"]["asOf"].as_str().unwrap(),
        &src["_meta"]["onDemand"]["source"]["dataGeneratedAt"]
            .as_str()
            .unwrap()[..10]
    );
}
