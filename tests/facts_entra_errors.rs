//! Entra's error lookup link (`gpuform::facts::identity::error_lookup`) held against the page
//! that gives it (tests/fixtures/sources/entra-error-lookup.md, a verbatim excerpt of Learn's
//! "Microsoft Entra authentication and authorization error codes").

use gpuform::facts::identity;

fn excerpt() -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sources/entra-error-lookup.md");
    std::fs::read_to_string(p).unwrap()
}

/// The targets of the excerpt's Markdown links, `[text](target)`.
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_lookup_page_and_a_codes_link_are_the_pages() {
    let text = excerpt();
    let links = links(&text);
    assert!(
        links.iter().any(|l| l == identity::ERROR_LOOKUP),
        "{links:?}"
    );
    // the page's example: AADSTS50058 links to …/error?code=50058
    let direct = links
        .iter()
        .find(|l| l.contains("?code="))
        .expect("the page's direct link");
    let code = direct.rsplit('=').next().unwrap();
    assert!(text.contains(&format!("\"AADSTS{code}\"")));
    assert_eq!(&identity::error_lookup(&format!("AADSTS{code}")), direct);
}
