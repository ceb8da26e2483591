//! Running the collector scripts in tests: a fresh directory per call with a `bin/` for fake
//! tools, an executable writer, and the recorded tool output under `tests/fixtures/gpu`.
//! Included with `#[path]` by the tests that run the scripts.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A new empty directory `gpuform-{kind}-{tag}-{pid}-{n}` with a `bin/` inside: one per call,
/// since two tests may replay the same case at the same time.
pub fn tmpdir(kind: &str, tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("gpuform-{kind}-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("bin")).unwrap();
    d
}

/// Write `text` to `path` and make it executable.
pub fn write_exec(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Absolute path of a recorded tool output under `tests/fixtures/gpu`.
pub fn fixture(name: &str) -> String {
    Path::new("tests/fixtures/gpu")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}
