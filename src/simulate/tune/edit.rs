//! Writing a tuned policy back into the spec's YAML text (at the spans its index gives).

use crate::spec::defaults::flap_safe_scale_in;
use crate::spec::model::ScaleOutTier;
use crate::spec::yaml::SpanIndex;

use super::params::Params;

/// A text edit: replace `start..end` with `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
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

/// Set `key` of the mapping at `parent` to `value` (YAML text): replace the value where the key
/// exists, else insert the key (flow mapping: before its `}`; block mapping: a line after its
/// last entry, at the indentation of its keys).
pub fn set(
    index: &SpanIndex,
    text: &str,
    parent: &str,
    key: &str,
    value: &str,
) -> Result<Edit, String> {
    let ptr = format!("{parent}/{key}");
    if let Some(n) = index.spans(&ptr) {
        return Ok(Edit {
            start: n.value.byte_start,
            end: n.value.byte_end,
            text: value.to_string(),
        });
    }
    let pspans = index
        .spans(parent)
        .ok_or_else(|| format!("the spec has no `{parent}` to add `{key}` to"))?;
    let v = pspans.value;
    let body = text.get(v.byte_start..v.byte_end).unwrap_or("");
    if body.trim_start().starts_with('{') {
        let open = v.byte_start + (body.len() - body.trim_start().len());
        let close = matching_brace(text, open)
            .ok_or_else(|| format!("`{parent}` is a flow mapping without its `}}`"))?;
        let empty = text[open + 1..close].trim().is_empty();
        // after the last entry, before any space ahead of the `}`
        let at = open + 1 + text[open + 1..close].trim_end().len();
        return Ok(Edit {
            start: at,
            end: at,
            text: if empty {
                format!("{key}: {value}")
            } else {
                format!(", {key}: {value}")
            },
        });
    }
    // block mapping: a line after the last key's entry, at the indentation of the keys
    let keys: Vec<crate::diag::Location> = index
        .children(parent)
        .iter()
        .filter_map(|c| index.spans(c).and_then(|s| s.key))
        .collect();
    let first = keys
        .iter()
        .min_by_key(|k| k.byte_start)
        .ok_or_else(|| format!("`{parent}` has no keys to align `{key}` with"))?;
    // the end of the mapping's last entry: the furthest end of any node below it (a nested
    // collection's own span may stop short of its last entry)
    fn furthest(index: &SpanIndex, ptr: &str, depth: u32) -> usize {
        let mut end = index.spans(ptr).map_or(0, |s| s.value.byte_end);
        if depth < 16 {
            for c in index.children(ptr) {
                end = end.max(furthest(index, &c, depth + 1));
            }
        }
        end
    }
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
    Ok(Edit {
        start: eol,
        end: eol,
        text: format!("{prefix}{indent}{key}: {value}\n"),
    })
}

/// The `}` that closes the flow mapping opening at `open` (quotes and nesting respected).
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, ch) in text[open..].char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if ch == '\\' && q == '"' {
                escaped = true;
            } else if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '"' | '\'' => quote = Some(ch),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (ch == '}').then_some(open + i);
                }
            }
            _ => {}
        }
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
/// their order).
pub fn apply_edits(text: &str, edits: Vec<Edit>) -> String {
    let mut out = text.to_string();
    // back to front; at equal starts the later edit goes in first so the first ends up first
    let mut idx: Vec<usize> = (0..edits.len()).collect();
    idx.sort_by(|&a, &b| edits[b].start.cmp(&edits[a].start).then(b.cmp(&a)));
    for i in idx {
        let e = &edits[i];
        out.replace_range(e.start..e.end, &e.text);
    }
    out
}
