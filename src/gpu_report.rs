//! `gpuform gpu-report`: from the GPU telemetry back to the spec. Reads an export of the
//! `GpuTelemetry_CL` table (the JSON `az monitor log-analytics query` prints, the REST API's
//! `{"tables": [...]}` answer, or the CSV the portal exports) and reports the measured VRAM peak
//! per VM against `workload.gpuMemoryGiB`, with the sizes that fit the measured peak (ranked by
//! [`crate::sizing::select`], the same ranking `vmSize: auto` uses).

use serde::Serialize;
use serde_json::Value;

use crate::catalog::prices::PriceTable;
use crate::sizing::{self, DriverChoice};
use crate::spec::model::Spec;

/// One row of the export: one GPU of one VM at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub computer: String,
    pub time: Option<String>,
    pub gpu: Option<String>,
    pub used_mib: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmPeak {
    pub computer: String,
    /// Sum over the VM's GPUs at the sample with the most memory in use (GiB).
    pub peak_gib: f64,
    pub at: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    pub size: &'static str,
    pub gpu_memory_gib: Option<f64>,
    pub hourly: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub pool: String,
    pub rows: usize,
    /// Rows whose MemoryUsedMiB was NaN, infinite, negative or impossibly large: skipped.
    #[serde(skip_serializing_if = "is_zero")]
    pub impossible_values_skipped: usize,
    pub declared_gib: f64,
    pub measured_peak_gib: f64,
    pub vms: Vec<VmPeak>,
    /// Rows without a time: per-VM peaks are then the sum of each GPU's own peak (an upper bound).
    pub upper_bound: bool,
    pub vm_size: String,
    pub vm_size_gib: Option<f64>,
    /// The measured peak exceeds `gpuMemoryGiB`: the spec understates the workload.
    pub exceeds_declared: bool,
    /// Sizes that fit the measured peak, cheapest first (at most five).
    pub sizes_that_fit: Vec<Fit>,
    pub price_region: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Why an export cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(pub String);

fn err(s: impl Into<String>) -> ExportError {
    ExportError(s.into())
}

/// The column names an export may use (the portal's CSV adds ` [UTC]` to datetime columns).
fn canonical(name: &str) -> &str {
    let n = name.trim().trim_end_matches(" [UTC]");
    match n {
        "PeakMemoryMiB" | "max_MemoryUsedMiB" => "MemoryUsedMiB",
        other => other,
    }
}

/// The largest `MemoryUsedMiB` one GPU can report: a pebibyte (2^30 MiB). An assumption, not an
/// Azure fact: no GPU gpuform knows holds more than a few hundred GiB (`../shared/azure/
/// gpu-skus.json`), so a larger value is a broken row; the bound keeps every sum finite.
pub const MAX_GPU_MIB: f64 = (1u64 << 30) as f64;

/// A cell as `az` and the REST API write it: `null`, `""` and az's `"None"` are empty. The
/// CLI's `log-analytics` extension writes every cell as Python's `str(value)`
/// (Azure/azure-cli-extensions `src/log-analytics/azext_loganalytics/custom.py`
/// @138f93c6121471a527ed477aac54219e99aa27ee, `item[column_names[index]] = str(value)`, read
/// 2026-12-03), so a null arrives as the text `None`.
struct Cell(Option<String>);

impl<'de> serde::Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Cell;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a cell")
            }
            fn visit_unit<E>(self) -> Result<Cell, E> {
                Ok(Cell(None))
            }
            fn visit_none<E>(self) -> Result<Cell, E> {
                Ok(Cell(None))
            }
            fn visit_str<E>(self, s: &str) -> Result<Cell, E> {
                Ok(Cell((!s.is_empty() && s != "None").then(|| s.to_string())))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Cell, E> {
                Ok(Cell(Some(b.to_string())))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Cell, E> {
                Ok(Cell(Some(n.to_string())))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Cell, E> {
                Ok(Cell(Some(n.to_string())))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Cell, E> {
                Ok(Cell(Some(
                    serde_json::Number::from_f64(n)
                        .map_or_else(|| n.to_string(), |x| x.to_string()),
                )))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, a: A) -> Result<Cell, A::Error> {
                let v = <Value as serde::Deserialize>::deserialize(
                    serde::de::value::SeqAccessDeserializer::new(a),
                )?;
                Ok(Cell(Some(v.to_string())))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<Cell, A::Error> {
                let v = <Value as serde::Deserialize>::deserialize(
                    serde::de::value::MapAccessDeserializer::new(a),
                )?;
                Ok(Cell(Some(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

/// One row of an export as the readers hand it on: column names (canonical) and cells.
pub struct Cells<'a> {
    pub names: &'a [String],
    pub values: &'a [Option<String>],
}

impl Cells<'_> {
    /// The cell of column `name` (empty cells are `None`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.names
            .iter()
            .position(|n| n == name)
            .and_then(|i| self.values.get(i))
            .and_then(|v| v.as_deref())
    }

    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The columns, for messages (each clipped, at most 20).
    pub fn listed(&self) -> String {
        let mut v: Vec<String> = self
            .names
            .iter()
            .take(20)
            .map(|n| crate::diag::clip(n).into_owned())
            .collect();
        if self.names.len() > 20 {
            v.push(format!("and {} more", self.names.len() - 20));
        }
        v.join(", ")
    }
}

/// What a row callback returns: go on, or stop with an error.
type RowFn<'f> = dyn FnMut(usize, &Cells) -> Result<(), ExportError> + 'f;

/// Hands each row to the callback while serde reads; a callback error is kept whole here (serde
/// would add its own position to it).
struct Sink<'f, 'g> {
    f: &'g mut RowFn<'f>,
    failed: &'g mut Option<ExportError>,
    rows: &'g mut usize,
    names: Vec<String>,
    values: Vec<Option<String>>,
}

impl Sink<'_, '_> {
    fn emit<E: serde::de::Error>(&mut self) -> Result<(), E> {
        *self.rows += 1;
        let cells = Cells {
            names: &self.names,
            values: &self.values,
        };
        (self.f)(*self.rows, &cells).map_err(|e| {
            *self.failed = Some(e);
            E::custom("stopped")
        })
    }
}

/// `[{col: cell, …}, …]`: each object one row.
struct ObjectRows<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::Visitor<'de> for ObjectRows<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while a.next_element_seed(ObjectRow(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct ObjectRow<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for ObjectRow<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ObjectRow<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a row (an object of columns)")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        let sink = self.0;
        sink.names.clear();
        sink.values.clear();
        while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
            let Cell(v) = a.next_value()?;
            sink.names.push(canonical(&k).to_string());
            sink.values.push(v);
        }
        sink.emit()
    }
}

/// `{"tables": [{"columns": [{"name"}], "rows": [[cell, …]]}]}`: the first table's rows.
struct Tables<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::Visitor<'de> for Tables<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a Log Analytics query result")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        let mut found = false;
        while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
            if k == "tables" && !found {
                found = true;
                a.next_value_seed(TableList(&mut *self.0))?;
            } else {
                a.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        if !found {
            return Err(serde::de::Error::custom(
                "the JSON object has no `tables` (not a Log Analytics query result)",
            ));
        }
        Ok(())
    }
}

struct TableList<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for TableList<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for TableList<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of tables")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        // the first table is the query's result; later ones are skipped
        if a.next_element_seed(Table(&mut *self.0))?.is_none() {
            return Err(serde::de::Error::custom("`tables` is empty"));
        }
        while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

struct Table<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for Table<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

#[derive(serde::Deserialize)]
struct Column {
    #[serde(default)]
    name: Option<String>,
}

impl<'de> serde::de::Visitor<'de> for Table<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a table")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        let sink = self.0;
        let (mut cols, mut rows) = (false, false);
        while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
            match k.as_ref() {
                "columns" if !cols => {
                    let c: Vec<Column> = a.next_value()?;
                    sink.names = c
                        .into_iter()
                        .map(|c| canonical(c.name.as_deref().unwrap_or_default()).to_string())
                        .collect();
                    cols = true;
                }
                "rows" if !rows => {
                    if !cols {
                        return Err(serde::de::Error::custom(
                            "tables[0] has its rows before its columns; export it again with `az monitor log-analytics query` or the REST API, which write the columns first",
                        ));
                    }
                    a.next_value_seed(ArrayRows(&mut *sink))?;
                    rows = true;
                }
                _ => {
                    a.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        if !cols {
            return Err(serde::de::Error::custom("tables[0] has no columns"));
        }
        if !rows {
            return Err(serde::de::Error::custom("tables[0] has no rows"));
        }
        Ok(())
    }
}

struct ArrayRows<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for ArrayRows<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ArrayRows<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while a.next_element_seed(ArrayRow(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct ArrayRow<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for ArrayRow<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ArrayRow<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a row (an array of cells)")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        let sink = self.0;
        sink.values.clear();
        while let Some(Cell(v)) = a.next_element()? {
            // cells past the columns have no name: read and dropped
            if sink.values.len() < sink.names.len() {
                sink.values.push(v);
            }
        }
        sink.emit()
    }
    // a row that is not an array has no cells
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while a
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.values.clear();
        self.0.emit()
    }
}

/// The top level: an array of objects, or the REST answer.
struct Top<'a, 'f, 'g>(&'a mut Sink<'f, 'g>);

impl<'de> serde::de::DeserializeSeed<'de> for Top<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Top<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of rows or a Log Analytics query result")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, a: A) -> Result<(), A::Error> {
        ObjectRows(self.0).visit_seq(a)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<(), A::Error> {
        Tables(self.0).visit_map(a)
    }
}

/// Read an export row by row, handing each to `f` (1-based row number, cells) as it is read:
/// `az monitor log-analytics query` JSON (an array of objects), the REST answer
/// (`{"tables": [{"columns": [...], "rows": [...]}]}`), or CSV with a header row. Nothing but the
/// current row is held, so memory does not grow with the export. Returns the rows read.
pub fn for_each_row(
    text: &str,
    mut f: impl FnMut(usize, &Cells) -> Result<(), ExportError>,
) -> Result<usize, ExportError> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let mut failed = None;
    let mut rows = 0usize;
    if t.starts_with('[') || t.starts_with('{') {
        let mut sink = Sink {
            f: &mut f,
            failed: &mut failed,
            rows: &mut rows,
            names: Vec::new(),
            values: Vec::new(),
        };
        let mut de = serde_json::Deserializer::from_str(t);
        let r = serde::de::DeserializeSeed::deserialize(Top(&mut sink), &mut de)
            .and_then(|()| de.end());
        if let Some(e) = failed {
            return Err(e);
        }
        r.map_err(|e| match e.classify() {
            serde_json::error::Category::Data => {
                err(format!("the export is not a query result: {e}"))
            }
            _ => err(format!("the export is not valid JSON: {e}")),
        })?;
        return Ok(rows);
    }
    let mut header: Option<Vec<String>> = None;
    csv_records(t, |rec| {
        let Some(names) = &header else {
            header = Some(rec.iter().map(|h| canonical(h).to_string()).collect());
            return Ok(());
        };
        if rec.len() == 1 && rec[0].is_empty() {
            return Ok(());
        }
        let values: Vec<Option<String>> = rec
            .iter_mut()
            .map(|c| (!c.is_empty()).then(|| std::mem::take(c)))
            .collect();
        rows += 1;
        f(
            rows,
            &Cells {
                names,
                values: &values,
            },
        )
    })?;
    if header.is_none() {
        return Err(err("the export is empty"));
    }
    Ok(rows)
}

/// RFC 4180 CSV, one record at a time: quoted fields, `""` inside quotes, CRLF or LF line ends.
/// (About forty lines; the `csv` crate would be the choice if exports grew dialects.)
fn csv_records(
    text: &str,
    mut f: impl FnMut(&mut Vec<String>) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                f(&mut row)?;
                row.clear();
            }
            c => field.push(c),
        }
    }
    if quoted {
        return Err(err("the CSV ends inside a quoted field"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        f(&mut row)?;
    }
    Ok(())
}

#[cfg(test)]
fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, ExportError> {
    let mut out = Vec::new();
    csv_records(text, |r| {
        out.push(r.clone());
        Ok(())
    })?;
    Ok(out)
}

/// A `MemoryUsedMiB` cell as a value to measure: `Ok(None)` for an impossible value (NaN,
/// infinite, negative, above [`MAX_GPU_MIB`]), which is skipped and counted.
fn memory_value(row: usize, text: &str) -> Result<Option<f64>, ExportError> {
    let v: f64 = text.trim().parse().map_err(|_| {
        err(format!(
            "row {row}: MemoryUsedMiB `{}` is not a number",
            crate::diag::clip(text)
        ))
    })?;
    Ok((v.is_finite() && (0.0..=MAX_GPU_MIB).contains(&v)).then_some(v))
}

/// The export aggregated while it is read: per VM, the memory summed over its GPUs at each time
/// and each GPU's own peak. Memory grows with VMs × times, not with rows.
#[derive(Debug, Default)]
pub struct Peaks {
    /// Rows with a memory value (health rows and impossible values not counted).
    pub rows: usize,
    /// Rows whose MemoryUsedMiB was NaN, infinite, negative or above [`MAX_GPU_MIB`]: skipped.
    pub impossible: usize,
    /// Some row had no time: per-VM peaks are then the sum of each GPU's own peak.
    pub untimed: bool,
    names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
    by_time: std::collections::HashMap<(u32, Box<str>), f64>,
    by_gpu: std::collections::HashMap<(u32, Box<str>), f64>,
}

impl Peaks {
    fn vm(&mut self, name: &str) -> u32 {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// Count one sample.
    pub fn add(&mut self, x: &Sample) {
        let vm = self.vm(&x.computer);
        match &x.time {
            Some(t) => *self.by_time.entry((vm, t.as_str().into())).or_default() += x.used_mib,
            None => self.untimed = true,
        }
        let g = self
            .by_gpu
            .entry((vm, x.gpu.as_deref().unwrap_or("?").into()))
            .or_default();
        *g = g.max(x.used_mib);
        self.rows += 1;
    }

    /// Per VM: its peak (GiB) and when, in the order of the old report (largest first, then by
    /// name).
    fn vm_peaks(&self) -> Vec<VmPeak> {
        let mut best: Vec<Option<(f64, &str)>> = vec![None; self.names.len()];
        if self.untimed {
            let mut sums = vec![0f64; self.names.len()];
            for ((vm, _), mib) in &self.by_gpu {
                sums[*vm as usize] += mib;
            }
            for (i, s) in sums.into_iter().enumerate() {
                best[i] = Some((s, ""));
            }
        } else {
            for ((vm, t), mib) in &self.by_time {
                let slot = &mut best[*vm as usize];
                // ties go to the later time string, as the ordered map did
                let better = match slot {
                    None => true,
                    Some((m, at)) => mib.total_cmp(m).then_with(|| (**t).cmp(*at)).is_gt(),
                };
                if better {
                    *slot = Some((*mib, t));
                }
            }
        }
        let mut vms: Vec<VmPeak> = self
            .names
            .iter()
            .zip(best)
            .map(|(n, b)| {
                let (mib, at) = b.unwrap_or((0.0, ""));
                VmPeak {
                    computer: n.clone(),
                    peak_gib: mib / 1024.0,
                    at: (!self.untimed).then(|| at.to_string()),
                }
            })
            .collect();
        vms.sort_by(|a, b| a.computer.cmp(&b.computer));
        vms.sort_by(|a, b| b.peak_gib.total_cmp(&a.peak_gib));
        vms
    }
}

/// Read an export (any form [`for_each_row`] reads) into [`Peaks`], row by row.
pub fn read_peaks(text: &str) -> Result<Peaks, ExportError> {
    let mut p = Peaks::default();
    each_sample(text, |s| {
        match s {
            Some(s) => p.add(&s),
            None => p.impossible += 1,
        }
        Ok(())
    })?;
    Ok(p)
}

/// Each row with a memory value as a sample (`None` for an impossible value); columns checked on
/// the first row.
fn each_sample(
    text: &str,
    mut f: impl FnMut(Option<Sample>) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    for_each_row(text, |i, row| {
        if i == 1 {
            for need in ["Computer", "MemoryUsedMiB"] {
                if !row.has(need) {
                    return Err(err(format!(
                        "the export has no `{need}` column (it has {}); export `GpuTelemetry_CL | project TimeGenerated, Computer, GpuIndex, MemoryUsedMiB`",
                        row.listed()
                    )));
                }
            }
        }
        let Some(used) = row.get("MemoryUsedMiB") else {
            return Ok(());
        };
        let Some(used_mib) = memory_value(i, used)? else {
            return f(None);
        };
        f(Some(Sample {
            computer: row.get("Computer").unwrap_or_default().to_string(),
            time: row.get("TimeGenerated").map(str::to_string),
            gpu: row.get("GpuIndex").map(str::to_string),
            used_mib,
        }))
    })?;
    Ok(())
}

/// Read an export into samples (impossible values skipped). For small exports and tests;
/// `gpu-report` aggregates while reading ([`read_peaks`]).
pub fn parse_export(text: &str) -> Result<Vec<Sample>, ExportError> {
    let mut out = Vec::new();
    each_sample(text, |s| {
        out.extend(s);
        Ok(())
    })?;
    Ok(out)
}

/// Measure the samples against the spec and rank the sizes that fit the measured peak.
pub fn report(spec: &Spec, samples: &[Sample], prices: &PriceTable) -> Report {
    let mut p = Peaks::default();
    for x in samples {
        p.add(x);
    }
    report_peaks(spec, &p, prices)
}

/// [`report`] from an export aggregated while read.
pub fn report_peaks(spec: &Spec, peaks: &Peaks, prices: &PriceTable) -> Report {
    let s = &spec.spec;
    let upper_bound = peaks.untimed;
    let vms = peaks.vm_peaks();
    let measured = vms.first().map_or(0.0, |v| v.peak_gib);
    let mut workload = s.workload.clone();
    // round up to a tenth of a GiB: what the spec would state
    workload.gpu_memory_gib = ((measured * 10.0).ceil() / 10.0).max(0.1);
    let sel = sizing::select(&workload, &s.region, &DriverChoice::of(&s.compute), prices);
    let sizes_that_fit = sel
        .candidates
        .iter()
        .filter(|c| c.rejected.is_none())
        .take(5)
        .map(|c| Fit {
            size: c.size,
            gpu_memory_gib: c.gpu_memory_gib,
            hourly: c.hourly,
        })
        .collect();
    Report {
        pool: spec.metadata.name.clone(),
        rows: peaks.rows,
        impossible_values_skipped: peaks.impossible,
        declared_gib: s.workload.gpu_memory_gib,
        measured_peak_gib: measured,
        vms,
        upper_bound,
        vm_size: s.compute.vm_size.clone(),
        vm_size_gib: spec.size().and_then(|z| z.gpu_memory_gib),
        exceeds_declared: measured > s.workload.gpu_memory_gib,
        sizes_that_fit,
        price_region: sel.price_region,
    }
}

/// The report as text.
pub fn to_text(r: &Report) -> String {
    let mut o = format!(
        "gpuform gpu-report: {} — {} rows of GpuTelemetry_CL\n\n",
        r.pool, r.rows
    );
    if r.impossible_values_skipped > 0 {
        o.push_str(&format!(
            "{} skipped: MemoryUsedMiB was NaN, infinite, negative or above a pebibyte (not a measurement)\n\n",
            crate::diag::plural(r.impossible_values_skipped, "row")
        ));
    }
    o.push_str(&format!(
        "measured VRAM peak per VM: {:.1} GiB{}; the spec declares gpuMemoryGiB {}\n",
        r.measured_peak_gib,
        if r.upper_bound {
            " (no TimeGenerated column: the sum of each GPU's own peak, an upper bound)"
        } else {
            ""
        },
        sizing::fmt_num(r.declared_gib)
    ));
    if let Some(g) = r.vm_size_gib {
        o.push_str(&format!(
            "{} has {} GiB: {:.0}% used at the peak\n",
            r.vm_size,
            sizing::fmt_num(g),
            r.measured_peak_gib / g * 100.0
        ));
    }
    o.push_str("\n  VM                                   peak GiB  at\n");
    for v in &r.vms {
        o.push_str(&format!(
            "  {:<36} {:>8.1}  {}\n",
            v.computer,
            v.peak_gib,
            v.at.as_deref().unwrap_or("-")
        ));
    }
    o.push('\n');
    if r.exceeds_declared {
        o.push_str(&format!(
            "the workload uses more than the spec says: set `workload.gpuMemoryGiB: {:.1}` (validation then checks the size against it)\n",
            (r.measured_peak_gib * 10.0).ceil() / 10.0
        ));
    } else if r.measured_peak_gib < r.declared_gib / 2.0 {
        o.push_str(&format!(
            "the workload uses under half of what the spec says: `workload.gpuMemoryGiB: {:.1}` opens the cheaper sizes below\n",
            (r.measured_peak_gib * 10.0).ceil() / 10.0
        ));
    } else {
        o.push_str("gpuMemoryGiB matches the measurement\n");
    }
    o.push_str(&format!(
        "\nsizes that fit the measured peak, cheapest first (prices in {}):\n",
        r.price_region
    ));
    for f in &r.sizes_that_fit {
        o.push_str(&format!(
            "  {:<28} {:>6} GiB  {}\n",
            f.size,
            f.gpu_memory_gib
                .map(sizing::fmt_num)
                .unwrap_or_else(|| "?".into()),
            f.hourly
                .map(|p| format!("${p:.3}/h"))
                .unwrap_or_else(|| "price unknown".into())
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_handles_quotes_and_crlf() {
        let rows = parse_csv("a,b\r\n\"x, \"\"y\"\"\",2\r\n").unwrap();
        assert_eq!(rows, vec![vec!["a", "b"], vec!["x, \"y\"", "2"]]);
        assert!(parse_csv("a,\"b").is_err());
    }

    #[test]
    fn portal_csv_column_names_are_recognised() {
        let s = parse_export(
            "TimeGenerated [UTC],Computer,GpuIndex,MemoryUsedMiB\n2026-12-01T10:00:00Z,vm1,0,2048\n2026-12-01T10:00:00Z,vm1,1,1024\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].time.as_deref(), Some("2026-12-01T10:00:00Z"));
    }

    #[test]
    fn a_missing_column_says_what_to_export() {
        let e = parse_export("[{\"Computer\": \"vm1\"}]").unwrap_err();
        assert!(e.0.contains("MemoryUsedMiB"), "{}", e.0);
    }

    #[test]
    fn impossible_memory_values_are_skipped_and_counted() {
        let csv = "TimeGenerated,Computer,GpuIndex,MemoryUsedMiB\n\
            2026-12-01T10:00:00Z,vm1,0,NaN\n\
            2026-12-01T10:00:00Z,vm1,1,inf\n\
            2026-12-01T10:00:00Z,vm1,2,-1\n\
            2026-12-01T10:00:00Z,vm1,3,1e300\n\
            2026-12-01T10:00:00Z,vm2,0,2048\n";
        let p = read_peaks(csv).unwrap();
        assert_eq!((p.rows, p.impossible), (1, 4));
        let v = p.vm_peaks();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].peak_gib, 2.0);
        assert!(v.iter().all(|x| x.peak_gib.is_finite()));
        // a non-number is still an error, located
        let e = read_peaks("Computer,MemoryUsedMiB\nvm1,lots\n").unwrap_err();
        assert!(e.0.contains("row 1") && e.0.contains("lots"), "{}", e.0);
    }

    #[test]
    fn az_none_is_an_empty_cell_and_the_rest_answer_streams() {
        // az prints Python's None for an empty cell: a health row, skipped
        let p = read_peaks(
            r#"[{"Computer": "vm1", "TimeGenerated": "t1", "MemoryUsedMiB": "None"}, {"Computer": "vm1", "TimeGenerated": "t1", "MemoryUsedMiB": 1024}]"#,
        )
        .unwrap();
        assert_eq!(p.rows, 1);
        let rest = r#"{"tables": [{"name": "PrimaryResult", "columns": [{"name": "TimeGenerated"}, {"name": "Computer"}, {"name": "MemoryUsedMiB"}], "rows": [["t1", "vm1", 512], ["t1", "vm1", null], ["t2", "vm1", 2048.5, "extra"]]}, {"name": "other"}]}"#;
        let p = read_peaks(rest).unwrap();
        assert_eq!(p.rows, 2);
        assert_eq!(p.vm_peaks()[0].at.as_deref(), Some("t2"));
        let e = read_peaks(r#"{"tables": [{"rows": [[1]], "columns": []}]}"#).unwrap_err();
        assert!(e.0.contains("rows before its columns"), "{}", e.0);
        let e = read_peaks(r#"{"nope": 1}"#).unwrap_err();
        assert!(e.0.contains("no `tables`"), "{}", e.0);
        let e = read_peaks("[1, 2]").unwrap_err();
        assert!(e.0.contains("not a query result"), "{}", e.0);
        let e = read_peaks("[{\"a\": ").unwrap_err();
        assert!(e.0.contains("not valid JSON"), "{}", e.0);
    }

    #[test]
    fn a_million_empty_rows_stop_at_the_first() {
        let mut text = "{},".repeat(1_000_000);
        text.pop();
        let start = std::time::Instant::now();
        let e = read_peaks(&format!("[{text}]")).unwrap_err();
        assert!(e.0.contains("no `Computer` column"), "{}", e.0);
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
