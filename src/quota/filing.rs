//! Filing quota requests: list the asks, ask (or not), submit and follow each request, print the
//! outcome (`gpuform quota request` and `preflight --request-quota`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::io::IsTerminal;

use serde_json::json;

use super::{Ask, Outcome, Polling, State};
use crate::azure::{Arm, ArmError};
use crate::deploy::ask::confirm;
use crate::diag::failure::{DECLINED, ExitCode, Failure};

/// Whether to submit: never (a dry run), after asking, or at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    DryRun,
    Ask,
    Submit,
}

/// Is there a person to ask? (a terminal on stdin and stderr, and not CI)
pub fn interactive() -> bool {
    std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
}

/// Where the requests go and where the result is printed.
pub struct Filing<'a> {
    pub rt: &'a tokio::runtime::Runtime,
    pub arm: &'a Arm,
    pub subscription: &'a str,
    /// The portal of the subscription's cloud (for the next steps).
    pub portal: &'a str,
    /// The failure for an ARM error (naming the credential used).
    pub fail: &'a dyn Fn(&ArmError) -> Failure,
    /// Prints on stdout.
    pub out: &'a dyn Fn(&str),
}

fn ask_line(a: &Ask) -> String {
    format!(
        "  {:<40} {:>6} -> {:<6} (usage {}, +{})",
        format!("{} ({})", a.label, a.quota),
        a.current_limit,
        a.new_limit,
        a.current_usage,
        (a.new_limit - a.current_limit).max(0)
    )
}

/// List the asks, ask (or not), submit and follow them, print the outcome. Shared with
/// `preflight --request-quota`.
pub fn file(
    f: &Filing,
    asks: &[Ask],
    region: &str,
    mode: Mode,
    polling: Polling,
    json: bool,
) -> Result<ExitCode, Failure> {
    let (rt, out) = (f.rt, f.out);
    if asks.is_empty() {
        let msg =
            format!("quota in {region} already covers the spec at peak scale; nothing to request");
        match json {
            true => out(&json_doc(region, true, &[])),
            false => out(&format!("{msg}\n")),
        }
        return Ok(ExitCode::Ok);
    }
    crate::ci_eprintln!(
        "quota: the spec needs these limits in {region} (subscription {}):",
        f.subscription
    );
    for a in asks {
        crate::ci_eprintln!("{}", ask_line(a));
    }
    let submit = match mode {
        Mode::DryRun => false,
        Mode::Submit => true,
        Mode::Ask => confirm(&format!(
            "Request {} quota increase{}? [y/N] ",
            asks.len(),
            if asks.len() == 1 { "" } else { "s" }
        )),
    };
    if !submit {
        let outcomes: Vec<Outcome> = asks
            .iter()
            .map(|a| Outcome {
                ask: a.clone(),
                state: State::NotSubmitted,
                message: None,
                request_id: None,
            })
            .collect();
        match json {
            true => out(&json_doc(region, true, &outcomes)),
            false => {
                let mut s = String::from("dry run: nothing was requested. To file these:\n");
                s.push_str("  gpuform quota request SPEC --submit\n");
                for a in asks {
                    s.push_str(&format!(
                        "  az quota create --resource-name \"{}\" --scope /subscriptions/{}/providers/Microsoft.Compute/locations/{} --limit-object value={} --resource-type {}\n",
                        a.quota, f.subscription, a.region, a.new_limit,
                        crate::facts::quota::resource_type(&a.quota)
                    ));
                }
                out(&s);
            }
        }
        return Ok(if mode == Mode::Ask {
            crate::ci_eprintln!("quota: not confirmed; nothing was requested");
            DECLINED
        } else {
            ExitCode::Ok
        });
    }
    let mut outcomes: Vec<Outcome> = Vec::new();
    let work = async {
        for a in asks {
            let mut note = |s: String| crate::ci_eprintln!("quota: {s}");
            let o = super::submit(f.arm, a, polling, &mut note).await?;
            crate::ci_eprintln!("quota: {} in {}: {}", a.quota, a.region, o.state.label());
            outcomes.push(o);
        }
        Ok::<(), ArmError>(())
    };
    let res = rt.block_on(async {
        tokio::select! {
            r = work => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    match res {
        None => {
            crate::ci_eprintln!(
                "\nquota: interrupted; requests already submitted keep going in Azure. See them with:\n  az quota request list --scope /subscriptions/{}/providers/Microsoft.Compute/locations/{region}",
                f.subscription
            );
            return Ok(ExitCode::Interrupted);
        }
        Some(Err(e)) => return Err((f.fail)(&e)),
        Some(Ok(())) => {}
    }
    match json {
        true => out(&json_doc(region, false, &outcomes)),
        false => {
            let mut s = String::new();
            for o in &outcomes {
                s.push_str(&format!(
                    "{:<24} {} in {}: {} -> {}{}\n",
                    o.state.label(),
                    o.ask.label,
                    o.ask.region,
                    o.ask.current_limit,
                    o.ask.new_limit,
                    o.request_id
                        .as_deref()
                        .map(|i| format!(" (request {i})"))
                        .unwrap_or_default()
                ));
                if let Some(m) = &o.message {
                    s.push_str(&format!("  {m}\n"));
                }
                for step in super::next_steps(o, f.portal, f.subscription) {
                    s.push_str(&format!("  next: {step}\n"));
                }
            }
            out(&s);
        }
    }
    Ok(if outcomes.iter().all(|o| o.state == State::Approved) {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}

fn json_doc(region: &str, dry_run: bool, outcomes: &[Outcome]) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({
            "schemaVersion": 1,
            "region": region,
            "dryRun": dry_run,
            "requests": outcomes,
        }))
        .expect("serialises")
    )
}
