use super::*;
use crate::record::Machine;

fn goal(what: &str, interval: (f64, f64), bound: f64) -> Ratio {
    let bound = Bound::AtMost(bound);
    Ratio {
        what: what.into(),
        role: Role::Target,
        ratio: (interval.0 + interval.1) / 2.0,
        interval: Some(interval),
        bound,
        verdict: Verdict::of(bound, Some(interval)),
        ..Ratio::default()
    }
}

fn run(cpu: &str, commit: &str, ratios: Vec<Ratio>) -> Results {
    Results {
        machine: Machine {
            cpu: cpu.into(),
            commit: commit.into(),
            date: "2026-12-03".into(),
            ..Machine::default()
        },
        ratios,
        ..Results::default()
    }
}

#[test]
fn a_run_replaces_its_own_model_and_keeps_the_others() {
    let dir = std::env::temp_dir().join(format!("filterlab-by-cpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let epyc = run(
        "AMD EPYC",
        "aaa",
        vec![goal("split-block vs fastbloom", (0.5, 0.6), 0.7)],
    );
    let xeon = run(
        "Intel Xeon",
        "bbb",
        vec![goal("split-block vs fastbloom", (0.8, 0.9), 0.7)],
    );
    update(&dir, &epyc).expect("the first write");
    let all = update(&dir, &xeon).expect("the second write");
    assert_eq!(all.len(), 2);
    assert_eq!(all["AMD EPYC"].goals[0].verdict, Verdict::Met);
    assert_eq!(all["Intel Xeon"].goals[0].verdict, Verdict::NotMet);
    // A later EPYC run replaces the EPYC entry only.
    let again = run(
        "AMD EPYC",
        "ccc",
        vec![goal("split-block vs fastbloom", (0.6, 0.8), 0.7)],
    );
    let all = update(&dir, &again).expect("the third write");
    assert_eq!(
        (
            all["AMD EPYC"].commit.as_str(),
            all["Intel Xeon"].commit.as_str()
        ),
        ("ccc", "bbb")
    );
    assert_eq!(read(&dir).expect("read back"), all);
    check(&all, &again).expect("the file agrees with the run");
    let page = crate::render::by_cpu::section(&again, &all);
    assert!(
        page.contains("| split-block vs fastbloom | undecided (0.700) | not met (0.850) |"),
        "{page}"
    );
    // One model alone: no section.
    let alone: ByCpu = all.into_iter().filter(|(m, _)| m == "AMD EPYC").collect();
    assert_eq!(crate::render::by_cpu::section(&again, &alone), "");
    std::fs::remove_dir_all(&dir).expect("the directory removed");
}

#[test]
fn check_rejects_an_entry_that_is_not_the_run_or_a_verdict_its_interval_denies() {
    let epyc = run("AMD EPYC", "aaa", vec![goal("g", (0.5, 0.6), 0.7)]);
    let mut all = ByCpu::new();
    assert!(check(&all, &epyc).is_err(), "no entry for the run's CPU");
    all.insert("AMD EPYC".into(), entry(&epyc));
    check(&all, &epyc).expect("the run's own entry");
    let mut edited = all.clone();
    edited.get_mut("AMD EPYC").expect("entry").goals[0].ratio = 0.4;
    assert!(
        check(&edited, &epyc).is_err(),
        "an edited figure of this run"
    );
    let mut other = entry(&run("Intel Xeon", "bbb", vec![goal("g", (0.8, 0.9), 0.7)]));
    other.goals[0].verdict = Verdict::Met;
    all.insert("Intel Xeon".into(), other);
    let e = check(&all, &epyc).expect_err("0.8–0.9 against at most 0.7 is not met");
    assert!(format!("{e:#}").contains("Intel Xeon"), "{e:#}");
}
