//! The rules Azure imposes on a custom Log Analytics table and on the data collection rule that
//! feeds it (the GPU telemetry table, `plan::gpu_monitoring::TABLE`).
//!
//! Sources, read 2026-12-03 (excerpts in `tests/fixtures/sources/custom-tables.json`, held by
//! `tests/facts_custom_tables.rs` against every rendered table and DCR):
//! - Learn "Add or delete tables and columns in Azure Monitor Logs" (MicrosoftDocs/azure-monitor-docs
//!   `articles/azure-monitor/logs/create-custom-table.md` @ 08c110a05b45ea5510ca37baf267337d21cc66f2,
//!   ms.date 05/25/2026): "Custom tables have a suffix of **_CL**"; "All tables in a Log
//!   Analytics workspace must have a `TimeGenerated` column"; the DCR's `outputStream`
//!   `Custom-myTable_CL` naming the table.
//! - The column types: Azure/bicep-types-az @ 1f896de2db966ad91e8f7d7d981e11d32e4f5d8d
//!   (`../shared/conformance/types/`): `Microsoft.OperationalInsights/workspaces/tables@2025-02-01`
//!   `Column.type` and `Microsoft.Insights/dataCollectionRules@2023-03-11`
//!   `ColumnDefinition.type`.

use super::Source;

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-monitor/logs/create-custom-table (MicrosoftDocs/azure-monitor-docs \
     articles/azure-monitor/logs/create-custom-table.md@08c110a05b45ea5510ca37baf267337d21cc66f2); \
     Azure/bicep-types-az@1f896de2db966ad91e8f7d7d981e11d32e4f5d8d (workspaces/tables Column.type, \
     dataCollectionRules ColumnDefinition.type)",
    "2026-12-03",
);

/// Every custom table's name ends with this.
pub const CUSTOM_TABLE_SUFFIX: &str = "_CL";

/// The column every table has, of table type [`TIME_COLUMN_TABLE_TYPE`].
pub const TIME_COLUMN: &str = "TimeGenerated";
pub const TIME_COLUMN_TABLE_TYPE: &str = "dateTime";

/// The DCR output stream of a custom table: this prefix + the table name.
pub const CUSTOM_STREAM_PREFIX: &str = "Custom-";

/// `Microsoft.OperationalInsights/workspaces/tables` column types.
pub const TABLE_COLUMN_TYPES: &[&str] = &[
    "string", "int", "long", "real", "boolean", "dateTime", "guid", "dynamic",
];

/// `Microsoft.Insights/dataCollectionRules` stream declaration column types.
pub const STREAM_COLUMN_TYPES: &[&str] = &[
    "string", "int", "long", "real", "boolean", "datetime", "dynamic",
];

/// The DCR output stream that writes to the custom table `table`.
pub fn output_stream(table: &str) -> String {
    format!("{CUSTOM_STREAM_PREFIX}{table}")
}
