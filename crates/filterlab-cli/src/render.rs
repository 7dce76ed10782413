//! Text output of each command. Only formatting: every number is computed elsewhere.

use crate::args::Format;
use crate::build::{Built, Changed};
use crate::convert::{Converted, Method};
use crate::explain::Explained;
use crate::file::Info;
use crate::foreign::{ForeignInfo, GuavaInfo, RedisBloomInfo};
use crate::recommend::Recommendation;
use crate::units::{pct, size};
use filterlab::any::{Plan, Value};
use filterlab::keylines::escape;
use filterlab::Positions;
use std::fmt::Write;

fn plan_lines(p: &Plan, out: &mut String) {
    let _ = writeln!(
        out,
        "{} (n = {}, target {})",
        p.variant.name(),
        p.n,
        pct(p.fpr)
    );
    let _ = writeln!(out, "  memory        {} = {} bytes", size(p.bytes), p.bytes);
    let _ = writeln!(out, "  bits/key      {:.3}", p.bits_per_key);
    let _ = writeln!(
        out,
        "  lower bound   {:.0} bits (n log2 1/p); overhead {:+.1}%",
        p.lower_bound_bits, p.overhead_pct
    );
    let _ = writeln!(out, "  expected FPR  {} at n", pct(p.expected_fpr));
    for line in p.detail_lines() {
        let _ = writeln!(out, "  {line}");
    }
}

/// `calc`.
pub fn calc(plans: &[Plan]) -> String {
    let mut out = String::new();
    for p in plans {
        plan_lines(p, &mut out);
        out.push('\n');
    }
    out
}

/// `recommend`.
pub fn recommendation(r: &Recommendation) -> String {
    let mut out = format!("recommended: {}\n", r.plan.variant.name());
    for why in &r.why {
        let _ = writeln!(out, "  because {why}");
    }
    for note in &r.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    plan_lines(&r.plan, &mut out);
    let what_if: Vec<String> = r
        .what_if
        .iter()
        .map(|w| match w.fpr {
            Some(p) => format!("{}x n: FPR {}", w.multiple, pct(p)),
            None => format!("{}x n: inserts fail (table full)", w.multiple),
        })
        .collect();
    if !what_if.is_empty() {
        let _ = writeln!(out, "what if n is underestimated: {}", what_if.join("; "));
    }
    out
}

/// `build` (its warnings went to stderr).
pub fn build(b: &Built) -> String {
    let maybe = if b.maybe_duplicates > 0 {
        format!(
            "{} lines past the first {} distinct keys were already reported present \
             (repeats or false positives) and not inserted\n",
            b.maybe_duplicates,
            crate::keys::TRACKED_KEYS
        )
    } else {
        String::new()
    };
    let counted = match (b.capacity_counted, b.format) {
        (true, Format::Parquet) => " (the distinct keys, counted)",
        (true, _) => " (the key lines, counted)",
        (false, _) => "",
    };
    let what = match b.format {
        Format::Filterlab => format!("{} filter", b.variant.name()),
        Format::Guava => "Guava BloomFilter".to_string(),
        Format::Redisbloom => "RedisBloom scalable Bloom filter".to_string(),
        Format::Parquet => "Parquet file with a bloom filter".to_string(),
    };
    maybe
        + &format!(
            "built {what} {}: {} lines, {} keys inserted, {} duplicates, {} empty lines skipped\n\
             capacity {}{counted}, expected FPR {}, {} seed {}, {} bytes written\n",
            b.output,
            b.lines,
            b.inserted,
            b.duplicates,
            b.empty,
            b.capacity,
            pct(b.expected_fpr),
            b.hash,
            b.seed,
            b.file_bytes,
        )
}

/// `add` and `remove` (their warnings went to stderr).
pub fn changed(c: &Changed) -> String {
    let verb = if c.added { "added" } else { "removed" };
    let mut out = format!(
        "{verb} {} keys ({} empty skipped); {} now holds {} items (capacity {}), expected FPR {}\n",
        c.changed,
        c.empty,
        c.filter,
        c.items,
        c.capacity,
        pct(c.expected_fpr)
    );
    if c.absent > 0 {
        let _ = writeln!(out, "{} keys certainly absent, not removed:", c.absent);
        for k in &c.absent_keys {
            let _ = writeln!(out, "absent\t{k}");
        }
    }
    out
}

/// `info`.
pub fn info(i: &Info) -> String {
    let mut out = format!(
        "variant       {}\nitems         {} (capacity {})\nexpected FPR  {}\nmemory        {}\nfile          {} bytes\nhash          {} seed {}\nchecksum      {}{}\n",
        i.variant.name(),
        i.items,
        i.capacity,
        pct(i.expected_fpr),
        size(i.bytes),
        i.file_bytes,
        i.hash,
        i.seed,
        i.checksum,
        if i.checksum_verified {
            " (verified)"
        } else {
            " (not verified: opened in place; --verify reads the whole file)"
        }
    );
    let how = match (i.format_version, i.opens_in_place) {
        (_, true) => "opens in place".to_string(),
        (v, _) if v < i.writes_version && i.table_layout.is_some() => format!(
            "loads by copy (its table converted to today's layout); save it again to write \
             version {}",
            i.writes_version
        ),
        (1, _) => "loads by copy; save it again to write version 2".to_string(),
        _ => format!(
            "loads by copy (the {} filter does not open in place)",
            i.variant
        ),
    };
    let _ = writeln!(out, "format        version {}, {how}", i.format_version);
    if let Some(layout) = i.table_layout {
        let _ = writeln!(out, "table layout  {layout}");
    }
    for p in &i.parameters.0 {
        let (k, v) = (
            p.name,
            match p.value {
                Value::Count(n) => n.to_string(),
                Value::Ratio(x) => format!("{x:.4}"),
                Value::Rate(p) => pct(p),
            },
        );
        let _ = writeln!(out, "{k:<13} {v}");
    }
    out
}

/// One line of `query`: the answer, a tab, the key escaped (control characters and bytes that
/// are not UTF-8 never reach the terminal raw).
/// `info` of a Guava filter.
/// `info` of a foreign filter.
pub fn foreign_info(i: &ForeignInfo) -> String {
    match i {
        ForeignInfo::Guava(g) => guava_info(g),
        ForeignInfo::RedisBloom(r) => redisbloom_info(r),
    }
}

fn redisbloom_info(i: &RedisBloomInfo) -> String {
    let growth = i
        .expansion
        .map_or("NONSCALING".to_owned(), |e| format!("expansion {e}"));
    let names = ["NOROUND", "ENTS_IS_BITS", "FORCE64", "NO_SCALING"];
    let options: Vec<&str> = (0..4)
        .filter(|b| i.options >> b & 1 == 1)
        .map(|b| names[b])
        .collect();
    let mut s = format!(
        "format        RedisBloom scalable Bloom filter (BF.SCANDUMP chunks), {} link(s), {growth}, options {} ({})\nitems         {} (as RedisBloom counts them: keys that were new)\ncapacity      {}\nexpected FPR  {} at the recorded count\nbit arrays    {}\nfile          {} bytes\nhash          {}\n",
        i.links.len(),
        i.options,
        options.join("|"),
        i.items,
        i.capacity,
        pct(i.expected_fpr),
        size(i.bytes),
        i.file_bytes,
        i.hash,
    );
    for (n, l) in i.links.iter().enumerate() {
        let _ = writeln!(
            s,
            "link {n}        {} bits ({} reachable), k = {}, {} of {} items, error {}, FPR {}",
            l.bits,
            l.reachable_bits,
            l.hashes,
            l.items,
            l.capacity,
            l.error_rate,
            pct(l.expected_fpr),
        );
    }
    s
}

fn guava_info(i: &GuavaInfo) -> String {
    let share = i.bits_set as f64 / i.bits as f64;
    format!(
        "format        Guava BloomFilter (writeTo), {}\nbits          {} ({}), k = {}\nbits set      {} ({:.2}%)\nitems         {:.0} estimated from the set bits (sd {:.1}; a Guava file stores no count)\nexpected FPR  {} at the estimated count\ncapacity      {} (m ln 2 / k, where k is optimal)\nfile          {} bytes\nhash          {} (keys as Funnels.byteArrayFunnel() or stringFunnel(UTF_8) hash them)\n",
        i.strategy,
        i.bits,
        size(i.bits / 8),
        i.hashes,
        i.bits_set,
        100.0 * share,
        i.estimated_items,
        i.estimated_items_sd,
        pct(i.expected_fpr),
        i.capacity,
        i.file_bytes,
        i.hash,
    )
}

/// `convert`.
pub fn converted(c: &Converted) -> String {
    let how = match (c.method, c.keys) {
        (Method::Exact, _) => "the same bits: every key is answered as before".to_string(),
        (Method::Rebuilt, Some(n)) => {
            format!("rebuilt from {n} distinct keys, each held by the input")
        }
        (Method::Rebuilt, None) => "rebuilt".to_string(),
    };
    format!(
        "converted {} ({}) to {} {}: {how}\nexpected FPR {}, {} bytes written\n",
        c.input,
        c.from,
        c.to.describe(),
        c.output,
        pct(c.expected_fpr),
        c.file_bytes
    )
}

pub fn answer_line(key: &[u8], maybe_present: bool) -> String {
    let answer = if maybe_present {
        "maybe-present"
    } else {
        "absent"
    };
    format!("{answer}\t{}\n", escape(key))
}

/// `explain`.
pub fn explain(e: &Explained) -> String {
    let mut out = String::new();
    plan_lines(&e.plan, &mut out);
    for f in &e.formulas {
        let _ = writeln!(
            out,
            "\n{}: {}\n  = {}\n  [{}]",
            f.name, f.symbolic, f.substituted, f.source
        );
    }
    if let (Some(key), Some(t)) = (&e.key, &e.touch) {
        let _ = writeln!(
            out,
            "\nkey \"{}\" ({}, seed {}):",
            escape(key.as_bytes()),
            e.hash,
            e.seed
        );
        positions(t, &mut out);
    }
    out
}

/// The positions a key touches, as text.
fn positions(t: &Positions, out: &mut String) {
    let _ = match t {
        Positions::Counters { counters, .. } => {
            writeln!(out, "  increments counters {counters:?}")
        }
        Positions::Bits { bits, .. } => writeln!(out, "  sets bits {bits:?}"),
        Positions::Stages { stages } => {
            for (i, stage) in stages.iter().enumerate() {
                let _ = writeln!(out, "  stage {i}:");
                positions(stage, out);
            }
            writeln!(out, "  (an insert writes the last stage; a lookup reads every stage)")
        }
        Positions::Lanes { block, lane_bits } => {
            writeln!(out, "  block {block}, bit of each 32-bit lane {lane_bits:?}")
        }
        Positions::Buckets { fingerprint, primary, alternate } => writeln!(
            out,
            "  fingerprint {fingerprint}, bucket {primary} or alternate {alternate}; alternate = (mix(fingerprint) - primary) mod buckets, so either bucket finds the other"
        ),
        Positions::Run { quotient, remainder, remainder_bits } => writeln!(
            out,
            "  home slot {quotient}, {remainder_bits}-bit remainder {remainder}; stored in the run of its home slot, shifted right past the runs before it"
        ),
        Positions::Xor { slots, fingerprint } => writeln!(
            out,
            "  fingerprint {fingerprint}: present when the slots {slots:?} XOR to it (built once from the key set)"
        ),
        other => writeln!(out, "  {other:?}"),
    };
}

#[cfg(test)]
mod tests;
