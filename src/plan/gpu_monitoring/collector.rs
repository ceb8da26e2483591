//! The collector's installation: the Linux install script merged into cloud-init custom data,
//! the Windows install command, and the ingestion estimate.

use std::fmt::Write as _;

use super::model::*;

/// The Windows collector as the install command carries it: comment and blank lines dropped,
/// indentation trimmed (the script has no here-strings, so no line's meaning depends on its
/// leading blanks). Tests check it still holds every statement of [`WINDOWS_COLLECTOR`].
pub fn windows_collector_compact() -> String {
    let mut out = String::new();
    // the instance metadata endpoint from the facts layer (the script keeps a placeholder)
    let script = WINDOWS_COLLECTOR.replace(
        IMDS_URL_PLACEHOLDER,
        &crate::facts::logs_ingestion::imds_instance_request(),
    );
    for line in script.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The collector's folder belongs to SYSTEM and Administrators (owner and full control, no
/// inherited ProgramData rights, in which Users may create files); Users may read it. A script
/// the SYSTEM tasks run must not be writable by the people who sign in to a visualisation desktop.
/// icacls takes SIDs with a leading `*`: S-1-5-18 LocalSystem, S-1-5-32-544 Administrators,
/// S-1-5-32-545 Users (Learn, "icacls").
const WINDOWS_ACL: &str = "$null=icacls $d /setowner '*S-1-5-32-544' /T /C;$null=icacls $d /inheritance:r /grant:r '*S-1-5-18:(OI)(CI)F' '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-32-545:(OI)(CI)RX' /T /C;";

/// The Custom Script Extension's `commandToExecute` on Windows pools: Windows PowerShell
/// decodes the collector (gzip + base64 inside the command, no download), writes it to
/// [`WINDOWS_SCRIPT_PATH`] and runs its `install` step, which registers the scheduled tasks.
pub fn windows_install_command(expected_gpus: u32) -> String {
    // the collector is the same for every spec: gzip (at the best level) and base64 it once per
    // process, not once per Windows spec (a render of thousands of specs, issue 41)
    static PACKED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let packed = PACKED.get_or_init(|| {
        use std::io::Write;
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(windows_collector_compact().as_bytes())
            .expect("gzip into memory");
        super::super::common::base64(&z.finish().expect("gzip into memory"))
    });
    format!(
        "powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command \"$d=Join-Path $env:ProgramData 'gpuform';$null=New-Item -ItemType Directory -Force -Path $d;{WINDOWS_ACL}$f=Join-Path $d 'gpuform-gpu.ps1';$b=[Convert]::FromBase64String('{packed}');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install {expected_gpus} {HEALTH_PORT};exit $LASTEXITCODE\""
    )
}

/// The cloud-init part that installs the collector, its timer and the health responder.
/// `vendor` is [`GpuMonitoring::vendor`]: `nvidia` or `amd`.
pub fn install_script(expected_gpus: u32, vendor: &str) -> String {
    install_script_with(expected_gpus, vendor, None)
}

/// The Windows collector's placeholder for the instance metadata endpoint.
pub const IMDS_URL_PLACEHOLDER: &str = "@@GPUFORM_IMDS_URL@@";

/// The collector service's environment on the Logs Ingestion path: where and how it posts its
/// rows (the three placeholders are replaced by the template at deployment; see [`Ingestion`]).
pub fn ingestion_environment(ing: &Ingestion) -> String {
    format!(
        "Environment=GPUFORM_INGEST_ENDPOINT={INGEST_ENDPOINT}\nEnvironment=GPUFORM_INGEST_ROUTE={}\nEnvironment=GPUFORM_INGEST_DCR={INGEST_DCR}\nEnvironment=GPUFORM_INGEST_STREAM={STREAM}\nEnvironment=GPUFORM_INGEST_API_VERSION={}\nEnvironment=GPUFORM_INGEST_AUDIENCE={}\nEnvironment=GPUFORM_INGEST_CLIENT_ID={INGEST_CLIENT_ID}\nEnvironment=GPUFORM_INGEST_TOKEN_URL={}\nEnvironment=GPUFORM_INGEST_MAX_BYTES={}\n",
        crate::facts::logs_ingestion::ROUTE,
        ing.api_version,
        ing.audience,
        ing.token_url,
        ing.max_body_bytes
    )
}

/// [`install_script`], and on the Logs Ingestion path the collector's upload settings.
pub fn install_script_with(expected_gpus: u32, vendor: &str, ing: Option<&Ingestion>) -> String {
    install_script_full(expected_gpus, vendor, ing, "")
}

/// [`install_script_with`], and `extra_env` (systemd `Environment=` lines, each ending in a
/// newline) in the collect service: a serving pool's GPU-utilisation metric settings
/// (`plan::serving_gpu::environment`).
pub fn install_script_full(
    expected_gpus: u32,
    vendor: &str,
    ing: Option<&Ingestion>,
    extra_env: &str,
) -> String {
    CollectorInputs::new(expected_gpus, vendor, ing, extra_env).script()
}

/// Everything the collector's part of the custom data is made of, and so the custom data
/// assembled with a cloud-init file: the GPUs it expects, the vendor, whether it posts through
/// the Logs Ingestion API, and the collect service's environment (the Logs Ingestion settings,
/// then the caller's). The script and the custom data are functions of these alone, so a check
/// may keep what it measured of them per inputs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CollectorInputs {
    expected_gpus: u32,
    vendor: String,
    ingestion: bool,
    env: String,
}

impl CollectorInputs {
    /// [`install_script_full`]'s arguments.
    pub fn new(expected_gpus: u32, vendor: &str, ing: Option<&Ingestion>, extra_env: &str) -> Self {
        Self {
            expected_gpus,
            vendor: vendor.to_string(),
            ingestion: ing.is_some(),
            env: ing.map(ingestion_environment).unwrap_or_default() + extra_env,
        }
    }

    /// Bytes of text these inputs hold (for a cache's budget).
    pub fn text_len(&self) -> usize {
        self.vendor.len() + self.env.len()
    }

    /// The collector's install script ([`install_script_full`]).
    pub fn script(&self) -> String {
        let (expected_gpus, vendor) = (self.expected_gpus, self.vendor.as_str());
        format!(
            r#"#!/bin/sh
# gpuform: GPU collector ({tool} once a minute -> {LOG_PATTERN} -> {to})
# and the health endpoint the Application Health extension probes (127.0.0.1:{HEALTH_PORT}).
set -eu
install -d -m 0755 /usr/local/lib/gpuform /var/log/gpuform
cat > /usr/local/lib/gpuform/gpuform-gpu <<'GPUFORM_EOF'
{COLLECTOR}GPUFORM_EOF
chmod 0755 /usr/local/lib/gpuform/gpuform-gpu
cat > /etc/systemd/system/gpuform-gpu-collect.service <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU sample ({tool} to {LOG_PATTERN})

[Service]
Type=oneshot
ExecStart=/usr/local/lib/gpuform/gpuform-gpu collect {expected_gpus} {vendor}
Environment=GPUFORM_IMDS_URL={imds}
{env}SuccessExitStatus=1
GPUFORM_EOF
cat > /etc/systemd/system/gpuform-gpu-collect.timer <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU sample every minute

[Timer]
OnCalendar=*-*-* *:*:00
AccuracySec=1s

[Install]
WantedBy=timers.target
GPUFORM_EOF
cat > /etc/systemd/system/gpuform-gpu-health.service <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU health endpoint (127.0.0.1:{HEALTH_PORT})
After=network.target

[Service]
ExecStart=/usr/local/lib/gpuform/gpuform-gpu serve {HEALTH_PORT}
Restart=always
RestartSec=5
DynamicUser=yes
ReadOnlyPaths=/

[Install]
WantedBy=multi-user.target
GPUFORM_EOF
systemctl daemon-reload
systemctl enable --now gpuform-gpu-collect.timer gpuform-gpu-health.service
"#,
            tool = tool(vendor),
            to = if self.ingestion {
                "Logs Ingestion API"
            } else {
                "Azure Monitor Agent"
            },
            env = self.env,
            imds = crate::facts::logs_ingestion::imds_instance_request(),
        )
    }

    /// The custom data with the spec's cloud-init file `user` ([`custom_data_full`]).
    pub fn custom_data(&self, user: Option<&[u8]>) -> Result<Vec<u8>, MergeError> {
        let script = self.script();
        let Some(user) = user else {
            return Ok(script.into_bytes());
        };
        let text = std::str::from_utf8(user).map_err(|_| {
            MergeError("the cloud-init file is not UTF-8 text (gzip?); GPU monitoring adds its own part to it, which needs plain text".into())
        })?;
        let first = text.lines().next().unwrap_or_default().trim_end();
        let kind = if first.starts_with("#cloud-config") {
            "text/cloud-config"
        } else if first.starts_with("#!") {
            "text/x-shellscript"
        } else if first.starts_with("#cloud-boothook") {
            "text/cloud-boothook"
        } else if first.starts_with("#include") {
            "text/x-include-url"
        } else if first.starts_with("## template: jinja") {
            "text/jinja2"
        } else {
            return Err(MergeError(format!(
                "the cloud-init file starts with `{}`; GPU monitoring combines it with its own part as cloud-init multipart MIME, which takes #cloud-config, #! scripts, #cloud-boothook, #include and jinja templates",
                first.chars().take(40).collect::<String>()
            )));
        };
        if text.contains(BOUNDARY) {
            return Err(MergeError(format!(
                "the cloud-init file contains gpuform's MIME boundary `{BOUNDARY}`"
            )));
        }
        // the template replaces the placeholders wherever they are in the custom data: only
        // gpuform's own may be there, or the file would change (and grow) at deployment
        if self.ingestion
            && let Some((ph, _)) = PLACEHOLDER_VALUES.iter().find(|(ph, _)| text.contains(ph))
        {
            return Err(MergeError(format!(
                "the cloud-init file contains gpuform's placeholder `{ph}`, which the template replaces with a deployment value on the Logs Ingestion path (in the whole custom data, the file included)"
            )));
        }
        // each part written straight into one buffer sized for all of it: `validate` assembles
        // this (tens of KB) for every spec it checks
        let mut out = String::with_capacity(text.len() + script.len() + 1024);
        let _ = write!(
            out,
            "Content-Type: multipart/mixed; boundary=\"{BOUNDARY}\"\nMIME-Version: 1.0\n\n"
        );
        let mut part = |ctype: &str, file: &str, body: &str| {
            let _ = write!(
                out,
                "--{BOUNDARY}\nContent-Type: {ctype}; charset=\"utf-8\"\nMIME-Version: 1.0\nContent-Transfer-Encoding: 8bit\nContent-Disposition: attachment; filename=\"{file}\"\n\n"
            );
            out.push_str(body);
            if !out.ends_with('\n') {
                out.push('\n');
            }
        };
        part(kind, "spec-cloud-init", text);
        part("text/x-shellscript", "gpuform-gpu-monitoring.sh", &script);
        out.push_str(&format!("--{BOUNDARY}--\n"));
        Ok(out.into_bytes())
    }

    /// [`Self::custom_data`] and its size as Azure receives it: [`received_bytes`] when the
    /// template puts values in for placeholders (the Logs Ingestion settings or the caller's
    /// environment may hold them), else its length.
    pub fn received(&self, user: Option<&[u8]>) -> Result<(Vec<u8>, usize), MergeError> {
        let bytes = self.custom_data(user)?;
        let received = if self.ingestion || !self.env.is_empty() {
            received_bytes(&bytes)
        } else {
            bytes.len()
        };
        Ok((bytes, received))
    }
}

/// gpuform's MIME boundary in the custom data it assembles when GPU monitoring adds its part to
/// a cloud-init file; validation refuses a file containing it (`check::rules::MIME_BOUNDARY`
/// is this constant).
pub const MIME_BOUNDARY: &str = "==GPUFORM-GPU-MONITORING==";

/// The boundary of the assembled custom data ([`MIME_BOUNDARY`]).
pub(super) const BOUNDARY: &str = MIME_BOUNDARY;

/// Why the spec's cloud-init cannot be combined with the collector's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub String);

/// Custom data with the collector: the install script alone, or a cloud-init multipart MIME
/// archive of the script and the spec's own cloud-init (each part runs as cloud-init would run
/// it alone; no cloud-config keys are merged, so nothing of the user's file is overridden).
pub fn custom_data(
    user: Option<&[u8]>,
    expected_gpus: u32,
    vendor: &str,
) -> Result<Vec<u8>, MergeError> {
    custom_data_with(user, expected_gpus, vendor, None)
}

/// [`custom_data`] with the Logs Ingestion path's settings ([`install_script_with`]).
pub fn custom_data_with(
    user: Option<&[u8]>,
    expected_gpus: u32,
    vendor: &str,
    ing: Option<&Ingestion>,
) -> Result<Vec<u8>, MergeError> {
    custom_data_full(user, expected_gpus, vendor, ing, "")
}

/// [`custom_data_with`] with extra collector environment ([`install_script_full`]).
pub fn custom_data_full(
    user: Option<&[u8]>,
    expected_gpus: u32,
    vendor: &str,
    ing: Option<&Ingestion>,
    extra_env: &str,
) -> Result<Vec<u8>, MergeError> {
    CollectorInputs::new(expected_gpus, vendor, ing, extra_env).custom_data(user)
}

/// Bytes of `custom` once the template has put the deployment's values in for every placeholder
/// it holds, each at its longest ([`PLACEHOLDER_VALUES`]): the size Azure receives on the Logs
/// Ingestion path, which [`MAX_CUSTOM_DATA_BYTES`] bounds.
pub fn received_bytes(custom: &[u8]) -> usize {
    // the placeholders are ASCII, so their matches in the bytes are their matches in the text
    // (an invalid sequence never holds an ASCII byte); memmem: `validate` counts them in the
    // whole custom data (tens of KB) of every spec (issue 41)
    let grows: usize = PLACEHOLDER_VALUES
        .iter()
        .map(|(ph, max)| {
            memchr::memmem::find_iter(custom, ph.as_bytes()).count() * max.saturating_sub(ph.len())
        })
        .sum();
    custom.len() + grows
}

/// Whether `needle` occurs in `hay`, at compile time.
const fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let mut j = 0;
        while j < needle.len() && hay[i + j] == needle[j] {
            j += 1;
        }
        if j == needle.len() {
            return true;
        }
        i += 1;
    }
    false
}

// The install script writes the collector through a heredoc ended by `GPUFORM_EOF`: the
// collector must not hold that line. Checked when gpuform is compiled (it was checked at every
// script built, for every spec `validate` checks).
const _: () = assert!(
    !contains(COLLECTOR.as_bytes(), b"GPUFORM_EOF"),
    "the collector must not contain the heredoc delimiter"
);

/// The custom data of a Linux pool with the collector: the merged bytes ([`custom_data_with`])
/// and their size as Azure receives them ([`received_bytes`] on the Logs Ingestion path).
/// `render` and `validate` both ask this, so they cannot disagree.
pub fn custom_data_for(
    g: &GpuMonitoring,
    user: Option<&[u8]>,
) -> Result<(Vec<u8>, usize), MergeError> {
    custom_data_for_env(g, user, "")
}

/// [`custom_data_for`] with extra collector environment ([`install_script_full`]): a serving
/// pool's GPU-utilisation metric settings, whose client-id placeholder [`received_bytes`]
/// counts; the caller adds what its own placeholders grow by.
pub fn custom_data_for_env(
    g: &GpuMonitoring,
    user: Option<&[u8]>,
    extra_env: &str,
) -> Result<(Vec<u8>, usize), MergeError> {
    CollectorInputs::new(g.expected_gpus, g.vendor, g.ingestion.as_ref(), extra_env).received(user)
}

/// GB a day the table ingests at `vms` VMs of `size` (one row per GPU per minute).
pub fn ingestion_gb_per_day(vms: f64, gpus_per_vm: u32) -> f64 {
    let rows = vms * f64::from(gpus_per_vm) * (86_400.0 / f64::from(SAMPLE_SECONDS));
    rows * f64::from(BYTES_PER_ROW) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the custom data grows to, counted in the bytes, is what counting in the text gives
    /// (invalid UTF-8 read as U+FFFD), placeholders anywhere, next to each other or cut.
    fn in_text(custom: &[u8]) -> usize {
        let text = String::from_utf8_lossy(custom);
        custom.len()
            + PLACEHOLDER_VALUES
                .iter()
                .map(|(ph, max)| text.matches(ph).count() * max.saturating_sub(ph.len()))
                .sum::<usize>()
    }

    proptest! {
        #[test]
        fn received_bytes_count_as_the_text_counts(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..12),
                    (0..PLACEHOLDER_VALUES.len()).prop_map(|i| PLACEHOLDER_VALUES[i].0.as_bytes().to_vec()),
                    (0..PLACEHOLDER_VALUES.len(), 1usize..8).prop_map(|(i, cut)| {
                        let p = PLACEHOLDER_VALUES[i].0.as_bytes();
                        p[..p.len().saturating_sub(cut)].to_vec()
                    }),
                    Just(vec![0xE2, 0x82]),
                ],
                0..12,
            )
        ) {
            // and inside the collector's own script
            let mut custom = install_script_full(2, "nvidia", None, "").into_bytes();
            custom.extend(parts.concat());
            prop_assert_eq!(received_bytes(&custom), in_text(&custom));
        }
    }
}
