//! interop.json's problems: no member missed by a filter read from a file, every read series as
//! long as the rounds, every fill with its filters and its strangers, and the goals recomputed
//! from the figures and found identical.

use crate::stages::interop::InteropReport;

/// Every problem of `r`.
#[must_use]
pub fn problems(r: &InteropReport) -> Vec<String> {
    let mut p = Vec::new();
    let st = &r.settings;
    for read in &r.reads {
        let at = format!("interop.json, {}", read.foreign.word());
        if read.foreign_missed > 0 || read.own_missed > 0 {
            p.push(format!(
                "{at}: members missed, {} read from the foreign file and {} from filterlab's",
                read.foreign_missed, read.own_missed
            ));
        }
        if read.foreign_ms.len() != st.read_rounds || read.own_ms.len() != st.read_rounds {
            p.push(format!(
                "{at}: a read series has not {} rounds",
                st.read_rounds
            ));
        }
    }
    if r.estimates.len() != st.fills.len() {
        p.push(format!(
            "interop.json: {} fills measured of {}",
            r.estimates.len(),
            st.fills.len()
        ));
    }
    for f in &r.estimates {
        if f.estimates.len() != st.replicates || f.probes != st.probes {
            p.push(format!(
                "interop.json, fill {}: {} filters and {} strangers, not {} and {}",
                f.fill,
                f.estimates.len(),
                f.probes,
                st.replicates,
                st.probes
            ));
        }
        if f.keys != st.fill_keys(f.fill) {
            p.push(format!(
                "interop.json, fill {}: {} keys, not {}",
                f.fill,
                f.keys,
                st.fill_keys(f.fill)
            ));
        }
    }
    let again = crate::judge::targets::interop::goals(r);
    p.extend(super::goal_problems("interop", &again, &r.goals));
    p
}
