//! Regions, tags, dev/test hygiene, budget and notifications.

use super::context::Context;
use crate::catalog::regions;
use crate::diag::Diagnostic;
use crate::spec::schema::suggest;
use crate::spec::yaml::escape_pointer;

/// `env` tag values that mark a non-production pool.
const DEV_ENVS: &[&str] = &[
    "dev",
    "development",
    "test",
    "testing",
    "sandbox",
    "lab",
    "qa",
    "experiment",
    "staging",
];

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let spec = ctx.spec;
    let s = &spec.spec;
    // --- regions ---------------------------------------------------------------------
    let mut regions: Vec<(String, &str)> = vec![("/spec/region".into(), s.region.as_str())];
    for (i, r) in s.alternate_regions.iter().enumerate() {
        regions.push((format!("/spec/alternateRegions/{i}"), r.as_str()));
    }
    for (ptr, r) in &regions {
        if !regions::is_known(r) {
            // a spelling of a known region (`West Europe`), or one typo away from one: an error
            // with the fix; a name close to none may be a region newer than gpuform's list
            let arm = regions::arm_name(r);
            let near = if regions::is_known(&arm) {
                Some(
                    regions::REGIONS
                        .iter()
                        .copied()
                        .find(|k| *k == arm)
                        .unwrap_or_default(),
                )
            } else {
                suggest(&arm, regions::REGIONS.iter().copied())
            };
            out.push(match near {
                Some(fix) => Diagnostic::new("region-typo", format!("`{r}` is not an Azure region; did you mean `{fix}`?"))
                    .at(ptr.clone())
                    .label(format!("did you mean `{fix}`?"))
                    .help(format!("write `{fix}` (region names are lowercase without spaces, as `az account list-locations -o table` prints them)")),
                None => Diagnostic::new("unknown-region", format!("`{r}` is not an Azure region gpuform knows"))
                    .at(ptr.clone())
                    .help("region names are lowercase without spaces, as `az account list-locations -o table` prints them; a region newer than gpuform's list is checked live by `gpuform preflight`"),
            });
        }
        if let Some(allowed) = &s.allowed_regions
            && !allowed.iter().any(|a| a == r)
        {
            out.push(
                Diagnostic::new(
                    "region-not-allowed",
                    format!("`{r}` is not in allowedRegions"),
                )
                .at(ptr.clone())
                .label("outside the data residency list")
                .help(format!("use one of {}", allowed.join(", "))),
            );
        }
    }
    // --- tags ------------------------------------------------------------------------
    let tags = &spec.metadata.tags;
    let missing: Vec<&String> = ctx
        .policy
        .required_tags
        .iter()
        .filter(|t| !tags.keys().any(|k| k.eq_ignore_ascii_case(t)))
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(
            Diagnostic::new("tag-missing", format!("required tag{list_s} {list} {is} missing", list_s = if missing.len() == 1 { "" } else { "s" }, is = if missing.len() == 1 { "is" } else { "are" }))
                .at(if tags.is_empty() { "/metadata" } else { "/metadata/tags" })
                .help(format!(
                    "add them under metadata.tags, e.g. `{}: ...`; the policy (--required-tags / --policy) decides which are required",
                    missing[0]
                )),
        );
    }
    // (lengths are the schema's)
    for k in tags.keys() {
        if k.chars().any(|c| "<>%&\\?/".contains(c)) {
            out.push(
                Diagnostic::new(
                    "tag-invalid",
                    format!("tag name `{k}` contains a character Azure refuses (< > % & \\ ? /)"),
                )
                .at_key(format!("/metadata/tags/{}", escape_pointer(k)))
                .label("tag name")
                .help("rename the tag"),
            );
        }
    }
    // --- dev/test pools scale to zero ---------------------------------------------------
    let env = tags
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("env") || k.eq_ignore_ascii_case("environment"))
        .map(|(_, v)| v.to_ascii_lowercase());
    if let Some(env) = env {
        let zero_schedule = s.autoscale.as_ref().is_some_and(|a| {
            a.schedules
                .iter()
                .any(|x| x.max == 0 || (x.min == 0 && a.queue.is_some()))
        });
        if DEV_ENVS.contains(&env.as_str())
            && s.auto_shutdown.is_none()
            && !zero_schedule
            && s.capacity.min > 0
        {
            out.push(
                Diagnostic::new("dev-without-shutdown", format!("a `{env}` pool keeps {} GPU VM(s) running nights and weekends", s.capacity.min))
                    .at("/spec")
                    .help("add `autoShutdown: {time: \"19:00\", timeZone: ..., weekends: true}` or a schedule with min 0"),
            );
        }
    }
    // --- budget and notifications ------------------------------------------------------------
    let m = &s.monitoring;
    if let Some(b) = &m.budget {
        let t = &b.alert_at_percent;
        // (the schema keeps them positive)
        if t.windows(2).any(|w| w[0] >= w[1]) {
            let d = Diagnostic::new(
                "budget-thresholds",
                format!("budget thresholds {t:?} are not strictly ascending"),
            )
            .at("/spec/monitoring/budget/alertAtPercent")
            .help("list percentages in ascending order, e.g. [50, 80, 100]");
            // a threshold given twice names one notification twice: the template cannot hold it
            let twice = t
                .iter()
                .enumerate()
                .any(|(i, a)| t[..i].iter().any(|b| a.to_string() == b.to_string()));
            out.push(if twice { d.locked() } else { d });
        }
        // an existing action group is a contact group (budgets' contactGroups)
        if m.alert_emails.is_empty() && m.existing_action_groups.is_empty() {
            out.push(
                Diagnostic::new(
                    "budget-no-contacts",
                    "the budget notifies nobody, and Azure refuses a resource-group budget notification without contact e-mails",
                )
                .at("/spec/monitoring/budget")
                .help("add `monitoring.alertEmails` or `monitoring.existingActionGroups` (where a policy downgrades this rule, the budget is rendered without notifications)"),
            );
        }
    } else if m.alert_emails.is_empty() && m.existing_action_groups.is_empty() {
        out.push(
            Diagnostic::new(
                "alert-emails-missing",
                "nobody is notified of autoscale failures, capacity alerts or spend",
            )
            .at("/spec/monitoring")
            .help("add `monitoring.alertEmails: [team@example.com]`"),
        );
    }
}
