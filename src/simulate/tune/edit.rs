//! Writing a tuned policy back into the spec's YAML text (at the spans its index gives).

use crate::spec::defaults::flap_safe_scale_in;
use crate::spec::model::ScaleOutTier;
use crate::spec::yaml::SpanIndex;

use super::params::Params;

/// A text edit: replace `start..end` with `text`, meaning that the JSON pointer `pointer` of the
/// document becomes `value` (`None`: the key is removed). `unplaced` says why gpuform could not
/// find where the change goes in the text (the proposal is still simulated from the value; the
/// file cannot be written).
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub pointer: String,
    pub value: Option<serde_json::Value>,
    pub unplaced: Option<String>,
}

impl Edit {
    /// An edit gpuform could not place in the text, with why.
    pub fn unplaced(pointer: &str, value: Option<serde_json::Value>, why: String) -> Self {
        Edit {
            start: 0,
            end: 0,
            text: String::new(),
            pointer: pointer.to_string(),
            value,
            unplaced: Some(why),
        }
    }
}

fn tiers_yaml(t: &[ScaleOutTier]) -> String {
    format!(
        "[{}]",
        t.iter()
            .map(|t| format!("{{above: {}, step: {}}}", t.above, t.step))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The JSON a YAML value text means (`30` a number, `PT5M` a string, `[..]` a list).
pub(super) fn meaning(value: &str) -> serde_json::Value {
    crate::spec::yaml::parse(value)
        .map(|p| p.value)
        .unwrap_or(serde_json::Value::Null)
}

/// Set `key` of the mapping at `parent` to `value` (YAML text): replace the value where the key
/// exists (keeping an anchor or tag written before it; a flow or block collection as a whole),
/// else insert the key (flow mapping: after its last entry, before any comment; block mapping: a
/// line after its last entry, at the indentation of its keys). Where the text gives no place, the
/// edit says why ([`Edit::unplaced`]).
pub fn set(
    index: &SpanIndex,
    text: &str,
    parent: &str,
    key: &str,
    value: &str,
) -> Result<Edit, String> {
    let ptr = format!("{parent}/{key}");
    let meant = Some(meaning(value));
    let edit = |start: usize, end: usize, t: String| Edit {
        start,
        end,
        text: t,
        pointer: ptr.clone(),
        value: meant.clone(),
        unplaced: None,
    };
    if let Some(n) = index.spans(&ptr) {
        return Ok(match replace_range(index, text, &ptr, n) {
            Ok((start, end, lead)) => edit(start, end, format!("{lead}{value}")),
            Err(why) => Edit::unplaced(&ptr, meant, why),
        });
    }
    let Some(pspans) = index.spans(parent) else {
        return Ok(Edit::unplaced(
            &ptr,
            meant,
            format!("the spec has no `{}` to add `{key}` to", dotted(parent)),
        ));
    };
    let v = pspans.value;
    let body = text.get(v.byte_start..).unwrap_or("");
    let lead = skip_properties(body);
    if body[lead..].starts_with('{') {
        let open = v.byte_start + lead;
        let Some(flow) = scan_flow(text, open) else {
            return Ok(Edit::unplaced(
                &ptr,
                meant,
                format!(
                    "`{}` is a flow mapping gpuform cannot find the end of",
                    dotted(parent)
                ),
            ));
        };
        let t = match text[..flow.last_end].chars().last() {
            Some('{') => format!("{key}: {value}"),
            Some(',') => format!(" {key}: {value}"),
            _ => format!(", {key}: {value}"),
        };
        return Ok(edit(flow.last_end, flow.last_end, t));
    }
    if body[lead..].starts_with('*') {
        return Ok(Edit::unplaced(
            &ptr,
            meant,
            format!(
                "`{}` is an alias of a mapping written elsewhere (`{}`): adding `{key}` there would change every use of it",
                dotted(parent),
                crate::diag::clip(body[lead..].split_whitespace().next().unwrap_or("*"))
            ),
        ));
    }
    // block mapping: a line after the last key's entry, at the indentation of the keys
    let keys: Vec<crate::diag::Location> = index
        .children(parent)
        .iter()
        .filter_map(|c| index.spans(c).and_then(|s| s.key))
        .collect();
    let Some(first) = keys.iter().min_by_key(|k| k.byte_start) else {
        return Ok(Edit::unplaced(
            &ptr,
            meant,
            format!("`{}` has no keys to align `{key}` with", dotted(parent)),
        ));
    };
    let last = index
        .children(parent)
        .iter()
        .map(|c| furthest(index, c, 0))
        .max()
        .unwrap_or(first.byte_end);
    let line_start = text[..first.byte_start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..first.byte_start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    // the end of the line the last value ends on: a block value (a sequence, a nested mapping)
    // may end after the line break, at the indentation of the next key or even on that key, so
    // step back over the trailing white space first
    let anchor = text[..last.min(text.len())]
        .trim_end()
        .len()
        .max(first.byte_end);
    let eol = text[anchor..]
        .find('\n')
        .map_or(text.len(), |i| anchor + i + 1);
    let prefix = if eol == text.len() && !text.ends_with('\n') {
        "\n"
    } else {
        ""
    };
    Ok(edit(eol, eol, format!("{prefix}{indent}{key}: {value}\n")))
}

/// `/spec/autoscale/queue` as people read it: `spec.autoscale.queue`.
pub(super) fn dotted(ptr: &str) -> String {
    ptr.trim_start_matches('/').replace('/', ".")
}

/// The end of everything below `ptr` (a nested collection's own span may stop at its first line).
pub(super) fn furthest(index: &SpanIndex, ptr: &str, depth: u32) -> usize {
    let mut end = index.spans(ptr).map_or(0, |s| s.value.byte_end);
    if depth < 16 {
        for c in index.children(ptr) {
            end = end.max(furthest(index, &c, depth + 1));
        }
    }
    end
}

/// Bytes of node properties (`&anchor`, `!tag`, and the space after them) at the start of `s`.
fn skip_properties(s: &str) -> usize {
    let mut i = 0;
    loop {
        let rest = &s[i..];
        if rest.starts_with('&') || rest.starts_with('!') {
            let word = rest
                .find(|c: char| c.is_whitespace() || c == ',' || c == '}' || c == ']')
                .unwrap_or(rest.len());
            let after = &rest[word..];
            let ws = after.len() - after.trim_start_matches([' ', '\t']).len();
            if ws == 0 {
                return i + word;
            }
            i += word + ws;
        } else {
            return i;
        }
    }
}

/// What to replace for the existing node at `ptr`: `(start, end, text kept before the value)`.
/// A scalar's own text (an anchor or tag before it kept); a flow collection up to its closing
/// bracket; a block collection from after the key's colon to its last line.
fn replace_range(
    index: &SpanIndex,
    text: &str,
    ptr: &str,
    n: crate::spec::yaml::NodeSpans,
) -> Result<(usize, usize, &'static str), String> {
    let v = n.value;
    if let Some(k) = n.key
        && v.byte_start < k.byte_end
    {
        return Err(format!(
            "`{}` is reached through an alias of a mapping written elsewhere: changing it would change every use of it",
            dotted(ptr)
        ));
    }
    let body = text.get(v.byte_start..).unwrap_or("");
    let lead = skip_properties(body);
    let start = v.byte_start + lead;
    if !n.is_collection {
        return Ok((start, v.byte_end.max(start), ""));
    }
    if body[lead..].starts_with('[') || body[lead..].starts_with('{') {
        let flow = scan_flow(text, start).ok_or_else(|| {
            format!(
                "`{}` is a flow collection gpuform cannot find the end of",
                dotted(ptr)
            )
        })?;
        return Ok((start, flow.close + 1, ""));
    }
    if body[lead..].starts_with('*') {
        // an alias: the new value replaces it (the anchor's own uses keep their value)
        let end = start
            + body[lead..]
                .find(char::is_whitespace)
                .unwrap_or(body.len() - lead);
        return Ok((start, end, ""));
    }
    // a block collection below the key: from after `key:` to the end of its last entry
    let Some(k) = n.key else {
        return Err(format!("`{}` has no key to rewrite", dotted(ptr)));
    };
    let colon = text[k.byte_end..]
        .find(':')
        .map(|i| k.byte_end + i + 1)
        .ok_or_else(|| format!("`{}` has no `:` after its key", dotted(ptr)))?;
    let end = text[..furthest(index, ptr, 0).min(text.len())]
        .trim_end()
        .len();
    if end <= colon {
        return Err(format!("`{}` has no value to rewrite", dotted(ptr)));
    }
    Ok((colon, end, " "))
}

/// Where a flow collection ends: the closing bracket, and the end of its last entry (before any
/// comment or white space ahead of the bracket).
struct Flow {
    close: usize,
    last_end: usize,
}

/// Scan the flow collection opening at `open` (`{` or `[`): quotes (with `\"` and `''`
/// escapes), comments (`#` after white space, to the end of the line) and nesting respected.
fn scan_flow(text: &str, open: usize) -> Option<Flow> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    let mut prev = ' ';
    let mut last_end = open;
    let mut chars = text[open..].char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        let at = open + i;
        if comment {
            if ch == '\n' {
                comment = false;
            }
            prev = ch;
            continue;
        }
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if ch == '\\' && q == '"' {
                escaped = true;
            } else if ch == q {
                if q == '\'' && chars.peek().map(|(_, c)| *c) == Some('\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            last_end = at + ch.len_utf8();
            prev = ch;
            continue;
        }
        match ch {
            '#' if prev.is_whitespace() => comment = true,
            '"' | '\'' => {
                quote = Some(ch);
                last_end = at + 1;
            }
            '{' | '[' => {
                depth += 1;
                last_end = at + 1;
            }
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    let opener = text[open..].chars().next()?;
                    let ok = (opener == '{' && ch == '}') || (opener == '[' && ch == ']');
                    return ok.then_some(Flow {
                        close: at,
                        last_end,
                    });
                }
                last_end = at + 1;
            }
            c if c.is_whitespace() => {}
            _ => last_end = at + ch.len_utf8(),
        }
        prev = ch;
    }
    None
}

/// The edits that turn `before` into `p`.
pub fn edits(
    before: &Params,
    p: &Params,
    explicit_below: bool,
    index: &SpanIndex,
    text: &str,
) -> Result<Vec<Edit>, String> {
    let q = "/spec/autoscale/queue";
    let a = "/spec/autoscale";
    let mut v = Vec::new();
    if p.target_per_instance != before.target_per_instance {
        v.push(set(
            index,
            text,
            q,
            "targetPerInstance",
            &p.target_per_instance.to_string(),
        )?);
        if explicit_below {
            let safe = flap_safe_scale_in(p.target_per_instance, p.lowest_min());
            v.push(set(
                index,
                text,
                q,
                "scaleInBelow",
                &p.scale_in_below.min(safe).to_string(),
            )?);
        }
    }
    if p.scale_out_step != before.scale_out_step {
        v.push(set(
            index,
            text,
            q,
            "scaleOutStep",
            &p.scale_out_step.to_string(),
        )?);
    }
    if p.scale_out_aggregation != before.scale_out_aggregation {
        v.push(set(
            index,
            text,
            q,
            "scaleOutAggregation",
            p.scale_out_aggregation.as_str(),
        )?);
    }
    if p.scale_out_tiers != before.scale_out_tiers {
        v.push(set(
            index,
            text,
            q,
            "scaleOutTiers",
            &tiers_yaml(&p.scale_out_tiers),
        )?);
    }
    for (key, new, old) in [
        (
            "scaleOutCooldown",
            p.scale_out_cooldown_minutes,
            before.scale_out_cooldown_minutes,
        ),
        (
            "scaleInCooldown",
            p.scale_in_cooldown_minutes,
            before.scale_in_cooldown_minutes,
        ),
        (
            "timeWindow",
            p.time_window_minutes,
            before.time_window_minutes,
        ),
    ] {
        if new != old {
            v.push(set(index, text, a, key, &format!("PT{new}M"))?);
        }
    }
    if p.capacity_min != before.capacity_min {
        v.push(set(
            index,
            text,
            "/spec/capacity",
            "min",
            &p.capacity_min.to_string(),
        )?);
    }
    if let (Some(new), Some(old)) = (p.capacity_default, before.capacity_default)
        && new != old
        && index.spans("/spec/capacity/default").is_some()
    {
        v.push(set(
            index,
            text,
            "/spec/capacity",
            "default",
            &new.to_string(),
        )?);
    }
    for (i, (new, old)) in p
        .schedule_defaults
        .iter()
        .zip(&before.schedule_defaults)
        .enumerate()
    {
        let ptr = format!("/spec/autoscale/schedules/{i}");
        if let (Some(new), Some(old)) = (new, old)
            && new != old
            && index.spans(&format!("{ptr}/default")).is_some()
        {
            v.push(set(index, text, &ptr, "default", &new.to_string())?);
        }
    }
    for (i, (new, old)) in p
        .schedule_mins
        .iter()
        .zip(&before.schedule_mins)
        .enumerate()
    {
        if new != old {
            v.push(set(
                index,
                text,
                &format!("/spec/autoscale/schedules/{i}"),
                "min",
                &new.to_string(),
            )?);
        }
    }
    Ok(v)
}

/// Apply edits (back to front, so earlier offsets stay valid; inserts at the same place keep
/// their order), with the text's own line ends (a CRLF file gets CRLF lines). Edits gpuform could
/// not place ([`Edit::unplaced`]) are left out: [`super::rewrite`] refuses such a text.
pub fn apply_edits(text: &str, edits: Vec<Edit>) -> String {
    let crlf = text.contains("\r\n");
    let mut out = text.to_string();
    // back to front; at equal starts the later edit goes in first so the first ends up first
    let mut idx: Vec<usize> = (0..edits.len())
        .filter(|&i| edits[i].unplaced.is_none())
        .collect();
    idx.sort_by(|&a, &b| edits[b].start.cmp(&edits[a].start).then(b.cmp(&a)));
    for i in idx {
        let e = &edits[i];
        let t = if crlf {
            e.text.replace("\r\n", "\n").replace('\n', "\r\n")
        } else {
            e.text.clone()
        };
        out.replace_range(e.start..e.end, &t);
    }
    out
}
