//! `check` on the limit, measured: the floor's figures are sound, and its multiples and its
//! target rows are what the comparison's rows and the floor's own figures give.

use super::Floors;
use crate::judge::floor::multiples;
use crate::judge::targets::hot::floor_rows;
use crate::record::{Results, Scenario};

/// Every problem of `results.floor`; a run with a comparison must have one.
#[must_use]
pub fn floor(results: &Results, floors: Floors) -> Vec<String> {
    let compared = results
        .records
        .iter()
        .any(|r| r.scenario == Scenario::Matrix);
    let Some(report) = &results.floor else {
        return if compared {
            vec!["the run has a comparison but no floor (line reads and hashing)".into()]
        } else {
            Vec::new()
        };
    };
    let mut p = Vec::new();
    let mut sound = |what: String, s: &crate::measure::Spread| {
        if !s.is_sound() || s.rounds < floors.rounds || s.samples.len() != s.rounds {
            p.push(format!(
                "floor: {what} is not a sound timing of at least {} rounds: {s:?}",
                floors.rounds
            ));
        }
    };
    for r in &report.reads {
        sound(format!("{} dependent read", r.table.name()), &r.dependent);
        sound(
            format!("{} independent read", r.table.name()),
            &r.independent,
        );
    }
    for h in &report.hashing {
        sound(format!("{} hashing", h.hash.name()), &h.ns);
    }
    match multiples(report, &results.peers) {
        Ok(again) if again == report.multiples => {}
        Ok(again) => p.push(format!(
            "floor: the stored multiples are not what the rows and the floor give: stored {:?}, recomputed {again:?}",
            report.multiples
        )),
        Err(e) => p.push(format!("floor: multiples not recomputable: {e}")),
    }
    match floor_rows(&results.peers, report) {
        Ok(rows) => {
            for again in rows {
                match results.ratios.iter().find(|r| r.what == again.what) {
                    Some(stored) if *stored == again => {}
                    Some(_) => p.push(format!(
                        "target {}: stored row is not what the rows and the floor give",
                        again.what
                    )),
                    None => p.push(format!("target {} is missing", again.what)),
                }
            }
        }
        Err(e) => p.push(format!("floor: targets not recomputable: {e}")),
    }
    p
}
