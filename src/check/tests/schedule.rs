//! Tests of `spec/schedule.rs` on checked specs (`crate::check::check_source`). They live in the
//! check layer, above the spec: a test inside `spec` that ran the check would import a floor
//! above its own.

use crate::catalog::prices::PriceTable;
use crate::spec::model::{Day, WorkloadSpec};
use crate::spec::schedule::*;

fn spec_of(text: &str) -> WorkloadSpec {
    let checked = crate::check::check_source(
        text.to_string(),
        "t.yaml",
        std::path::PathBuf::from("."),
        &crate::spec::Policy::default(),
        PriceTable::embedded(),
    );
    checked
        .spec
        .unwrap_or_else(|| panic!("{:?}", checked.diagnostics))
        .spec
}

const HEAD: &str = "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata: {name: sched, tags: {project: p, team: t, env: dev, costCenter: c}}\nspec:\n  region: westeurope\n  workload: {type: visualization, gpuMemoryGiB: 6}\n  compute: {vmSize: Standard_NV12ads_A10_v5, image: windows-2022, adminUsername: cadadmin}\n  capacity: {min: 0, max: 10, default: 0}\n  monitoring: {alertEmails: [a@example.com]}\n";

fn recurring(name: &str, tz: &str, days: &[Day], hour: u32, minute: u32, n: u32) -> Profile {
    Profile {
        name: name.into(),
        origin: Origin::ScheduleStart(0),
        recurrence: Some(Recurrence {
            time_zone: tz.into(),
            days: days.to_vec(),
            hour,
            minute,
        }),
        min: n,
        max: n,
        default: n,
        has_rules: false,
    }
}

/// Azure: where two profiles start at the same minute, only the first applicable one is
/// used. The week model must agree (it used to let the later one win).
#[test]
fn at_equal_starts_the_week_follows_the_first_profile_like_azure() {
    let default = Profile {
        recurrence: None,
        origin: Origin::Default,
        ..recurring("default", "UTC", &[], 0, 0, 0)
    };
    let first = recurring("first", "UTC", &[Day::Monday], 10, 0, 3);
    let second = recurring(
        "second",
        "W. Europe Standard Time",
        &[Day::Monday],
        11,
        0,
        7,
    );
    let w = week(&[default, first, second]);
    let at_ten = w
        .iter()
        .find(|s| s.start == 600)
        .expect("a segment at Monday 10:00 UTC");
    assert_eq!(at_ten.profile, 1, "{w:?}");
    assert_eq!(at_ten.end, MINUTES_PER_WEEK);
}

#[test]
fn no_restore_profile_where_another_schedule_starts() {
    let s = spec_of(&format!(
        "{HEAD}  autoscale:\n    schedules:\n      - {{name: office, timeZone: W. Europe Standard Time, days: [Monday, Tuesday, Wednesday, Thursday, Friday], start: \"07:30\", end: \"18:30\", min: 10, max: 10}}\n      - {{name: evening, timeZone: UTC, days: [Monday, Tuesday, Wednesday, Thursday, Friday, Saturday], start: \"17:30\", end: \"21:00\", min: 2, max: 2}}\n"
    ));
    let ps = profiles(&s);
    let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
    // 18:30 in W. Europe is 17:30 UTC: the same instant as `evening`'s start on every day
    assert_eq!(names, ["default", "office", "evening", "evening (end)"]);
    assert!(same_start_conflicts(&s).is_empty());
}

#[test]
fn a_restore_profile_keeps_the_days_no_schedule_starts_on() {
    let s = spec_of(&format!(
        "{HEAD}  autoscale:\n    schedules:\n      - {{name: office, timeZone: UTC, days: [Monday, Tuesday], start: \"08:00\", end: \"18:00\", min: 10, max: 10}}\n      - {{name: evening, timeZone: UTC, days: [Monday], start: \"18:00\", end: \"21:00\", min: 2, max: 2}}\n      - {{name: late, timeZone: UTC, days: [Monday], start: \"22:00\", end: \"23:00\", min: 1, max: 1}}\n"
    ));
    let ps = profiles(&s);
    let end = ps.iter().find(|p| p.name == "office (end)").unwrap();
    assert_eq!(end.recurrence.as_ref().unwrap().days, [Day::Tuesday]);
    // two restores at one instant: the second is redundant
    assert!(ps.iter().any(|p| p.name == "evening (end)"));
}

#[test]
fn two_schedules_starting_at_one_instant_conflict() {
    let s = spec_of(&format!(
        "{HEAD}  autoscale:\n    schedules:\n      - {{name: a, timeZone: W. Europe Standard Time, days: [Monday], start: \"09:00\", end: \"10:00\", min: 1, max: 1}}\n      - {{name: b, timeZone: UTC, days: [Sunday, Monday], start: \"08:00\", end: \"08:30\", min: 2, max: 2}}\n"
    ));
    assert_eq!(
        same_start_conflicts(&s),
        [(Starter::Schedule(0), Starter::Schedule(1), Day::Monday)]
    );
}

#[test]
fn durations() {
    assert_eq!(parse_duration("PT5M"), Some(300));
    assert_eq!(parse_duration("PT1H30M"), Some(5400));
    assert_eq!(parse_duration("P7D"), Some(604800));
    assert_eq!(parse_duration("P1DT1S"), Some(86401));
    assert_eq!(parse_duration("PT"), None);
    assert_eq!(parse_duration("P"), None);
    // one grammar (spec::duration): the short forms too, units in any case
    assert_eq!(parse_duration("5M"), Some(300));
    assert_eq!(parse_duration("5"), None);
    assert_eq!(parse_duration("PT5X"), None);
}

#[test]
fn durations_as_people_write_them() {
    use crate::spec::schedule::{parse_duration_millis as ms, parse_flag_duration};
    for (text, want) in [
        ("2s", 2000),
        ("800ms", 800),
        ("1.5s", 1500),
        ("8m", 480_000),
        ("1h30m", 5_400_000),
        ("1d", 86_400_000),
        ("PT30S", 30_000),
        ("pt2m", 120_000),
        ("PT0.5S", 500),
        ("PT1M0.25S", 60_250),
        (" 300s ", 300_000),
    ] {
        assert_eq!(ms(text), Some(want), "{text}");
    }
    for bad in ["", "s", "2x", "1..5s", "PT", "P", "PT0.1234S", "-3s", "2 s"] {
        assert_eq!(ms(bad), None, "{bad}");
    }
    // the command line's whole seconds: the same parser
    assert_eq!(parse_flag_duration("PT45S"), Some(45));
    assert_eq!(parse_flag_duration("10m"), Some(600));
    assert_eq!(parse_flag_duration("2h30m"), Some(9000));
    assert_eq!(parse_flag_duration("1500ms"), None);
}
