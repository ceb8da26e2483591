//! The capacity codes of `src/facts/capacity.rs` against the dated excerpts of Microsoft's pages
//! in `tests/fixtures/sources/capacity-errors.json`: every code has its page, and the pages'
//! words back where failover tries next.

use gpuform::facts::capacity::{CODES, Step};
use serde_json::Value;

#[test]
fn every_capacity_code_is_sourced_and_its_steps_are_in_the_source() {
    let src: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/sources/capacity-errors.json").unwrap(),
    )
    .unwrap();
    let codes = src["codes"].as_array().unwrap();
    assert_eq!(codes.len(), CODES.len());
    for c in CODES {
        let s = codes
            .iter()
            .find(|s| s["code"] == c.code)
            .unwrap_or_else(|| panic!("{} is not in the source", c.code));
        assert_eq!(s["url"], c.source.what, "{}", c.code);
        assert_eq!(src["read"], c.source.read, "{}", c.code);
        let quote = s["quote"].as_str().unwrap().to_lowercase();
        for step in c.retry_in {
            let backed = match step {
                Step::Zone => quote.contains("zone") || quote.contains("constraints"),
                Step::Size => quote.contains("size") || quote.contains("constraints"),
                Step::Region => {
                    quote.contains("region")
                        || quote.contains("location")
                        || quote.contains("constraints")
                }
            };
            assert!(backed, "{}: {:?} is not in its source", c.code, step);
        }
    }
}

/// The refusal of a same-named resource in another region (`InvalidResourceLocation`): the code
/// and message template are the reports' own words (every report, filled in with its values,
/// is the template), and the source names each report.
#[test]
fn invalid_resource_location_is_the_reported_answer() {
    use gpuform::facts::capacity::{
        INVALID_RESOURCE_LOCATION, INVALID_RESOURCE_LOCATION_CODE,
        INVALID_RESOURCE_LOCATION_MESSAGE, LOCATION_IMMUTABLE,
    };
    let src: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/sources/invalid-resource-location.json").unwrap(),
    )
    .unwrap();
    assert_eq!(src["code"], INVALID_RESOURCE_LOCATION_CODE);
    assert_eq!(src["template"], INVALID_RESOURCE_LOCATION_MESSAGE);
    assert_eq!(src["read"], INVALID_RESOURCE_LOCATION.read);
    assert!(!LOCATION_IMMUTABLE.assumption && !INVALID_RESOURCE_LOCATION.assumption);
    let reports = src["reports"].as_array().unwrap();
    assert!(reports.len() >= 2);
    for r in reports {
        let url = r["url"].as_str().unwrap();
        assert!(INVALID_RESOURCE_LOCATION.what.contains(url), "{url}");
        assert!(
            LOCATION_IMMUTABLE
                .what
                .contains(url.trim_start_matches("https://")),
            "{url}"
        );
        assert_eq!(r["body"]["error"]["code"], src["code"], "{url}");
        let v = &r["values"];
        let filled = INVALID_RESOURCE_LOCATION_MESSAGE
            .replace("{name}", v["name"].as_str().unwrap())
            .replace("{there}", v["there"].as_str().unwrap())
            .replace("{group}", v["group"].as_str().unwrap())
            .replace("{here}", v["here"].as_str().unwrap());
        assert_eq!(r["body"]["error"]["message"], filled, "{url}");
    }
}
