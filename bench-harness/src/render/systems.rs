//! `systems.md`, rendered from a systems report alone, and the report's files.

use crate::plan::Output;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::systems::claims::{num, Claim, Verdict};
use crate::stages::systems::lag::{LagCondition, LagOutcome};
use crate::stages::systems::rolling::{RollingResult, DAYS};
use crate::stages::systems::service::{ServiceMode, ServiceOutcome};
use crate::stages::systems::signup::ROUNDS;
use crate::stages::systems::signup::{Front, SignupResult, StoreKind};
use crate::stages::systems::steps::{label, Timing};
use crate::stages::systems::unique::{Method, UniqueResult};
use crate::stages::systems::{Settings, SystemsResults};
use anyhow::Result;
use std::path::Path;

fn mb(b: Option<u64>) -> String {
    b.map_or("—".into(), |b| format!("{:.2} MB", b as f64 / 1e6))
}

fn front_name(f: Front) -> &'static str {
    match f {
        Front::DbOnly => "DB only",
        Front::Gate => "gate + filterlab (split-block, 1%)",
        Front::RedisBloom => "RedisBloom (1%) + DB",
    }
}

/// `value (low–high)` with `prec` decimals.
fn with_ci(v: f64, (lo, hi): (f64, f64), prec: usize) -> String {
    format!("{v:.prec$} ({lo:.prec$}–{hi:.prec$})")
}

/// The sign-up table: each latency and throughput with its 95% interval over the sample.
pub fn signup(rs: &[SignupResult]) -> String {
    let mut t = Table::with_head("| store | front | checks | reach DB | p50 µs | p99 µs | mean µs | checks/s | wrong | filter | unique index | build s |\n|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rs {
        let store = match r.store {
            StoreKind::Sqlite => "SQLite",
            StoreKind::Postgres => "PostgreSQL 15",
        };
        for f in &r.fronts {
            t.row([
                store.to_string(),
                front_name(f.front).to_string(),
                f.checks.to_string(),
                pct(f.db_share),
                with_ci(f.p50_us, f.intervals.p50_us, 2),
                with_ci(f.p99_us, f.intervals.p99_us, 2),
                with_ci(f.mean_us, f.intervals.mean_us, 2),
                with_ci(f.checks_per_s, f.intervals.checks_per_s, 0),
                f.wrong.to_string(),
                mb(f.filter_bytes),
                mb(r.index_bytes),
                f.build_s.map_or("—".into(), |b| format!("{b:.2}")),
            ]);
        }
    }
    t.render()
}

/// The unique-users table.
pub fn unique(u: &UniqueResult) -> String {
    let mut s = format!(
        "{} events over {} users, {} event types × {} days; true uniques (sum over type × day): {}.\n\n",
        u.events, u.users, crate::stages::systems::unique::EVENT_TYPES, crate::stages::systems::unique::DAYS, u.true_uniques
    );
    let mut t = Table::with_head(
        "| method | counted | largest error | peak memory | time s | confirmed |\n|---|---|---|---|---|---|",
    );
    for m in &u.methods {
        let name = match m.method {
            Method::ExactHashSet => "exact `HashSet<String>`",
            Method::FilterAlone => "filter alone (classic, 1%, sized for the largest daily count)",
            Method::FilterPlusExact => "filter + exact set",
            Method::HyperLogLog => "HyperLogLog++ (cardinality-estimator, p = 12)",
        };
        t.row([
            name.to_string(),
            m.counted.to_string(),
            format!("{:.3}%", m.max_rel_error * 100.0),
            mb(Some(m.peak_bytes)),
            format!("{:.2}", m.seconds),
            m.confirmed_share
                .map_or("—".into(), |c| format!("{:.2}%", c * 100.0)),
        ]);
    }
    s += &t.render();
    s += &format!(
        "\nHashSet bytes per ID at {} IDs: {:.1} (table slots + string heap).\n",
        u.largest_count, u.hashset_bytes_per_id
    );
    let r = &u.reset;
    s += &format!(
        "Daily reset with {} IDs: a fresh classic filter {:.4} s; deleting every ID from a cuckoo filter {:.4} s ({} left; deletion needs the day's ID list).\n",
        r.ids, r.fresh_classic_s, r.cuckoo_delete_s, r.cuckoo_left
    );
    for (n, b) in &u.hashset_bytes_at {
        s += &format!(
            "`HashSet<String>` of {n} user IDs: {:.1} MB ({:.1} bytes per ID).\n",
            *b as f64 / 1e6,
            *b as f64 / (*n).max(1) as f64
        );
    }
    s
}

/// The whole `systems.md`.
pub fn markdown(r: &SystemsResults) -> String {
    let mut s = format!("# The articles' systems, end to end\n\nWritten by `bench-harness` (systems stage) at commit {} on {} ({} cores). Latencies are per check, loopback, on this machine.\n\n## Sign-up gate\n\n", r.machine.commit, r.machine.cpu, r.machine.cores);
    s += &sample(&r.settings);
    s += &signup(&r.signup);
    for x in &r.signup {
        s += &format!(
            "\n{:?}: {} rows loaded in {:.1} s (the rows first, then the unique index built from them: a packed index, smaller than one grown by sign-ups one at a time); gate FP rate {} (95% Wilson {}–{}, filter predicts {}); one filter lookup {:.0} ns; the clock reads around each check add {:.0} ns.\n",
            x.store, x.rows, x.load_s, pct(x.gate_fpr.0), pct(x.gate_fpr.1), pct(x.gate_fpr.2), pct(x.gate_fpr.3), x.filter_lookup_ns, x.timer_overhead_ns
        );
    }
    for why in r.postgres_absent.iter().chain(
        r.signup
            .iter()
            .filter_map(|x| x.redis_absent.as_ref())
            .take(1),
    ) {
        s += &format!("\nNot measured: {why}\n");
    }
    s += "\n## The sign-up service under concurrent load\n\n";
    s += &service(&r.service);
    s += "\n## Cross-instance lag\n\n";
    s += &lag(&r.lag);
    s += "\n## Unique users per (event, day)\n\n";
    s += &unique(&r.unique);
    s += "\n## Unique users in the last 24 hours (rolling)\n\n";
    s += &rolling(&r.rolling);
    s += "\n## The articles' claims\n\n";
    s += &claims(&r.claims);
    s += "\n## Where the stage's time went\n\n";
    s += &timing(&r.timing);
    s
}

/// What the sign-up figures rest on: the table's size and the stated sample of timed checks.
pub fn sample(x: &Settings) -> String {
    format!(
        "The table holds {} rows. Every contender on every store answers the same stated sample of {} timed checks ({} new addresses, the rest registered ones drawn without repeats; seed {:#x}), in {ROUNDS} interleaved rounds. \
Each latency and throughput is given with its 95% interval over that sample: order statistics for p50 and p99, the normal approximation for the mean (checks/s is 10⁶ / mean µs). \
An interval a few percent wide says the sample is large enough for that figure; the claims below that rest on the sample are judged on these intervals.\n\n",
        x.rows,
        x.checks,
        pct(x.new_share),
        x.seed,
    )
}

/// The stage's sub-step times and the rest of its wall time.
pub fn timing(t: &Timing) -> String {
    let mut table = Table::new(&[("step", Align::Left), ("seconds", Align::Right)]);
    for st in &t.steps {
        table.row(vec![label(st.step), format!("{:.1}", st.seconds)]);
    }
    let sum: f64 = t.steps.iter().map(|st| st.seconds).sum();
    table.row(vec![
        "the rest (index sizes, the filter's own lookup timing, clean-up, servers)".into(),
        format!("{:.1}", t.wall_s - sum),
    ]);
    table.row(vec!["the whole stage".into(), format!("{:.1}", t.wall_s)]);
    table.render()
}

/// Writes `systems.md` and `systems.json` into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &SystemsResults, out: &Path) -> Result<()> {
    super::write_section(out, "systems", r, markdown)
}

/// The claims table as Markdown.
pub fn claims(claims: &[Claim]) -> String {
    let mut t = Table::with_head(
        "| # | claim | measured here | value | holds if | verdict |\n|---|---|---|---|---|---|",
    );
    for c in claims {
        let v = match (c.measured, c.interval) {
            (Some(v), Some((lo, hi))) => format!("{} ({}–{})", num(v), num(lo), num(hi)),
            (v, _) => v.map_or("—".into(), num),
        };
        let verdict = c.verdict.word();
        let who = match c.article {
            0 => "target".to_string(),
            a => format!("article {a}"),
        };
        t.row([
            who,
            c.text.to_string(),
            c.measure.to_string(),
            v,
            c.threshold.describe(),
            verdict.to_string(),
        ]);
    }
    let mut s = t.render();
    // A claim the sample leaves undecided is named, with what would decide it.
    for c in claims
        .iter()
        .filter(|c| c.interval.is_some() && c.verdict == Verdict::Undecided)
    {
        s += &format!(
            "\nUndecided on this sample: \"{}\": its 95% interval straddles the threshold; a larger sample of timed checks (`bench-harness systems --checks N`) narrows it.\n",
            c.text
        );
    }
    s
}

/// The service section: the load, a row per mode, the duplicate count.
pub fn service(o: &ServiceOutcome) -> String {
    let r = match o {
        ServiceOutcome::Measured(r) => r,
        ServiceOutcome::NotMeasured { why } => return format!("Not measured: {why}\n"),
    };
    let mut s = format!(
        "`filter_gate::service` (the example `signup_service`): HTTP/1.1 keep-alive on loopback, PostgreSQL, {} concurrent clients × up to {} availability checks (95% new addresses; a sign-up after each \"available\"), {} accounts preloaded, then {} contested addresses signed up by every client at once; at most {:.0} s of checks per mode (the contested sign-ups follow). The checks are a sample of the service's load; the duplicate count covers every account in the table.\n\n",
        r.clients, r.ops_per_client, r.preload, r.contested, r.max_seconds
    );
    let mut t = Table::with_head("| mode | requests | seconds | requests/s | checks | check p50 µs | check p99 µs | sign-ups | sign-up p50 µs | sign-up p99 µs | gate FP rate |\n|---|---|---|---|---|---|---|---|---|---|---|");
    for m in &r.modes {
        let name = match m.mode {
            ServiceMode::DbOnly => "DB only",
            ServiceMode::Gate => "gate (classic, 1%) + DB",
        };
        let bound = if m.hit_time_bound {
            " (time bound hit)"
        } else {
            ""
        };
        t.row([
            format!("{name}{bound}"),
            m.requests.to_string(),
            format!("{:.2}", m.seconds),
            format!("{:.0}", m.requests as f64 / m.seconds.max(1e-9)),
            m.checks.to_string(),
            format!("{:.0}", m.check_p50_us),
            format!("{:.0}", m.check_p99_us),
            m.signups.to_string(),
            format!("{:.0}", m.signup_p50_us),
            format!("{:.0}", m.signup_p99_us),
            m.gate_fpr.map_or("—".into(), pct),
        ]);
    }
    s += &t.render();
    let verdict = if r.duplicates == 0 {
        "holds"
    } else {
        "does not hold"
    };
    s += &format!(
        "\nDuplicate accounts after both modes (`count(*) - count(DISTINCT lower(email))`, must be 0): {} — {verdict}.\n",
        r.duplicates
    );
    s
}

/// The cross-instance section: how the measurement ran, and a row per condition.
pub fn lag(o: &LagOutcome) -> String {
    let r = match o {
        LagOutcome::Measured(r) => r,
        LagOutcome::NotMeasured { why } => return format!("Not measured: {why}\n"),
    };
    let mut s = format!(
        "Two `SharedGate` instances (A and B) on one PostgreSQL table of {} rows, each with the LISTEN/NOTIFY feed. A registers a new address; B checks it at once, then every 0.1 ms until it answers Taken. The lag runs from A's `register` returning to B's first Taken; a registration B has not answered Taken within {:.0} ms counts as unseen. While saving, B saves its filter in a loop (each save catches up over the table, seals the mark and writes the file, holding B's control lock).\n\n",
        r.preload, r.bound_ms
    );
    let mut t = Table::with_head("| B | registrations | first check Available | unseen | p50 ms | p90 ms | p99 ms | max ms | saves | save p50 ms |\n|---|---|---|---|---|---|---|---|---|---|");
    for x in &r.rows {
        let name = match x.condition {
            LagCondition::Idle => "idle",
            LagCondition::Saving => "saving",
        };
        t.row([
            name.to_string(),
            x.registrations.to_string(),
            x.immediately_available.to_string(),
            x.unseen.to_string(),
            format!("{:.2}", x.p50_ms),
            format!("{:.2}", x.p90_ms),
            format!("{:.2}", x.p99_ms),
            format!("{:.2}", x.max_ms),
            x.saves.to_string(),
            x.save_p50_ms.map_or("—".into(), |m| format!("{m:.1}")),
        ]);
    }
    s += &t.render();
    s
}

/// The rolling-count section: its table and the memory of both sides.
pub fn rolling(r: &RollingResult) -> String {
    let mut s = format!(
        "{} events over {} users in {DAYS} days (timestamps in seconds); window {} h, {} slices of {} s ({} kept), sized for {} events per window at {}. \
The filter's count is the users of the population it answers \"maybe\" for; \"held\" counts the users last seen in a slice it still keeps (exact); the prediction is held + q · (users − held). \
Checkpoints fall on slice boundaries, where the kept slices cover the window; between boundaries the filter also holds users last seen up to one slice (1/N of a window) earlier.\n\n",
        r.events,
        r.users,
        r.window_s / 3_600,
        r.generations,
        r.slice_s,
        r.generations + 1,
        r.items_per_window,
        pct(r.target_fpr),
    );
    let mut t = Table::with_head("| hour | exact (24 h) | held | filter | relative error | predicted | FP rate | model q |\n|---|---|---|---|---|---|---|---|");
    for c in &r.checkpoints {
        t.row([
            format!("{:.1}", c.at_s as f64 / 3_600.0),
            c.exact.to_string(),
            c.held.to_string(),
            c.filter.to_string(),
            format!("{:+.3}%", c.rel_error * 100.0),
            format!("{:+.3}%", c.predicted_rel_error * 100.0),
            pct(c.measured_fpr),
            pct(c.predicted_fpr),
        ]);
    }
    s += &t.render();
    s += &format!(
        "\nMemory: the window filter {:.2} MB (constant); the exact map of last-seen times, pruned to the kept slices, up to {:.2} MB.\n",
        r.filter_bytes as f64 / 1e6,
        r.exact_bytes as f64 / 1e6
    );
    s
}

impl Output for SystemsResults {
    fn judge(&mut self) {
        self.claims = crate::judge::systems::claims(
            &self.signup,
            &self.unique,
            &self.lag,
            self.python_lookup_ns,
        );
    }

    fn write(&self, out: &Path) -> Result<()> {
        write(self, out)
    }
}
