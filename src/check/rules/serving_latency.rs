//! `serving.latencyP95` against what one request takes (issue 36, item 3): a target below the
//! service time's own p95 can be met by no number of instances (`simulate --tune` finds no
//! policy, the latency alert fires all day), and the spread `serviceTimeP95` /
//! `outputTokensP95` that says how much requests vary.
//!
//! Without a measured spread the simulator takes the exponential, whose p95 is ln 20 ≈ 3.0 ×
//! its mean: conservative for LLM completions (Azure's LLM inference trace 2023, conversation
//! service: generated tokens p95 451 = 2.14 × the mean 211; Azure/AzurePublicDataset
//! data/AzureLLMInferenceTrace_conv.csv @ b469a11, read 2026-12-05), not for every service
//! (the same trace's code service: p95 = 3.2 × the mean).

use crate::diag::Diagnostic;
use crate::plan::serving::{service_time, service_time_p95};
use crate::spec::model::Serving;
use crate::spec::schedule::parse_duration_millis;

const AT: &str = "/spec/serving";

/// ln 20: an exponential's p95 over its mean.
const EXP_P95: f64 = 2.995_732_273_553_991;

/// The target gpuform suggests: the service's p95 with a quarter more for waiting, in whole
/// seconds.
fn suggested(service_p95: f64) -> u64 {
    (service_p95 * 1.25).ceil() as u64
}

pub fn check(sv: &Serving, out: &mut Vec<Diagnostic>) {
    spread(sv, out);
    let Some((mean, how)) = service_time(sv).filter(|(m, _)| *m > 0.0) else {
        return;
    };
    let measured = service_time_p95(sv).filter(|(p, _)| *p >= mean);
    // the p95 the simulator takes: measured (at most the exponential's), else the exponential's
    let (p95, what) = match &measured {
        Some((p, from)) => (p.min(mean * EXP_P95), from.clone()),
        None => (
            mean * EXP_P95,
            format!(
                "exponential: {} s x ln 20, as simulate assumes without serviceTimeP95",
                crate::sizing::fmt_num((mean * 1000.0).round() / 1000.0)
            ),
        ),
    };
    let Some(target) = sv
        .latency_p95
        .as_deref()
        .and_then(parse_duration_millis)
        .filter(|ms| *ms > 0)
        .map(|ms| ms as f64 / 1000.0)
    else {
        return;
    };
    if target < p95 {
        let help = if measured.is_some() {
            format!(
                "raise latencyP95 to at least {}s (the service's p95 with a quarter more for waiting), or make requests faster",
                suggested(p95)
            )
        } else {
            format!(
                "raise latencyP95 to at least {}s (the service's p95 with a quarter more for waiting); or measure the p95 of one request at that concurrency and give it as `serviceTimeP95` (LLM completions usually vary less than exponentially: Azure's conversation trace has p95 = 2.1 x the mean output tokens)",
                suggested(p95)
            )
        };
        out.push(
            Diagnostic::new(
                "serving-latency-unreachable",
                format!(
                    "latencyP95 {} is below what one request takes at p95 without any wait: {:.1} s ({how}; {what}); no number of instances meets it",
                    sv.latency_p95.as_deref().unwrap_or_default(),
                    p95
                ),
            )
            .at(format!("{AT}/latencyP95"))
            .label(format!("the service alone: {p95:.1} s at p95"))
            .help(help),
        );
    }
}

/// `serviceTimeP95` / `outputTokensP95`: with the mean they spread, at or above it, and at
/// most the exponential's spread the simulator models.
fn spread(sv: &Serving, out: &mut Vec<Diagnostic>) {
    let err = |ptr: &str, msg: String, help: &str| {
        Diagnostic::new("serving-service-spread", msg)
            .at(format!("{AT}/{ptr}"))
            .help(help.to_string())
            .locked()
    };
    if let Some(t) = sv.service_time_p95.as_deref() {
        if parse_duration_millis(t).is_none_or(|ms| ms == 0) {
            out.push(
                Diagnostic::new(
                    "serving-duration-invalid",
                    format!(
                        "serving.serviceTimeP95 `{}` is not a duration of more than zero",
                        crate::diag::clip(t)
                    ),
                )
                .at(format!("{AT}/serviceTimeP95"))
                .help("write it like 9s, 8500ms or PT9S")
                .locked(),
            );
            return;
        }
        if sv.service_time.is_none() {
            out.push(err(
                "serviceTimeP95",
                "serviceTimeP95 spreads serviceTime, and serving gives no serviceTime".into(),
                "give `serviceTime` (the mean) beside it, or with tokensPerSecond use `outputTokensP95`",
            ));
            return;
        }
    }
    if sv.output_tokens_p95.is_some() && sv.output_tokens.is_none() {
        out.push(err(
            "outputTokensP95",
            "outputTokensP95 spreads outputTokens, and serving gives no outputTokens".into(),
            "give `outputTokens` (the mean) and `tokensPerSecond` beside it, or with serviceTime use `serviceTimeP95`",
        ));
        return;
    }
    let (Some((mean, _)), Some((p95, from))) = (service_time(sv), service_time_p95(sv)) else {
        return;
    };
    let field = if sv.service_time.is_some() {
        "serviceTimeP95"
    } else {
        "outputTokensP95"
    };
    if p95 < mean {
        out.push(err(
            field,
            format!(
                "{from} puts the p95 ({p95:.2} s) below the mean ({mean:.2} s): the simulator's spread goes from a constant time (p95 = the mean) to the exponential (3.0 x the mean)"
            ),
            "give the p95 of the same measurement as the mean (e.g. vLLM benchmark_serving at --max-concurrency: the mean and p95 of the end-to-end latency)",
        ));
    } else if p95 > mean * EXP_P95 * 1.001 {
        out.push(
            Diagnostic::new(
                "serving-service-spread-tail",
                format!(
                    "{from} is {:.1} x the mean, a heavier tail than the exponential's (3.0 x): simulate models at most the exponential's spread, which is then optimistic about the slowest requests",
                    p95 / mean
                ),
            )
            .at(format!("{AT}/{field}"))
            .label("simulated as exponential")
            .help("keep it (the figures are optimistic for the tail), or cap long requests (max_tokens) so they vary less"),
        );
    }
}
