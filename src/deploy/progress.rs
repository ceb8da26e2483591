//! Deployment progress on stderr: a table of the deployment operations redrawn in place on a
//! terminal, or timestamped lines (only when something changed) for CI logs.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::azure::deployments::Operation;
use crate::report::ci;

use super::errors::target_label;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Redrawn table (ANSI cursor movement); needs a terminal.
    Live,
    /// `HH:MM:SSZ  state  type  name` lines on changes.
    Plain,
    /// Nothing.
    Quiet,
}

/// One row: what the user sees about one resource.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    resource_type: String,
    name: String,
    state: String,
    duration: Option<Duration>,
}

pub struct Progress {
    mode: Mode,
    styled: bool,
    started: Instant,
    title: String,
    status: String,
    rows: BTreeMap<String, Row>,
    /// Order rows first appeared in.
    order: Vec<String>,
    /// Lines of the table currently on screen (live mode).
    drawn: usize,
    out: Box<dyn Write>,
}

impl Progress {
    pub fn new(mode: Mode, styled: bool, title: impl Into<String>) -> Self {
        Self::with_writer(mode, styled, title, Box::new(std::io::stderr()))
    }

    pub fn with_writer(
        mode: Mode,
        styled: bool,
        title: impl Into<String>,
        out: Box<dyn Write>,
    ) -> Self {
        Self {
            mode,
            styled,
            started: Instant::now(),
            title: title.into(),
            status: String::new(),
            rows: BTreeMap::new(),
            order: Vec::new(),
            drawn: 0,
            out,
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// A one-off line (throttling, a failed poll); printed above the live table.
    pub fn note(&mut self, text: &str) {
        match self.mode {
            Mode::Quiet => {}
            Mode::Plain => {
                let _ = writeln!(self.out, "{}", ci::text(&format!("{}  {text}", clock())));
            }
            Mode::Live => {
                self.clear();
                let _ = writeln!(self.out, "{}", ci::text(text));
                self.draw();
            }
        }
        let _ = self.out.flush();
    }

    /// The deployment's status and its operations, as of this poll.
    pub fn update(&mut self, status: &str, ops: &[Operation]) {
        let mut changed: Vec<String> = Vec::new();
        if status != self.status {
            self.status = status.to_string();
            if self.mode == Mode::Plain {
                let line = format!("{}  deployment {}: {status}", clock(), self.title);
                let _ = writeln!(self.out, "{}", ci::text(&line));
            }
        }
        for op in ops {
            let p = &op.properties;
            let key = p
                .target_resource
                .as_ref()
                .and_then(|t| t.id.clone())
                .unwrap_or_else(|| op.operation_id.clone());
            let (resource_type, name) = target_label(p.target_resource.as_ref());
            let row = Row {
                resource_type,
                name,
                state: p
                    .provisioning_state
                    .clone()
                    .unwrap_or_else(|| "Unknown".into()),
                duration: p.duration.as_deref().and_then(parse_iso_duration),
            };
            match self.rows.get(&key) {
                Some(old) if old.state == row.state => {
                    // a new duration alone is not worth a line
                    self.rows.insert(key, row);
                }
                _ => {
                    if !self.rows.contains_key(&key) {
                        self.order.push(key.clone());
                    }
                    self.rows.insert(key.clone(), row);
                    changed.push(key);
                }
            }
        }
        match self.mode {
            Mode::Quiet => {}
            Mode::Plain => {
                for key in changed {
                    let r = &self.rows[&key];
                    let dur = if is_terminal(&r.state) {
                        r.duration
                            .map(|d| format!("  ({})", fmt_elapsed(d)))
                            .unwrap_or_default()
                    } else {
                        String::new()
                    };
                    let line = format!(
                        "{}  {:<10} {}  {}{dur}",
                        clock(),
                        r.state,
                        r.resource_type,
                        r.name
                    );
                    let _ = writeln!(self.out, "{}", ci::text(&line));
                }
            }
            Mode::Live => {
                self.clear();
                self.draw();
            }
        }
        let _ = self.out.flush();
    }

    /// Leave the last table on screen (live) and end the line discipline.
    pub fn finish(&mut self) {
        self.drawn = 0;
        let _ = self.out.flush();
    }

    fn clear(&mut self) {
        if self.drawn > 0 {
            // up to the first line of the table, then clear to the end of the screen
            let _ = write!(self.out, "\x1b[{}F\x1b[J", self.drawn);
            self.drawn = 0;
        }
    }

    fn draw(&mut self) {
        let mut lines = vec![format!(
            "deploying {}: {} ({})",
            self.title,
            if self.status.is_empty() {
                "Accepted"
            } else {
                &self.status
            },
            fmt_elapsed(self.started.elapsed())
        )];
        let tw = self
            .rows
            .values()
            .map(|r| r.resource_type.len())
            .max()
            .unwrap_or(0);
        let nw = self.rows.values().map(|r| r.name.len()).max().unwrap_or(0);
        // keep the table short on long deployments: finished rows collapse first
        const MAX_ROWS: usize = 24;
        let mut shown: Vec<&String> = self.order.iter().collect();
        let mut hidden = 0;
        if shown.len() > MAX_ROWS {
            let done: Vec<&String> = shown
                .iter()
                .copied()
                .filter(|k| self.rows[*k].state == "Succeeded")
                .collect();
            let drop = (shown.len() - MAX_ROWS).min(done.len());
            let dropped: Vec<&String> = done.into_iter().take(drop).collect();
            hidden = dropped.len();
            shown.retain(|k| !dropped.contains(k));
        }
        if hidden > 0 {
            lines.push(format!("  … {hidden} more succeeded"));
        }
        for k in shown {
            let r = &self.rows[k];
            let (mark, color) = match r.state.as_str() {
                "Succeeded" => ("✓", anstyle::AnsiColor::Green),
                "Failed" => ("✗", anstyle::AnsiColor::Red),
                "Canceled" => ("-", anstyle::AnsiColor::Yellow),
                _ => ("…", anstyle::AnsiColor::Cyan),
            };
            let state = format!("{mark} {:<10}", r.state);
            let state = if self.styled {
                let st = anstyle::Style::new().fg_color(Some(color.into()));
                format!("{st}{state}{st:#}")
            } else {
                state
            };
            let dur = r.duration.map(fmt_elapsed).unwrap_or_default();
            lines.push(format!(
                "  {state} {:<tw$}  {:<nw$}  {dur}",
                r.resource_type, r.name
            ));
        }
        // autowrap off while drawing: a line wider than the terminal is clipped instead of
        // wrapping onto a second row, so moving up `drawn` lines always lands on the table
        let _ = write!(self.out, "\x1b[?7l");
        for l in &lines {
            let _ = writeln!(self.out, "{}", ci::text(l.trim_end()));
        }
        let _ = write!(self.out, "\x1b[?7h");
        self.drawn = lines.len();
    }
}

pub fn is_terminal(state: &str) -> bool {
    matches!(state, "Succeeded" | "Failed" | "Canceled")
}

/// `HH:MM:SSZ` (UTC).
fn clock() -> String {
    let f = time::macros::format_description!("[hour]:[minute]:[second]Z");
    time::OffsetDateTime::now_utc()
        .format(f)
        .unwrap_or_else(|_| "--:--:--Z".into())
}

/// `PT1H2M3.5S` → 3723.5 s (ARM's operation and deployment durations).
pub fn parse_iso_duration(s: &str) -> Option<Duration> {
    let rest = s.strip_prefix("PT").or_else(|| s.strip_prefix("pt"))?;
    let mut secs = 0.0f64;
    let mut num = String::new();
    for c in rest.chars() {
        match c {
            '0'..='9' | '.' => num.push(c),
            'H' | 'M' | 'S' => {
                let v: f64 = num.parse().ok()?;
                num.clear();
                secs += v * match c {
                    'H' => 3600.0,
                    'M' => 60.0,
                    _ => 1.0,
                };
            }
            _ => return None,
        }
    }
    (num.is_empty() && secs.is_finite()).then(|| Duration::from_secs_f64(secs))
}

/// `9.8 s`, `1m 12s`, `1h 02m`.
pub fn fmt_elapsed(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{}m {:02}s", (s / 60.0) as u64, (s as u64) % 60)
    } else {
        format!("{}h {:02}m", (s / 3600.0) as u64, ((s as u64) % 3600) / 60)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::azure::deployments::{OperationProperties, TargetResource};

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Buf {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn op(name: &str, state: &str, duration: &str) -> Operation {
        Operation {
            operation_id: name.into(),
            properties: OperationProperties {
                provisioning_operation: Some("Create".into()),
                provisioning_state: Some(state.into()),
                duration: Some(duration.into()),
                target_resource: Some(TargetResource {
                    id: Some(format!("/x/{name}")),
                    resource_type: Some("Microsoft.Network/virtualNetworks".into()),
                    resource_name: Some(name.into()),
                }),
                ..Default::default()
            },
        }
    }

    #[test]
    fn iso_durations() {
        assert_eq!(
            parse_iso_duration("PT21.0580179S").unwrap().as_millis(),
            21058
        );
        assert_eq!(parse_iso_duration("PT1H2M3S").unwrap().as_secs(), 3723);
        assert_eq!(parse_iso_duration("PT5M").unwrap().as_secs(), 300);
        assert_eq!(parse_iso_duration("5 minutes"), None);
        assert_eq!(fmt_elapsed(Duration::from_millis(9840)), "9.8 s");
        assert_eq!(fmt_elapsed(Duration::from_secs(72)), "1m 12s");
        assert_eq!(fmt_elapsed(Duration::from_secs(3723)), "1h 02m");
    }

    #[test]
    fn plain_mode_prints_only_changes() {
        let buf = Buf::default();
        let mut p = Progress::with_writer(Mode::Plain, false, "d1", Box::new(buf.clone()));
        p.update("Running", &[op("vnet", "Running", "PT1S")]);
        p.update("Running", &[op("vnet", "Running", "PT3S")]);
        p.update(
            "Running",
            &[
                op("vnet", "Succeeded", "PT9.8S"),
                op("nsg", "Running", "PT1S"),
            ],
        );
        let text = buf.text();
        let lines: Vec<&str> = text.lines().map(|l| &l[11..]).collect();
        assert_eq!(
            lines,
            [
                "deployment d1: Running",
                "Running    Microsoft.Network/virtualNetworks  vnet",
                "Succeeded  Microsoft.Network/virtualNetworks  vnet  (9.8 s)",
                "Running    Microsoft.Network/virtualNetworks  nsg",
            ]
        );
    }

    #[test]
    fn live_mode_redraws_in_place() {
        let buf = Buf::default();
        let mut p = Progress::with_writer(Mode::Live, false, "d1", Box::new(buf.clone()));
        p.update("Running", &[op("vnet", "Running", "PT1S")]);
        p.update("Running", &[op("vnet", "Succeeded", "PT2S")]);
        let text = buf.text();
        // the second draw moves up over the 2 lines of the first and clears them
        assert!(text.contains("\x1b[2F\x1b[J"), "{text:?}");
        assert!(
            text.contains("✓ Succeeded  Microsoft.Network/virtualNetworks  vnet  2.0 s"),
            "{text:?}"
        );
    }
}
