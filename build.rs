//! Build metadata for `gpuform --version`: the git commit the binary was built from.
//!
//! From a git checkout: `git rev-parse --short=12 HEAD` (plus `-dirty` when tracked files have
//! changes). From a source archive without `.git` (a release tarball, `cargo install` of a
//! packaged crate): `GPUFORM_COMMIT` if the packager sets it, else `unknown`. Never fails the
//! build: git missing or failing only means `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=GPUFORM_COMMIT");
    // rebuild when HEAD moves (a commit, a checkout); harmless when .git is absent
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head_ref}");
        }
        println!("cargo:rerun-if-changed={dir}/index");
    }
    let commit = std::env::var("GPUFORM_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            let hash = git(&["rev-parse", "--short=12", "HEAD"])?;
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            Some(if dirty { format!("{hash}-dirty") } else { hash })
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GPUFORM_COMMIT={commit}");
}
