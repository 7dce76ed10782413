//! The study's reporting: goals judged from synthetic figures both ways, the checker's
//! refusals, and the page.

use super::lookups::{Keys, LookupReport, Pair};
use super::open::OpenTimes;
use super::processes::{CliRuns, ProcessRun};
use super::{Access, FileReport, FileSize, MappedReport, Settings};
use crate::record::conditions::Api;
use crate::record::{Machine, Role, Verdict};

fn open_times(open_ms: f64) -> OpenTimes {
    let v = |x: f64| vec![x, x * 1.01, x * 0.99];
    OpenTimes {
        open_ms: v(open_ms),
        verify_ms: v(300.0),
        read_ms: v(250.0),
        load_ms: v(900.0),
        cold_read_ms: v(1000.0),
        cold_verify_ms: v(1020.0),
        cold_first_us: v(400.0),
        warm_first_us: v(150.0),
        resident_after_eviction: vec![0.0; 3],
    }
}

fn file(size: FileSize, mapped_over_loaded: f64, pss_each: u64) -> FileReport {
    let bytes = 1_300_000_000;
    let pairs = [Api::OneAtATime, Api::Batched]
        .into_iter()
        .flat_map(|api| Keys::ALL.into_iter().map(move |keys| (api, keys)))
        .map(|(api, keys)| Pair {
            api,
            keys,
            loaded_ns: vec![40.0, 41.0, 39.0],
            mapped_ns: vec![
                40.0 * mapped_over_loaded,
                41.0 * mapped_over_loaded,
                39.0 * mapped_over_loaded,
            ],
        })
        .collect();
    FileReport {
        size,
        declared: 1_000_000_000,
        bytes,
        open: open_times(0.05),
        lookups: LookupReport {
            pairs,
            loaded_huge_pages: Some(0.9),
            checked: 20_000_000,
            disagreements: 0,
            false_negatives: 0,
            strangers: 10_000_000,
            false_positives: 0,
        },
        processes: vec![ProcessRun {
            access: Access::Mapped,
            lookups: 2_000_000,
            pss: vec![pss_each; 8],
            rss: vec![bytes; 8],
        }],
        cli: (size == FileSize::Large).then(|| CliRuns {
            cold_ms: vec![5.0, 6.0, 5.5],
            warm_ms: vec![2.0, 2.1, 2.2],
            cold_peak_rss: vec![4_000_000; 3],
            warm_peak_rss: vec![4_000_000; 3],
        }),
    }
}

/// A report whose goals are computed from figures that meet them (`good`) or miss them.
pub fn fixture(good: bool) -> MappedReport {
    let (ratio, pss_each) = if good {
        (1.0, 1_300_000_000 / 8 + 1_000_000)
    } else {
        (1.5, 1_300_000_000 / 4)
    };
    let mut settings = Settings::full(10_000_000);
    settings.open_rounds = 3;
    let mut r = MappedReport {
        machine: Machine::default(),
        settings,
        files: vec![file(FileSize::Large, ratio, pss_each)],
        loops: Vec::new(),
        goals: Vec::new(),
    };
    r.goals = crate::judge::targets::mapped::goals(&r);
    r
}

fn verdicts(r: &MappedReport, word: &str) -> Vec<Verdict> {
    r.goals
        .iter()
        .filter(|g| g.role == Role::Target && g.what.contains(word))
        .map(|g| g.verdict)
        .collect()
}

#[test]
fn figures_within_the_goals_meet_them_and_figures_beyond_miss_them() {
    let good = fixture(true);
    let bad = fixture(false);
    assert_eq!(verdicts(&good, "lookups"), vec![Verdict::Met; 4]);
    assert_eq!(verdicts(&bad, "lookups"), vec![Verdict::NotMet; 4]);
    assert_eq!(verdicts(&good, "PSS"), vec![Verdict::Met]);
    assert_eq!(verdicts(&bad, "PSS"), vec![Verdict::NotMet]);
    assert_eq!(verdicts(&good, "without verification"), vec![Verdict::Met]);
    assert_eq!(verdicts(&good, "cold, wall"), vec![Verdict::Met]);
    // Only the page size differs between mapped and loaded lookups.
    let lookup = good
        .goals
        .iter()
        .find(|g| g.what.contains("lookups"))
        .unwrap();
    assert_eq!(lookup.differences, "huge pages on 0% vs 90% of the table");
    let open = good
        .goals
        .iter()
        .find(|g| g.what.contains("without"))
        .unwrap();
    assert!(open.same_conditions, "{}", open.differences);
}

#[test]
fn the_checker_accepts_the_report_and_refuses_each_fault() {
    let good = fixture(true);
    assert_eq!(crate::check::mapped::problems(&good), Vec::<String>::new());
    let mut wrong = good.clone();
    wrong.files[0].lookups.disagreements = 1;
    assert!(crate::check::mapped::problems(&wrong)[0].contains("answered differently"));
    // A run whose drops left the file cached: its cold rows are not measured, and a report
    // that judged them anyway is refused.
    let mut warm = good.clone();
    warm.files[0].open.resident_after_eviction[1] = 0.5;
    let judged = crate::judge::targets::mapped::goals(&warm);
    let cold: Vec<_> = judged.iter().filter(|g| g.what.contains("cold")).collect();
    assert_eq!(cold.len(), 3);
    assert!(
        cold.iter().all(|g| g.verdict == Verdict::NotMeasured),
        "{cold:?}"
    );
    assert!(cold[0].differences.contains("50% of the file still cached"));
    assert!(!crate::check::mapped::problems(&warm).is_empty());
    warm.goals = judged;
    assert_eq!(crate::check::mapped::problems(&warm), Vec::<String>::new());
    let mut edited = good.clone();
    edited.files[0].lookups.pairs[0].mapped_ns = vec![80.0; 3];
    assert!(!crate::check::mapped::problems(&edited).is_empty());
    let mut short = good;
    short.files[0].open.load_ms.pop();
    assert!(crate::check::mapped::problems(&short)[0].contains("rounds"));
}

#[test]
fn the_page_shows_every_table_and_the_verdicts() {
    let page = crate::render::mapped::render(&fixture(false));
    for part in [
        "## Goals",
        "## The large file",
        "| 8 mapped |",
        "filterlab query FILE KEY",
        "not met",
        "No loaded readers",
    ] {
        assert!(page.contains(part), "{part} missing from\n{page}");
    }
}
