//! Course sections on the cuckoo, scalable and counting formulas.

use super::markdown::{rate, tally, Row, Section};
use super::probe::{fill, fp, Measured};
use super::{Lab, Plot};
use crate::plot::{LineChart, Series, SeriesStyle};
use anyhow::Result;
use filterlab::{
    counting, cuckoo, math, CountingBloom, CuckooFilter, Filter, Growable, ScalableBloom,
};

const P: f64 = 0.01;
const TEN_M: u64 = 10_000_000;

/// A cuckoo filter for `lab.n` items with `f`-bit fingerprints, filled to `load`.
fn cuckoo_at(lab: &Lab<'_>, f: u32, load: f64) -> Result<(f64, f64, Measured)> {
    let mut c = CuckooFilter::builder()
        .capacity(lab.n as u64)
        .fingerprint_bits(f)
        .build()?;
    let items = ((c.buckets() * u64::from(cuckoo::SLOTS)) as f64 * load).round() as usize;
    // A failed insert leaves the table as it was; the load reached is what is reported.
    for &h in &lab.members[..items.min(lab.members.len())] {
        if c.insert_hash(h).is_err() {
            break;
        }
    }
    Ok((c.load_factor(), c.expected_fpr(), fp(&c, &lab.probes)))
}

/// Cuckoo: FP rate against fingerprint bits at the design load, and against load.
pub fn cuckoo(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let mut rows = Vec::new();
    let (mut tf, mut mf, mut sf) = (vec![], vec![], vec![]);
    for f in [4u32, 6, 8, 10, 12, 14, 16] {
        let (load, formula, got) = cuckoo_at(lab, f, cuckoo::DESIGN_LOAD)?;
        tf.push((f64::from(f), formula));
        mf.push((f64::from(f), got.rate));
        sf.push(got.spread());
        rows.push(Row::new(format!("f = {f}, load {load:.3}"), formula, got));
    }
    let (mut tl, mut ml, mut sl) = (vec![], vec![], vec![]);
    let f_load = 8;
    for load in [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95] {
        let (real, formula, got) = cuckoo_at(lab, f_load, load)?;
        tl.push((real, formula));
        ml.push((real, got.rate));
        sl.push(got.spread());
        rows.push(Row::new(
            format!("f = {f_load}, load {real:.3}"),
            formula,
            got,
        ));
    }
    let f10 = math::cuckoo_fingerprint_bits(P, cuckoo::SLOTS)?;
    let section = Section {
        title: "Cuckoo filter: fingerprint bits and load".into(),
        derivation: vec![
            "a lookup compares its f-bit fingerprint with the occupied slots of two buckets of b slots: 2bα slots at load α".into(),
            "each matches with probability 1/(2^f - 1) (0 marks an empty slot): p = 1 - (1 - 1/(2^f - 1))^(2bα) ≈ 2bα / 2^f".into(),
            "so p halves per fingerprint bit and grows linearly with load; f = ceil(log2(2b/p)) keeps p under target even at α = 1".into(),
        ],
        source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.1".into(),
        example: format!(
            "f = ceil(log2(8 / 0.01)) = {f10} bits; at α = {} the rate is {} and the table costs f/α = {:.3} bits per key",
            cuckoo::DESIGN_LOAD,
            rate(math::cuckoo_fpr(f10, cuckoo::SLOTS, cuckoo::DESIGN_LOAD)),
            math::cuckoo_bits_per_item(f10, cuckoo::DESIGN_LOAD)
        ),
        finding: tally(&rows),
        rows,
        plots: vec!["cuckoo_fingerprint".into(), "cuckoo_load".into()],
    };
    let by_f = LineChart {
        title: format!(
            "Cuckoo filter: rate against fingerprint bits (load {})",
            cuckoo::DESIGN_LOAD
        ),
        x_label: "fingerprint bits f".into(),
        y_label: "false-positive rate".into(),
        x_log: false,
        y_log: true,
        series: vec![
            Series::new("formula", tf, SeriesStyle::Dashed),
            Series::new("cuckoo", mf, SeriesStyle::Points).with_spread(sf),
        ],
    };
    let by_load = LineChart {
        title: format!("Cuckoo filter: rate against load (f = {f_load})"),
        x_label: "load factor α".into(),
        y_label: "false-positive rate".into(),
        x_log: false,
        y_log: false,
        series: vec![
            Series::new("formula", tl, SeriesStyle::Dashed),
            Series::new("cuckoo", ml, SeriesStyle::Points).with_spread(sl),
        ],
    };
    Ok((
        section,
        vec![
            Plot::new("cuckoo_fingerprint", by_f),
            Plot::new("cuckoo_load", by_load),
        ],
    ))
}

/// Scalable: the compound rate and its bound as the filter grows, for three ratios r.
pub fn scalable(lab: &Lab<'_>) -> Result<(Section, Plot)> {
    let c0 = (lab.n / 32).max(1);
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut broken = 0;
    for r in [0.5, 0.8, 0.9] {
        let label = format!("r = {r}");
        let mut f = ScalableBloom::builder()
            .capacity(c0 as u64)
            .fpr(P)
            .tightening(r)
            .build()?;
        let (mut theory, mut measured, mut spread) = (vec![], vec![], vec![]);
        let mut inserted = 0;
        for j in 0..=5 {
            let target = c0 << j;
            fill(&mut f, &lab.members[inserted..target])?;
            inserted = target;
            let got = fp(&f, &lab.probes);
            let x = target as f64 / c0 as f64;
            theory.push((x, f.expected_fpr()));
            measured.push((x, got.rate));
            spread.push(got.spread());
            if got.lo > f.fpr_bound() {
                broken += 1;
            }
            if j == 5 {
                rows.push(Row::new(
                    format!("{label}, {}x, {} stages: compound formula", x, f.stages()),
                    f.expected_fpr(),
                    got,
                ));
                rows.push(Row::bound(
                    format!("{label}, {}x: bound P0/(1-r)", x),
                    f.fpr_bound(),
                    got,
                ));
            }
        }
        series.push(Series::new(label.clone(), theory, SeriesStyle::Dashed));
        series.push(Series::new(label, measured, SeriesStyle::Points).with_spread(spread));
    }
    series.push(Series::new(
        "target P",
        vec![(1.0, P), (32.0, P)],
        SeriesStyle::Line,
    ));
    let p0 = math::scalable_initial_fpr(P, 0.9);
    let stages: Vec<f64> = (0..4)
        .map(|i| math::scalable_stage_fpr(p0, 0.9, i))
        .collect();
    let section = Section {
        title: "Scalable filter: the compound bound as it grows".into(),
        derivation: vec![
            "stage i holds n0 s^i items at rate P0 r^i; a key is a false positive if any stage says yes".into(),
            "p = 1 - Π(1 - p_i) <= Σ P0 r^i = P0 / (1 - r): choose P0 = P(1 - r) and the bound is P however far the filter grows".into(),
        ],
        source: "Almeida, Baquero, Preguiça & Hutchison 2007, §4 and eq. 3".into(),
        example: format!(
            "r = 0.9: P0 = {}, stages at {}; bound {}. A filter sized for 10M and grown 10x has stages at these rates; `filterlab calc --variant scalable` prints its memory",
            rate(p0),
            stages.iter().map(|&p| rate(p)).collect::<Vec<_>>().join(", "),
            rate(math::scalable_fpr_bound(p0, 0.9))
        ),
        finding: format!(
            "Grown from {c0} to {} items (32x). The measured interval lay above the bound at {broken} of 18 checkpoints. {}",
            c0 << 5,
            tally(&rows)
        ),
        rows,
        plots: vec!["scalable".into()],
    };
    let chart = LineChart {
        title: "Scalable filter: compound rate as it grows (P = 1%)".into(),
        x_label: "items / initial capacity".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: true,
        series,
    };
    Ok((section, Plot::new("scalable", chart)))
}

/// `P(Poisson(λ) >= j)`: the expected fraction of counters at or above `j` after `nk` uniform
/// increments of `m` counters (λ = nk/m). Not in `filter_core::math`, which bounds the
/// probability that *any* counter overflows; the course needs the expected count.
pub fn poisson_tail(lambda: f64, j: u32) -> f64 {
    if lambda <= 0.0 {
        return 0.0;
    }
    // Summed upwards from j, so tiny tails keep their digits.
    let ln_first =
        f64::from(j) * lambda.ln() - lambda - (1..=j).map(|i| f64::from(i).ln()).sum::<f64>();
    let (mut term, mut total, mut i) = (ln_first.exp(), 0.0, f64::from(j));
    while term > total * 1e-17 && term > 0.0 {
        total += term;
        i += 1.0;
        term *= lambda / i;
    }
    total.min(1.0)
}

/// Counting: saturated counters from 1x to 10x the design load.
pub fn counting(lab: &Lab<'_>) -> Result<(Section, Plot)> {
    let n0 = (lab.n / 10).max(1);
    let mut f = CountingBloom::builder()
        .capacity(n0 as u64)
        .fpr(P)
        .build()?;
    let (m, k) = (f.counters(), f.hashes());
    let max = (1u32 << counting::COUNTER_BITS) - 1;
    let (mut theory, mut measured, mut spread, mut rows) = (vec![], vec![], vec![], vec![]);
    let mut inserted = 0;
    for load in 1..=10usize {
        fill(&mut f, &lab.members[inserted..n0 * load])?;
        inserted = n0 * load;
        let sat = Measured::new(f.saturated(), m);
        let formula = poisson_tail((n0 * load) as f64 * f64::from(k) / m as f64, max);
        theory.push((load as f64, formula));
        measured.push((load as f64, sat.rate));
        spread.push(sat.spread());
        rows.push(Row::new(
            format!(
                "{load}x: counters at {max} (overflow bound {:.2e})",
                f.overflow_probability()
            ),
            formula,
            sat,
        ));
    }
    let m10 = math::optimal_bits(TEN_M, P)?;
    let k10 = math::optimal_hashes(m10, TEN_M);
    let section = Section {
        title: "Counting filter: counter overflow under overload".into(),
        derivation: vec![
            "a counter's value after nk increments of m counters is Binomial(nk, 1/m) ≈ Poisson(λ = nk/m); at design load λ = k n/m = ln 2".into(),
            "P(any counter >= 2^c) <= m C(nk, 2^c) m^-(2^c) <= m (e ln 2 / 2^c)^(2^c): negligible at 4 bits and design load".into(),
            "overload raises λ linearly; a 4-bit counter sticks at 15 (saturates), after which deletions can no longer undo it".into(),
        ],
        source: "Fan, Cao, Almeida & Broder 2000 (Summary Cache), §5.2".into(),
        example: format!(
            "m = {m10} counters, k = {k10}: P(some counter overflows) <= {:.3e} at 10M keys; at 10x the load the bound is {:.3}",
            math::counting_overflow_bound(m10, TEN_M, k10, counting::COUNTER_BITS),
            math::counting_overflow_bound(m10, 10 * TEN_M, k10, counting::COUNTER_BITS)
        ),
        finding: format!(
            "Sized for {n0} keys, filled to 10x: {} counters of {m} saturated at the end, counted by the filter itself \
             (`CountingBloom::saturated`). {}",
            f.saturated(),
            tally(&rows)
        ),
        rows,
        plots: vec!["counting_overflow".into()],
    };
    let chart = LineChart {
        title: format!("Counting filter: saturated counters under overload (n0 = {n0})"),
        x_label: "items / design capacity".into(),
        y_label: "fraction of counters saturated".into(),
        x_log: false,
        y_log: true,
        series: vec![
            Series::new("expected (Poisson)", theory, SeriesStyle::Dashed),
            Series::new("counting", measured, SeriesStyle::Points).with_spread(spread),
        ],
    };
    Ok((section, Plot::new("counting_overflow", chart)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_tail_hand_values() {
        // P(Pois(1) >= 1) = 1 - e^-1; P(Pois(2) >= 2) = 1 - 3e^-2.
        assert!((poisson_tail(1.0, 1) - (1.0 - (-1f64).exp())).abs() < 1e-12);
        assert!((poisson_tail(2.0, 2) - (1.0 - 3.0 * (-2f64).exp())).abs() < 1e-12);
        assert_eq!(poisson_tail(0.0, 3), 0.0);
        // A tail far below 1e-16 keeps its digits: P(Pois(0.7) >= 15) ≈ e^-0.7 0.7^15 / 15!.
        let direct = (-0.7f64).exp() * 0.7f64.powi(15) / (1..=15).map(f64::from).product::<f64>();
        assert!(
            (poisson_tail(0.7, 15) / direct - 1.0).abs() < 0.1,
            "{}",
            poisson_tail(0.7, 15)
        );
    }
}
