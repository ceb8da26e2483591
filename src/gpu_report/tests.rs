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
