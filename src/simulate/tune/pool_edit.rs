//! The spec edits that give it the standby pool `--tune` chose ([`pool_edits`]): `maxReady`
//! (and `minReady` where written) set, or the `standby` block removed for no pool.

use super::score::Job;

/// Remove the YAML block at `ptr` (its key's line to the next line indented no deeper).
fn remove_block(job: &Job, ptr: &str) -> Result<super::edit::Edit, String> {
    let text = job.source;
    let key = job
        .checked
        .index
        .spans(ptr)
        .and_then(|s| s.key)
        .ok_or_else(|| format!("the spec has no `{ptr}` to remove"))?;
    let start = text[..key.byte_start].rfind('\n').map_or(0, |i| i + 1);
    let indent = key.byte_start - start;
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i + 1);
    let mut end = line_end(key.byte_start);
    while end < text.len() {
        let line = &text[end..line_end(end)];
        let content = line.trim_start();
        if !content.trim().is_empty() && line.len() - content.len() <= indent {
            break;
        }
        end = line_end(end);
    }
    Ok(super::edit::Edit {
        start,
        end,
        text: String::new(),
        pointer: ptr.to_string(),
        value: None,
        unplaced: None,
    })
}

/// The edits that give the spec a pool of `m` (`maxReady = minReady = m`; 0: no pool).
pub(super) fn pool_edits(job: &Job, m: u32) -> Result<Vec<super::edit::Edit>, String> {
    const AT: &str = "/spec/autoscale/standby";
    let Some(sb) = job
        .input
        .spec
        .spec
        .autoscale
        .as_ref()
        .and_then(|a| a.standby.as_ref())
    else {
        return Ok(Vec::new());
    };
    if m == 0 {
        return remove_block(job, AT).map(|e| vec![e]);
    }
    let (index, text) = (&job.checked.index, job.source);
    let mut v = Vec::new();
    if sb.max_ready != m {
        v.push(super::edit::set(
            index,
            text,
            AT,
            "maxReady",
            &m.to_string(),
        )?);
    }
    // `minReady` as written (the model fills it in with `maxReady` when absent)
    if index.spans(&format!("{AT}/minReady")).is_some() && sb.min_ready() != m {
        v.push(super::edit::set(
            index,
            text,
            AT,
            "minReady",
            &m.to_string(),
        )?);
    }
    Ok(v)
}
