//! The one way gpuform reads a file it was given: specs, `--policy`, `--usages`, `--skus`,
//! `--prices`, `--baseline`, the price cache, a spec's `cloudInit` and the files `render --check`
//! compares.
//!
//! A file named in a pull request (or a path inside a spec) may be a FIFO that never reaches its
//! end, a device such as `/dev/zero` that never ends at all, or a kernel pseudo-file such as
//! `/proc/self/environ` that reports a size of 0 and holds the process's secrets. So:
//! - symlinks are followed and the *target* must be a regular file (checked before opening and
//!   again on the opened descriptor, so a swap between the two cannot slip a FIFO in);
//! - files under `/proc`, `/sys` and `/dev` are refused whatever they claim to be;
//! - the open is non-blocking (`O_NONBLOCK`), so opening a FIFO that lost the race returns at
//!   once instead of waiting for a writer;
//! - at most `limit + 1` bytes are read, so a file that grows (or lies about its size) is
//!   refused as too large rather than read until memory runs out.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The path does not exist (or a symlink points nowhere).
    NotFound { path: PathBuf },
    /// A directory, FIFO, socket, device or kernel pseudo-file.
    NotRegular { path: PathBuf, kind: &'static str },
    /// More than `limit` bytes.
    TooLarge {
        path: PathBuf,
        len: Option<u64>,
        limit: u64,
    },
    /// Not UTF-8 text (only from [`read_text`]); `offset` of the first bad byte.
    NotUtf8 { path: PathBuf, offset: usize },
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ReadError {
    pub fn path(&self) -> &Path {
        match self {
            ReadError::NotFound { path }
            | ReadError::NotRegular { path, .. }
            | ReadError::TooLarge { path, .. }
            | ReadError::NotUtf8 { path, .. }
            | ReadError::Io { path, .. } => path,
        }
    }

    /// What the user can do about it.
    pub fn help(&self) -> &'static str {
        match self {
            ReadError::NotFound { .. } => "check the path",
            ReadError::NotRegular { .. } => "give the path of an ordinary file",
            ReadError::TooLarge { .. } => "check the path: this file is far larger than expected",
            ReadError::NotUtf8 { .. } => "save the file as UTF-8 text",
            ReadError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                "check the file's permissions"
            }
            ReadError::Io { .. } => "check the path and that the file is readable",
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound { path } => write!(f, "{} does not exist", path.display()),
            ReadError::NotRegular { path, kind } => {
                write!(f, "{} is {kind}, not a regular file", path.display())
            }
            ReadError::TooLarge {
                path,
                len: Some(len),
                limit,
            } => write!(
                f,
                "{} has {len} bytes; at most {limit} are read",
                path.display()
            ),
            ReadError::TooLarge {
                path,
                len: None,
                limit,
            } => write!(
                f,
                "{} holds more than {limit} bytes, the most that are read",
                path.display()
            ),
            ReadError::NotUtf8 { path, offset } => write!(
                f,
                "{} is not UTF-8 text (invalid byte at offset {offset})",
                path.display()
            ),
            ReadError::Io { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// Paths whose files are the kernel's or devices, whatever their type says.
const PSEUDO_ROOTS: &[&str] = &["/proc", "/sys", "/dev"];

/// Under those roots, the tmpfs for shared memory holds ordinary files (people and CI jobs keep
/// workspaces there: it is RAM): its regular files are read like any other.
const TMPFS_UNDER_PSEUDO: &[&str] = &["/dev/shm"];

fn kind_of(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

fn classify(path: &Path, e: std::io::Error) -> ReadError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ReadError::NotFound {
            path: path.to_path_buf(),
        }
    } else {
        ReadError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

/// Is `path` (after following symlinks) a regular file outside the kernel's pseudo-filesystems?
/// The check [`read_bounded`] makes before it opens the file.
pub fn check_regular(path: &Path) -> Result<std::fs::Metadata, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| classify(path, e))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&meta.file_type()),
        });
    }
    if !on_disk_filesystem(path)
        && let Ok(real) = std::fs::canonicalize(path)
        && PSEUDO_ROOTS.iter().any(|r| real.starts_with(r))
        && !TMPFS_UNDER_PSEUDO.iter().any(|r| real.starts_with(r))
    {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind: "a kernel or device file",
        });
    }
    Ok(meta)
}

/// Filesystems that hold files on a disk or a file server (`f_type` of statfs(2), from the
/// kernel's include/uapi/linux/magic.h; ZFS's from OpenZFS, which is not in the kernel):
/// ext2/3/4, XFS, Btrfs, overlayfs (containers), F2FS, ZFS, NFS, SMB, 9p (VM shares),
/// SquashFS, ISO 9660, FAT, exFAT, NTFS. The kernel's pseudo-filesystems (proc,
/// sysfs, debugfs, cgroup, …) and tmpfs (`/dev` is one, so is `/dev/shm`) are not among them.
#[cfg(target_os = "linux")]
const DISK_FILESYSTEMS: &[u64] = &[
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x794C_7630,
    0xF2F5_2010,
    0x2FC1_2FC1,
    0x6969,
    0xFF53_4D42,
    0xFE53_4D42,
    0x0102_1997,
    0x7371_7368,
    0x9660,
    0x4D44,
    0x2011_BAB0,
    0x5346_544E,
];

/// Whether the file `path` leads to sits on a disk filesystem ([`DISK_FILESYSTEMS`]): no
/// kernel or device file does, so [`check_regular`] need not resolve its real path (one
/// statfs(2) instead of a readlink(2) per component of the path, for every spec a directory
/// holds; issue 41). Anything else, or any doubt, is `false`: the real path decides.
fn on_disk_filesystem(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `c` is a NUL-terminated path that outlives the call; `st` is a plain struct
        // the call fills (all-zero is a valid value of it)
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
            return false;
        }
        #[allow(clippy::unnecessary_cast)]
        let kind = st.f_type as u64;
        DISK_FILESYSTEMS.contains(&kind)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        false
    }
}

/// Read at most `limit` bytes of the regular file at `path` (see the module comment).
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = check_regular(path)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            len: Some(meta.len()),
            limit,
        });
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = opts.open(path).map_err(|e| classify(path, e))?;
    // the path may have been swapped between the check and the open: check what was opened
    let opened = file.metadata().map_err(|e| classify(path, e))?;
    if !opened.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&opened.file_type()),
        });
    }
    let mut buf = Vec::with_capacity(opened.len().min(limit) as usize + 1);
    file.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| classify(path, e))?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            len: None,
            limit,
        });
    }
    Ok(buf)
}

/// [`read_bounded`], as UTF-8 text with a leading byte-order mark removed.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_bounded(path, limit)?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(strip_bom(text)),
        Err(e) => Err(ReadError::NotUtf8 {
            path: path.to_path_buf(),
            offset: e.utf8_error().valid_up_to(),
        }),
    }
}

/// Text without a leading UTF-8 byte-order mark (editors on Windows write one; every reader
/// accepts it the same way).
pub fn strip_bom(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// Why a file a spec names (`compute.cloudInit`) may not be read.
#[derive(Debug)]
pub enum ConfinedError {
    /// The path leads outside the directory tree it must stay in.
    Outside {
        path: String,
        root: PathBuf,
    },
    Read(ReadError),
}

impl fmt::Display for ConfinedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfinedError::Outside { path, root } => write!(
                f,
                "`{path}` leads outside {} (the spec's repository or directory)",
                root.display()
            ),
            ConfinedError::Read(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConfinedError {}

/// The tree the files a spec names must stay in: the git work tree holding `spec_dir` (the
/// nearest ancestor with a `.git` entry), else `spec_dir` itself; canonical.
///
/// Found once per directory and process: a directory of specs with `cloudInit` files asked it
/// for every spec (a readlink(2) per component and a stat(2) per ancestor; issue 41). A cached
/// root stays safe if the directory changes under the run: the file's own real path, resolved
/// at each read, must still lie inside it.
pub fn confinement_root(spec_dir: &Path) -> std::io::Result<PathBuf> {
    // 1 MiB of paths: thousands of spec directories
    static ROOTS: Kept<PathBuf, PathBuf> = Kept::new(1024 * 1024);
    if let Some(root) = ROOTS.get(spec_dir) {
        return Ok(root);
    }
    let root = find_confinement_root(spec_dir)?;
    let bytes = spec_dir.as_os_str().len() + root.as_os_str().len();
    ROOTS.keep(spec_dir.to_path_buf(), root.clone(), bytes);
    Ok(root)
}

/// Values kept for the rest of the process, each under the key it was computed from, up to a
/// budget of bytes (what the caller says each entry holds); past it, nothing more is kept and
/// the caller computes again. For what depends on its key alone during one run: a directory's
/// confinement root, a file read once confined, the size of custom data assembled once.
pub(crate) struct Kept<K, V> {
    map: std::sync::OnceLock<std::sync::Mutex<(std::collections::HashMap<K, V>, usize)>>,
    budget: usize,
}

impl<K: std::hash::Hash + Eq, V: Clone> Kept<K, V> {
    pub(crate) const fn new(budget: usize) -> Self {
        Self {
            map: std::sync::OnceLock::new(),
            budget,
        }
    }

    /// The value kept under `key`.
    pub(crate) fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let map = self.map.get()?.lock().ok()?;
        map.0.get(key).cloned()
    }

    /// Keep `value` under `key`, counted as `bytes` against the budget (not kept past it).
    pub(crate) fn keep(&self, key: K, value: V, bytes: usize) {
        let map = self.map.get_or_init(Default::default);
        if let Ok(mut m) = map.lock()
            && m.1 + bytes <= self.budget
        {
            m.1 += bytes;
            m.0.insert(key, value);
        }
    }
}

fn find_confinement_root(spec_dir: &Path) -> std::io::Result<PathBuf> {
    let dir = if spec_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        spec_dir
    };
    let dir = std::fs::canonicalize(dir)?;
    Ok(dir
        .ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(&dir)
        .to_path_buf())
}

/// Read `rel` (relative to `spec_dir`, as a spec writes it) only if, with every symlink and `..`
/// resolved, it is a regular file inside [`confinement_root`]; at most `limit` bytes.
///
/// A spec comes from a pull request; CI renders it with secrets in its environment. Without this,
/// `cloudInit: /proc/self/environ` or `../../.ssh/id_rsa` would be embedded in custom data and
/// printed by `render --check`.
///
/// What it read is kept for the rest of the process, by spec directory, path as written and
/// limit (up to [`CONFINED_CACHE_BYTES`] in all): a platform's specs share a few cloud-init files,
/// and `validate` and `render` read the file of every spec that names it (resolving its real
/// path, a readlink(2) per component, and reading it were ~2 % of `validate`'s CPU on 1,000
/// specs; issue 41). A file read again comes from that copy, which was confined when it was
/// read, so a path swapped during the run cannot lead outside; an error is not kept.
pub fn read_confined(spec_dir: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, ConfinedError> {
    static READ: Kept<(PathBuf, String, u64), Vec<u8>> = Kept::new(CONFINED_CACHE_BYTES);
    let key = (spec_dir.to_path_buf(), rel.to_string(), limit);
    if let Some(bytes) = READ.get(&key) {
        return Ok(bytes);
    }
    let bytes = read_confined_now(spec_dir, rel, limit)?;
    READ.keep(key, bytes.clone(), bytes.len());
    Ok(bytes)
}

/// The most [`read_confined`] keeps of the files it read (a spec's file is at most a custom
/// data's 64 KiB; a repository's distinct cloud-init files come to far less).
const CONFINED_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// [`read_confined`]'s read.
fn read_confined_now(spec_dir: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, ConfinedError> {
    let io = |e: std::io::Error, path: PathBuf| {
        ConfinedError::Read(if e.kind() == std::io::ErrorKind::NotFound {
            ReadError::NotFound { path }
        } else {
            ReadError::Io { path, source: e }
        })
    };
    let root = confinement_root(spec_dir).map_err(|e| io(e, spec_dir.to_path_buf()))?;
    let joined = spec_dir.join(rel);
    let real = match std::fs::canonicalize(&joined) {
        Ok(r) => r,
        // a missing file: say so, unless the path is plainly outside (no probing around)
        Err(e) => {
            let lexical = Path::new(rel).is_absolute()
                || Path::new(rel)
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir));
            if lexical && !normalize(&root, spec_dir, rel).starts_with(&root) {
                return Err(ConfinedError::Outside {
                    path: rel.to_string(),
                    root,
                });
            }
            return Err(io(e, joined));
        }
    };
    if !real.starts_with(&root) {
        return Err(ConfinedError::Outside {
            path: rel.to_string(),
            root,
        });
    }
    read_bounded(&real, limit).map_err(ConfinedError::Read)
}

/// `spec_dir/rel` with `.` and `..` resolved lexically against the canonical spec directory.
fn normalize(root: &Path, spec_dir: &Path, rel: &str) -> PathBuf {
    let base = std::fs::canonicalize(if spec_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        spec_dir
    })
    .unwrap_or_else(|_| root.to_path_buf());
    let mut out = base;
    for c in Path::new(rel).components() {
        match c {
            std::path::Component::RootDir | std::path::Component::Prefix(_) => {
                out = PathBuf::from(c.as_os_str())
            }
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            std::path::Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// Limits per kind of file: far above any real one, far below what exhausts memory.
pub mod limits {
    /// A policy file.
    pub const POLICY: u64 = 1024 * 1024;
    /// `--usages` (the Usages list of one region).
    pub const USAGES: u64 = 16 * 1024 * 1024;
    /// `--skus` (`az vm list-skus --all` for one region is a few tens of MB).
    pub const SKUS: u64 = 256 * 1024 * 1024;
    /// `--prices` and the price cache (Retail Prices API pages for one region).
    pub const PRICES: u64 = 128 * 1024 * 1024;
    /// `--baseline` (a `cost --format json` report).
    pub const BASELINE: u64 = 16 * 1024 * 1024;
    /// A file `render --check` compares with what it would write.
    pub const RENDERED: u64 = 64 * 1024 * 1024;
    /// `simulate --trace` / `cost --trace`: a CSV of one row per minute (a year is ~20 MB) or an
    /// `az monitor metrics list` export.
    pub const TRACE: u64 = 256 * 1024 * 1024;
    /// `gpu-report --telemetry`: a Log Analytics query result.
    pub const EXPORT: u64 = 256 * 1024 * 1024;
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.yaml");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let start = std::time::Instant::now();
        let e = read_bounded(&fifo, 100).unwrap_err();
        assert!(matches!(e, ReadError::NotRegular { .. }), "{e}");
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        // a symlink named like a spec pointing at a device
        let link = dir.path().join("x.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = read_bounded(&link, 100).unwrap_err();
        assert!(e.to_string().contains("device"), "{e}");
        for p in ["/proc/self/environ", "/proc/self/status", "/dev/null"] {
            let e = read_bounded(Path::new(p), 1 << 20).unwrap_err();
            assert!(matches!(e, ReadError::NotRegular { .. }), "{p}: {e}");
        }
        let e = read_bounded(dir.path(), 100).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        // a regular file on the shared-memory tmpfs is an ordinary file; a FIFO there is not
        if Path::new("/dev/shm").is_dir()
            && let Ok(shm) = tempfile::tempdir_in("/dev/shm")
        {
            let f = shm.path().join("spec.yaml");
            std::fs::write(&f, "apiVersion: x\n").unwrap();
            assert_eq!(read_bounded(&f, 100).unwrap(), b"apiVersion: x\n");
            let fifo = shm.path().join("pipe.yaml");
            if std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success())
            {
                assert!(read_bounded(&fifo, 100).is_err());
            }
        }
        let e = read_bounded(&dir.path().join("nope"), 100).unwrap_err();
        assert!(matches!(e, ReadError::NotFound { .. }));
    }

    /// The kernel's and the devices' files are never taken for files on a disk (their real path
    /// decides), an ordinary file on the disk this test runs from is, and so is a file on the
    /// shared-memory tmpfs only through its real path (tmpfs is not a disk filesystem).
    #[test]
    fn only_files_on_disk_filesystems_skip_the_real_path() {
        for p in [
            "/proc/self/status",
            "/proc/self/environ",
            "/sys/kernel/mm/transparent_hugepage/enabled",
            "/dev/null",
            "/dev/zero",
            "/no/such/file",
        ] {
            assert!(!on_disk_filesystem(Path::new(p)), "{p}");
        }
        if let Ok(shm) = tempfile::tempdir_in("/dev/shm") {
            let f = shm.path().join("spec.yaml");
            std::fs::write(&f, "a: 1\n").unwrap();
            assert!(!on_disk_filesystem(&f));
        }
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let kind = std::process::Command::new("stat")
            .args(["-f", "-c", "%t"])
            .arg(&here)
            .output()
            .ok()
            .and_then(|o| u64::from_str_radix(String::from_utf8_lossy(&o.stdout).trim(), 16).ok());
        match kind {
            #[cfg(target_os = "linux")]
            Some(k) if DISK_FILESYSTEMS.contains(&k) => assert!(on_disk_filesystem(&here)),
            Some(k) => eprintln!("skipped: the work tree is on filesystem {k:#x}, not a disk one"),
            None => eprintln!("skipped: no `stat -f` here"),
        }
    }

    /// A temporary directory holding a repository (`repo/.git`) with `repo/specs/<file>` (a
    /// cloud-init file) and, outside it, `outside/secret`; the repository and `outside`.
    fn repository(file: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("specs")).unwrap();
        std::fs::write(repo.join("specs").join(file), "#cloud-config\n").unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "key").unwrap();
        (tmp, repo, outside)
    }

    /// The confinement root is found once per directory; a directory whose symlink is swapped
    /// to another tree after that still cannot reach that tree's files (their real path is
    /// outside the root found first).
    #[test]
    fn a_cached_confinement_root_still_confines() {
        let (tmp, repo, outside) = repository("ci.yaml");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(repo.join("specs"), &link).unwrap();
        let root = confinement_root(&link).unwrap();
        assert_eq!(root, std::fs::canonicalize(&repo).unwrap());
        assert_eq!(
            read_confined(&link, "ci.yaml", 100).unwrap(),
            b"#cloud-config\n"
        );
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert_eq!(confinement_root(&link).unwrap(), root, "cached");
        let e = read_confined(&link, "secret", 100).unwrap_err();
        assert!(matches!(e, ConfinedError::Outside { .. }), "{e}");
    }

    /// A file read again in the same process is the copy read (and confined) the first time: a
    /// symlink swapped to a secret outside the tree in between does not reach it. A failed read
    /// is not kept: the file, once there, is read.
    #[test]
    fn a_file_read_again_is_the_confined_copy() {
        let (_tmp, repo, outside) = repository("real.yaml");
        let specs = repo.join("specs");
        let ci = specs.join("ci.yaml");
        std::os::unix::fs::symlink(specs.join("real.yaml"), &ci).unwrap();
        assert_eq!(
            read_confined(&specs, "ci.yaml", 100).unwrap(),
            b"#cloud-config\n"
        );
        std::fs::remove_file(&ci).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), &ci).unwrap();
        assert_eq!(
            read_confined(&specs, "ci.yaml", 100).unwrap(),
            b"#cloud-config\n"
        );
        // read afresh (another limit), the swapped path is refused
        assert!(matches!(
            read_confined(&specs, "ci.yaml", 101).unwrap_err(),
            ConfinedError::Outside { .. }
        ));
        let e = read_confined(&specs, "later.yaml", 100).unwrap_err();
        assert!(
            matches!(e, ConfinedError::Read(ReadError::NotFound { .. })),
            "{e}"
        );
        std::fs::write(specs.join("later.yaml"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            read_confined(&specs, "later.yaml", 100).unwrap(),
            b"#!/bin/sh\n"
        );
    }

    /// What is kept comes back; what would pass the budget is not kept, and later entries that
    /// fit still are.
    #[test]
    fn kept_values_stay_within_their_budget() {
        let kept: Kept<String, u32> = Kept::new(10);
        assert_eq!(kept.get("a"), None);
        kept.keep("a".into(), 1, 6);
        kept.keep("b".into(), 2, 5);
        kept.keep("c".into(), 3, 4);
        assert_eq!(
            (kept.get("a"), kept.get("b"), kept.get("c")),
            (Some(1), None, Some(3))
        );
    }

    #[test]
    fn limits_and_the_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        std::fs::write(&f, "\u{feff}{\"a\": 1}").unwrap();
        assert_eq!(read_text(&f, 100).unwrap(), "{\"a\": 1}");
        let e = read_bounded(&f, 4).unwrap_err();
        assert!(
            matches!(e, ReadError::TooLarge { len: Some(11), .. }),
            "{e}"
        );
        std::fs::write(&f, [0x61, 0xff]).unwrap();
        assert!(matches!(
            read_text(&f, 100).unwrap_err(),
            ReadError::NotUtf8 { offset: 1, .. }
        ));
    }
}
