//! The systems stage's claims, computed from its measurements.

use crate::stages::systems::claims::{Claim, Threshold, Verdict};
use crate::stages::systems::signup::{Front, FrontResult, SignupResult, StoreKind};
use crate::stages::systems::unique::{Method, UniqueResult};

fn front(r: &SignupResult, f: Front) -> Option<&FrontResult> {
    r.fronts.iter().find(|x| x.front == f)
}

/// The claims of both articles and this project's targets, from the measurements;
/// `python_lookup_ns` is the articles' Python filter's lookup measured in the same run (the
/// 170× claim is judged like for like, against it, and not measured without it).
pub fn claims(
    signup: &[SignupResult],
    unique: &UniqueResult,
    python_lookup_ns: Option<f64>,
) -> Vec<Claim> {
    let store = |k| signup.iter().find(|r| r.store == k);
    let pg = store(StoreKind::Postgres);
    let pg_db = pg.and_then(|r| front(r, Front::DbOnly));
    let any = pg.or(signup.first());
    let ratio = |k| {
        let r = store(k)?;
        Some(front(r, Front::Gate)?.mean_us / front(r, Front::DbOnly)?.mean_us)
    };
    let checks = any
        .and_then(|r| front(r, Front::Gate))
        .map_or(1, |g| g.checks.max(1)) as f64;
    let sigma = |p: f64| 100.0 * (p * (1.0 - p) / checks).sqrt();
    let share = 0.0595;
    let method = |m| unique.methods.iter().find(|x| x.method == m);
    let peak = |m| method(m).map(|x| x.peak_bytes as f64);
    let wrong: u64 = signup.iter().flat_map(|r| &r.fronts).map(|f| f.wrong).sum();
    vec![
        Claim {
            article: 1,
            text: "PostgreSQL, 10M rows, B-tree, warm: 8.2 ms per `SELECT EXISTS`".into(),
            measure: "mean DB-only check on PostgreSQL, ms (loopback, this machine)".into(),
            measured: pg_db.map(|f| f.mean_us / 1e3),
            threshold: Threshold::factor(8.2, 2.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 1,
            text: "the filter answers 170× faster than the database (8.2 ms / 48 µs, the Python filter)".into(),
            measure: "mean DB-only check on PostgreSQL / the articles' Python filter's lookup in this run (like for like: the article's 48 µs is its Python code; that figure alone is judged in README.md)".into(),
            measured: pg_db
                .zip(python_lookup_ns)
                .map(|(f, py)| f.mean_us * 1e3 / py),
            threshold: Threshold::factor(170.0, 2.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 1,
            text: "the B-tree index on email for 10M rows takes 240–320 MB".into(),
            measure: "PostgreSQL unique index, MB, scaled linearly to 10M rows".into(),
            measured: pg
                .and_then(|r| Some(r.index_bytes? as f64 * 1e7 / r.rows.max(1) as f64 / 1e6)),
            threshold: Threshold::Within {
                lo: 240.0,
                hi: 320.0,
            },
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 1,
            text: "95% new e-mails, 1% FP: the database sees 5.95% of checks".into(),
            measure: "share of gate checks reaching the database, %".into(),
            measured: any
                .and_then(|r| front(r, Front::Gate))
                .map(|g| g.db_share * 100.0),
            threshold: Threshold::Within {
                lo: 5.95 - 4.0 * sigma(share),
                hi: 5.95 + 4.0 * sigma(share),
            },
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 1,
            text: "FP rate about 1% (0.97% on 100K new e-mails)".into(),
            measure: "gate's measured FP rate at design load, % (4σ above 1% allowed)".into(),
            measured: any.map(|r| r.gate_fpr.0 * 100.0),
            threshold: Threshold::AtMost(1.0 + 4.0 * sigma(0.01)),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 0,
            text: "a gate check costs ≤ 0.08× a DB-only check on PostgreSQL".into(),
            measure: "mean gate check / mean DB-only check".into(),
            measured: ratio(StoreKind::Postgres),
            threshold: Threshold::AtMost(0.08),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 0,
            text: "a gate check costs ≤ 0.15× a DB-only check on SQLite".into(),
            measure: "mean gate check / mean DB-only check".into(),
            measured: ratio(StoreKind::Sqlite),
            threshold: Threshold::AtMost(0.15),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 0,
            text: "no wrong decision, any front, any store".into(),
            measure: "wrong answers, all sign-up runs".into(),
            measured: Some(wrong as f64),
            threshold: Threshold::AtMost(0.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 2,
            text: "a HashSet of the day's user IDs grows to gigabytes".into(),
            measure: "HashSet<String> of 10M user IDs, GB (bytes per ID at the largest size measured × 10M)".into(),
            measured: unique
                .hashset_bytes_at
                .iter()
                .max_by_key(|x| x.0)
                .map(|&(n, b)| b as f64 / n.max(1) as f64 * 1e7 / 1e9),
            threshold: Threshold::AtLeast(1.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 2,
            text: "the filter takes under 1% of the HashSet's memory".into(),
            measure: "filter at 1% / HashSet, same n, %".into(),
            measured: Some(unique.filter_to_hashset * 100.0),
            threshold: Threshold::AtMost(1.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 2,
            text: "filter + confirmation keeps the count 100% exact".into(),
            measure: "largest relative error of filter + exact set, %".into(),
            measured: method(Method::FilterPlusExact).map(|m| m.max_rel_error * 100.0),
            threshold: Threshold::AtMost(0.0),
            verdict: Verdict::NotMeasured,
        },
        Claim {
            article: 2,
            text: "and that saves the HashSet's memory".into(),
            measure: "peak bytes of filter + exact set / HashSet alone".into(),
            measured: peak(Method::FilterPlusExact)
                .zip(peak(Method::ExactHashSet))
                .map(|(a, b)| a / b),
            threshold: Threshold::AtMost(1.0),
            verdict: Verdict::NotMeasured,
        },
    ]
    .into_iter()
    .map(|mut c| {
        c.verdict = c.verdict();
        c
    })
    .collect()
}
