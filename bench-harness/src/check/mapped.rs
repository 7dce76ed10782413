//! mapped.json's problems: no disagreement and no missed member between the mapped and the
//! loaded filter, every sample series as long as the rounds, the cache checked after every drop
//! (cold rows of a run whose drops left the file cached are "not measured": the goals'
//! recomputation holds them to it), and the goals recomputed from the figures and found
//! identical.

use crate::stages::mapped::MappedReport;

/// Every problem of `r`.
#[must_use]
pub fn problems(r: &MappedReport) -> Vec<String> {
    let mut p = Vec::new();
    let rounds = r.settings.open_rounds;
    for f in &r.files {
        let at = format!("mapped.json, the {} file", f.size.word());
        let l = &f.lookups;
        if l.disagreements > 0 || l.false_negatives > 0 {
            p.push(format!(
                "{at}: {} keys answered differently mapped and loaded, {} members missed",
                l.disagreements, l.false_negatives
            ));
        }
        if l.checked == 0 {
            p.push(format!("{at}: no key asked of both filters"));
        }
        let o = &f.open;
        let series = [
            &o.open_ms,
            &o.verify_ms,
            &o.read_ms,
            &o.load_ms,
            &o.cold_read_ms,
            &o.cold_verify_ms,
            &o.cold_first_us,
            &o.warm_first_us,
        ];
        if series.iter().any(|s| s.len() != rounds) {
            p.push(format!(
                "{at}: a series of the opens has not {rounds} rounds"
            ));
        }
        if o.resident_after_eviction.len() != rounds {
            p.push(format!("{at}: the cache was not checked after every drop"));
        }
        if f.processes
            .iter()
            .any(|run| run.pss.len() != r.settings.readers)
        {
            p.push(format!(
                "{at}: a process run has not {} readers",
                r.settings.readers
            ));
        }
    }
    let again = crate::judge::targets::mapped::goals(r);
    p.extend(super::goal_problems("mapped", &again, &r.goals));
    p
}
