//! The spec's constant defaults: the functions `#[serde(default = ...)]` in the model names
//! (and `default` in the JSON Schema; a test keeps the two in step). A leaf: it reads nothing of
//! the model, so the model's files import it and `crate::spec::defaults` (which re-exports it and
//! fills the defaults that depend on other fields) imports the model, one way only. The disk
//! defaults are the `Default` of [`super::DiskType`] and [`super::DiskCaching`].

pub fn vm_size() -> String {
    "auto".into()
}
pub fn admin_username() -> String {
    "azureuser".into()
}
pub fn image_version() -> String {
    "latest".into()
}
pub fn generation() -> crate::catalog::kinds::HyperVGeneration {
    crate::catalog::kinds::HyperVGeneration::V2
}
pub fn os_disk_size() -> u32 {
    128
}
pub fn yes() -> bool {
    true
}
pub fn repair_grace_period() -> String {
    "PT30M".into()
}
pub fn capacity_min() -> u32 {
    1
}
pub fn regular_percent_above_base() -> u32 {
    100
}
pub fn spot_max_price() -> f64 {
    -1.0
}
pub fn scale_out_cooldown() -> String {
    "PT5M".into()
}
pub fn scale_in_cooldown() -> String {
    "PT15M".into()
}
pub fn time_window() -> String {
    "PT5M".into()
}
pub fn address_space() -> String {
    "10.0.0.0/16".into()
}
pub fn soft_delete_days() -> u32 {
    90
}
pub fn log_retention_days() -> u32 {
    30
}
pub fn currency() -> String {
    "USD".into()
}
pub fn budget_thresholds() -> Vec<f64> {
    vec![50.0, 80.0, 100.0]
}
pub fn auto_start_time() -> String {
    "08:00".into()
}
pub fn gpu_idle_threshold_percent() -> u32 {
    10
}
pub fn gpu_idle_minutes() -> u32 {
    60
}
pub fn gpu_memory_alert_percent() -> u32 {
    90
}
/// `serving.modelLoadTime` when the spec does not measure it: Azure's documented default repair
/// grace period (30 minutes, serving.md E4), long enough that repairs never replace an instance
/// that is still loading a large model. Measure yours and set it.
pub fn model_load_time() -> String {
    "30m".into()
}
/// `serving.requestTimeout`: Azure documents no default (serving.md B10); five minutes lets a
/// long streamed completion finish.
pub fn request_timeout() -> String {
    "300s".into()
}
/// `serving.frontend.capacity.min`: one gateway instance kept warm (a new one takes minutes).
pub fn gateway_min() -> u32 {
    1
}
/// `serving.frontend.capacity.max`: Azure's documented default maximum (serving.md B13).
pub fn gateway_max() -> u32 {
    crate::facts::serving::GATEWAY_DEFAULT_MAX
}
