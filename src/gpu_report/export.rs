//! Reading an export of the GPU table: the JSON forms (`az`, REST) streamed row by row, the
//! portal's CSV, and the checks on each row's memory value.

use serde_json::Value;

/// One row of the export: one GPU of one VM at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub computer: String,
    pub time: Option<String>,
    pub gpu: Option<String>,
    pub used_mib: f64,
}

/// Why an export cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(pub String);

pub(super) fn err(s: impl Into<String>) -> ExportError {
    ExportError(s.into())
}

/// The column names an export may use (the portal's CSV adds ` [UTC]` to datetime columns).
pub(super) fn canonical(name: &str) -> &str {
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
pub(super) fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, ExportError> {
    let mut out = Vec::new();
    csv_records(text, |r| {
        out.push(r.clone());
        Ok(())
    })?;
    Ok(out)
}

/// A `MemoryUsedMiB` cell as a value to measure: `Ok(None)` for an impossible value (NaN,
/// infinite, negative, above [`MAX_GPU_MIB`]), which is skipped and counted.
pub(super) fn memory_value(row: usize, text: &str) -> Result<Option<f64>, ExportError> {
    let v: f64 = text.trim().parse().map_err(|_| {
        err(format!(
            "row {row}: MemoryUsedMiB `{}` is not a number",
            crate::diag::clip(text)
        ))
    })?;
    Ok((v.is_finite() && (0.0..=MAX_GPU_MIB).contains(&v)).then_some(v))
}
