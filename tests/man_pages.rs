//! `gpuform man` (issue 24, item 6): a page for every command and subcommand `--help` lists, every
//! page a page names exists, no gpuform-help(1), and ENVIRONMENT and EXIT STATUS sections.

use std::collections::BTreeSet;

fn gpuform(args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("gpuform")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_page_named_exists_and_has_environment_and_exit_status() {
    let list = gpuform(&["man", "--list"]);
    let pages: BTreeSet<String> = list.lines().map(str::to_string).collect();
    // every command --help lists has a page
    for cmd in gpuform::cli::command().get_subcommands() {
        assert!(
            pages.contains(&format!("gpuform-{}", cmd.get_name())),
            "no page for {}",
            cmd.get_name()
        );
    }
    assert!(pages.contains("gpuform-quota-request"), "{pages:?}");
    assert!(!pages.iter().any(|p| p.ends_with("-help")), "{pages:?}");
    let named = regex::Regex::new(r"(gpuform(?:\\-[a-z]+)*)\((\d)\)").unwrap();
    for page in &pages {
        let text = if page == "gpuform" {
            gpuform(&["man"])
        } else {
            gpuform(&["man", page.trim_start_matches("gpuform-")])
        };
        assert!(text.contains(".SH ENVIRONMENT"), "{page}");
        assert!(text.contains(".SH \"EXIT STATUS\""), "{page}");
        assert!(text.contains("AZURE_CLIENT_ID"), "{page}");
        for c in named.captures_iter(&text) {
            let name = c[1].replace("\\-", "-");
            assert!(
                pages.contains(&name),
                "{page} names {name}(1), which has no page"
            );
        }
    }
    // the subcommand's own flags are in its page, and both spellings reach it
    let q = gpuform(&["man", "quota", "request"]);
    assert_eq!(q, gpuform(&["man", "quota-request"]));
    for flag in ["\\-\\-submit", "\\-\\-wait", "\\-\\-dry\\-run"] {
        assert!(q.contains(flag), "{flag} not in gpuform-quota-request(1)");
    }
    assert!(q.contains("you answered no"), "{q}");
    let top = gpuform(&["man"]);
    assert!(!top.contains("gpuform\\-help"), "{top}");
}
