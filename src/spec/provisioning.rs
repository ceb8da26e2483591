//! How long a new VM needs before it serves (boot + GPU driver), per size series. Shared by the
//! workload-model rules (`check::rules::workload_model`) and `gpuform simulate`
//! (`simulate::model` re-exports it); it lives here so the spec rules do not reach up to
//! `simulate`.

/// Provisioning delay defaults per size series: VM boot plus the GPU driver extension on a
/// plain marketplace image. Sources: SkyPilot measured 3.5-6 minutes per Azure VM launch and
/// 21 minutes of NVIDIA GRID driver installation on an A10 VM without a custom image
/// (skypilot-org/skypilot issue #3695, PR #4205, summarised in shared/design/anchors.md §c.1);
/// the NCasT4_v3 figure (8 minutes to serve) is the one issue 11 measured with. Sizes whose
/// image carries the drivers (the HPC images on ND) only boot.
pub const PROVISIONING_DEFAULTS: &[(&str, u32, &str)] = &[
    (
        "NCasT4_v3",
        8,
        "boot ~5 min + CUDA driver extension ~3 min (issue 11 measurement; SkyPilot #3695 launch times)",
    ),
    (
        "NVadsA10_v5",
        25,
        "boot ~4 min + GRID driver install 21 min (SkyPilot #3695 / PR #4205, A10 without a custom image)",
    ),
    (
        "NCads_A10_v4",
        12,
        "boot ~5 min + CUDA driver extension (SkyPilot #3695 launch times)",
    ),
    (
        "NC_A100_v4",
        12,
        "boot ~6 min + CUDA driver extension (SkyPilot #3695 launch times)",
    ),
    (
        "NCads_H100_v5",
        12,
        "boot ~6 min + CUDA driver extension (SkyPilot #3695 launch times)",
    ),
    (
        "ND_H100_v5",
        10,
        "HPC image with drivers: boot and InfiniBand setup only (SkyPilot #3695 launch times)",
    ),
];

/// Used for series without their own default.
pub const PROVISIONING_FALLBACK: u32 = 10;

/// Default provisioning delay in minutes for a size series, and its source.
pub fn provisioning_default(series: &str, image_has_drivers: bool) -> (u32, String) {
    if image_has_drivers {
        return (
            6,
            "image with GPU drivers: boot only, 3.5-6 min (SkyPilot #3695)".to_string(),
        );
    }
    PROVISIONING_DEFAULTS
        .iter()
        .find(|(s, _, _)| *s == series)
        .map(|(_, m, src)| (*m, format!("{series} default: {src}")))
        .unwrap_or_else(|| {
            (
                PROVISIONING_FALLBACK,
                format!(
                    "fallback for {series}: boot 3.5-6 min + driver extension (SkyPilot #3695)"
                ),
            )
        })
}
