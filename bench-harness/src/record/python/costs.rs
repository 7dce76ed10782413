//! Where one `key in ClassicBloom` goes (issue 52), as `bench.py call-costs` measures it: a
//! scan of the same fresh str objects through each cumulative part of the call (the bare loop,
//! then `filterlab._filterlab._CallCost` objects that stop after the call, the key's bytes,
//! the read lock and the hash, then ClassicBloom's whole `in`), round after round, and rbloom's
//! `in` on the same keys. A part's cost is the difference between its scan and the one before
//! in the same round (paired, so that a round's drift cancels), summarised over the rounds.

use super::sound;
use crate::measure::median;
use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

/// A cumulative part of ClassicBloom's `in`: the scan makes every call up to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallPart {
    /// The Python loop alone.
    Loop,
    /// The `in` slot and PyO3's call into Rust.
    Call,
    /// The key's UTF-8 bytes.
    Bytes,
    /// The filter's read lock.
    Lock,
    /// The key's hash.
    Hash,
    /// The table's probe: the whole `in`.
    Probe,
}

impl CallPart {
    /// Every part, in the order of the call.
    pub const ALL: [CallPart; 6] = [
        CallPart::Loop,
        CallPart::Call,
        CallPart::Bytes,
        CallPart::Lock,
        CallPart::Hash,
        CallPart::Probe,
    ];

    /// What the part adds to the one before, as the page says it.
    #[must_use]
    pub fn adds(self) -> &'static str {
        match self {
            CallPart::Loop => "the scan loop alone (`k is None` in place of `k in f`)",
            CallPart::Call => {
                "the `in` slot and PyO3's call into Rust (the object borrowed, the argument bound)"
            }
            CallPart::Bytes => "the key's UTF-8 bytes, read in place from the str",
            CallPart::Lock => "the filter's read lock, taken and released",
            CallPart::Hash => "the key's hash (xxh3-128 of its bytes)",
            CallPart::Probe => "the probe of the table: the whole `in`",
        }
    }
}

/// One part's scans, ns per key, one figure a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartScan {
    /// The part the scan stops after.
    pub part: CallPart,
    /// ns per key, a figure a round.
    pub ns: Vec<f64>,
}

/// The measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallCosts {
    /// Members of the ClassicBloom (and rbloom) probed.
    pub n: u64,
    /// Probes a scan (non-members, fresh str objects each scan).
    pub probes: u64,
    /// Every part, in [`CallPart::ALL`] order.
    pub parts: Vec<PartScan>,
    /// rbloom's `in` on the same fresh keys, a figure a round.
    pub rbloom_ns: Vec<f64>,
}

/// A median and the range over the rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// The median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Summary {
    fn of(xs: &[f64]) -> Summary {
        let mut v = xs.to_vec();
        let median = median(&mut v);
        Summary {
            median,
            min: v.first().copied().unwrap_or(f64::NAN),
            max: v.last().copied().unwrap_or(f64::NAN),
        }
    }
}

/// One part's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartCost {
    /// The part.
    pub part: CallPart,
    /// The scan up to it, ns per key.
    pub cumulative: Summary,
    /// What it adds: the paired difference with the part before in each round (the loop's own
    /// figure for the loop).
    pub added: Summary,
}

impl CallCosts {
    /// Every part once, in order, with as many sound rounds as rbloom's.
    ///
    /// # Errors
    /// The first problem.
    pub fn validate(&self) -> Result<()> {
        let parts: Vec<CallPart> = self.parts.iter().map(|p| p.part).collect();
        ensure!(
            parts == CallPart::ALL,
            "call costs: parts {parts:?}, not {:?}",
            CallPart::ALL
        );
        sound("call costs: rbloom", &self.rbloom_ns)?;
        for p in &self.parts {
            sound(&format!("call costs: {:?}", p.part), &p.ns)?;
            ensure!(
                p.ns.len() == self.rbloom_ns.len(),
                "call costs: {:?} has {} rounds, rbloom {}",
                p.part,
                p.ns.len(),
                self.rbloom_ns.len()
            );
        }
        ensure!(self.probes > 0 && self.n > 0, "call costs: no keys");
        Ok(())
    }

    /// Every part's figures (a validated measurement).
    #[must_use]
    pub fn costs(&self) -> Vec<PartCost> {
        let mut before: Option<&[f64]> = None;
        let mut out = Vec::new();
        for p in &self.parts {
            let added: Vec<f64> = match before {
                Some(b) => p.ns.iter().zip(b).map(|(x, y)| x - y).collect(),
                None => p.ns.clone(),
            };
            out.push(PartCost {
                part: p.part,
                cumulative: Summary::of(&p.ns),
                added: Summary::of(&added),
            });
            before = Some(&p.ns);
        }
        out
    }

    /// rbloom's `in`, summarised.
    #[must_use]
    pub fn rbloom(&self) -> Summary {
        Summary::of(&self.rbloom_ns)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn example() -> CallCosts {
        let parts = CallPart::ALL
            .iter()
            .zip([10.0, 40.0, 55.0, 70.0, 90.0, 200.0])
            .map(|(&part, ns)| PartScan {
                part,
                ns: vec![ns, ns * 1.1, ns * 0.9],
            })
            .collect();
        CallCosts {
            n: 1000,
            probes: 500,
            parts,
            rbloom_ns: vec![180.0, 190.0, 170.0],
        }
    }

    #[test]
    fn a_part_costs_the_paired_difference_with_the_one_before() {
        let c = example();
        c.validate().unwrap();
        let costs = c.costs();
        assert_eq!(costs.len(), 6);
        assert_eq!(costs[0].added, costs[0].cumulative);
        let probe = costs[5];
        assert!((probe.added.median - 110.0).abs() < 1e-9, "{probe:?}");
        assert!((probe.added.min - 99.0).abs() < 1e-9 && (probe.added.max - 121.0).abs() < 1e-9);
        assert!((c.rbloom().median - 180.0).abs() < 1e-9);
    }

    #[test]
    fn a_missing_part_or_round_is_refused() {
        let mut c = example();
        c.parts.remove(3);
        assert!(c.validate().unwrap_err().to_string().contains("parts"));
        let mut c = example();
        c.parts[2].ns.pop();
        assert!(c.validate().unwrap_err().to_string().contains("rounds"));
        let mut c = example();
        c.rbloom_ns[0] = f64::NAN;
        assert!(c.validate().is_err());
        let bad = br#"{"n": 1, "probes": 1, "parts": [], "rbloom_ns": [1.0], "extra": 1}"#;
        assert!(super::super::parse::<CallCosts>("call-costs", bad).is_err());
    }
}
