use super::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn point(at: &str, ns: f64) -> Point {
    Point {
        at: at.into(),
        ns,
        range: (ns, ns),
    }
}

#[test]
fn a_steady_run_has_no_swing_and_a_slowed_one_names_its_slowest_point() {
    let steady = [
        point("before a", 10.0),
        point("before b", 12.4),
        point("after", 11.0),
    ];
    assert_eq!(swing(&steady), None);
    let slowed = [
        point("before a", 10.0),
        point("before b", 12.6),
        point("after", 11.0),
    ];
    let s = swing(&slowed).expect("12.6 / 10 is beyond the quiet bound");
    assert_eq!(
        (s.quickest.at.as_str(), s.slowest.at.as_str()),
        ("before a", "before b")
    );
    assert!((s.ratio() - 1.26).abs() < 1e-12);
    assert!(s.sentence().contains("1.26×") && s.sentence().contains("before b"));
    // Nothing to compare, or nothing measured: no verdict either way.
    assert_eq!(swing(&[point("before a", 10.0)]), None);
    assert_eq!(
        swing(&[point("a", f64::NAN), point("b", 0.0), point("c", 9.0)]),
        None
    );
}

/// The test the issue asks for: a deliberately loaded machine must be flagged. Twice as many
/// busy threads as cores run beside the loop for its second point, so the loop gets at most a
/// third of a core where it had one: its median rises far beyond [`SWING`].
#[test]
fn a_run_with_a_busy_loop_beside_it_is_flagged() {
    let calibration = Calibration::new();
    let quiet = calibration.point("quiet");
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let busy: Vec<_> = (0..2 * cores)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    x = black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(7));
                }
            })
        })
        .collect();
    let loaded = calibration.point("loaded");
    stop.store(true, Ordering::Relaxed);
    for b in busy {
        b.join().expect("a busy thread panicked");
    }
    let s = swing(&[quiet.clone(), loaded.clone()]);
    assert!(
        s.as_ref().is_some_and(|s| s.slowest.at == "loaded"),
        "quiet {quiet:?}, loaded {loaded:?}: not flagged"
    );
}
