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
