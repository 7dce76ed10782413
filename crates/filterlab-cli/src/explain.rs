//! The teaching mode: each formula of a variant with a filter's numbers substituted, and for a
//! key the positions it touches, as the variant itself computes them (`filterlab::Explain`).

use crate::units::size;
use anyhow::{bail, Context, Result};
use filterlab::any::{formulas, Formula, Plan};
use filterlab::{AnyFilter, Explain, Filter, Params, Positions, Variant};
use serde::Serialize;
use std::path::Path;

/// What `explain` shows.
#[derive(Debug, Serialize)]
pub struct Explained {
    /// The saved filter explained, if one was.
    pub file: Option<String>,
    /// The sized filter.
    pub plan: Plan,
    /// Its formulas.
    pub formulas: Vec<Formula>,
    /// Hash function.
    pub hash: &'static str,
    /// Seed.
    pub seed: u64,
    /// The key asked about.
    pub key: Option<String>,
    /// Where it lands.
    pub touch: Option<Positions>,
}

/// `explain --variant V --n N --fpr P [KEY]`: the formulas of the sized variant; for a key, the
/// positions in a filter built with those parameters (seed 0).
///
/// # Errors
/// More than one key; parameters that cannot be sized or, with a key, built.
pub fn sized(v: Variant, n: u64, p: f64, args: Vec<String>) -> Result<Explained> {
    if args.len() > 1 {
        bail!("with --variant, explain takes one key (or none); without it, FILE [KEY]");
    }
    let params = Params::new(n, p);
    let plan = v.plan(&params)?;
    let key = args.into_iter().next();
    let touch = key
        .as_deref()
        .map(|k| place(v, &params, &plan, k.as_bytes()))
        .transpose()?;
    Ok(Explained {
        file: None,
        formulas: formulas(&plan),
        hash: params.hasher.kind().name(),
        seed: params.hasher.seed(),
        key,
        touch,
        plan,
    })
}

/// The most bytes `explain --variant` builds a filter of to place a key, for a variant whose
/// plan does not place it ([`Plan::positions_hash`]): a table this size is zeroed in well under
/// a second; a larger one is refused instead of allocated (5 GiB at n = 2^32).
const BUILT_TO_EXPLAIN: u64 = 64 << 20;

/// Where `key` lands in the filter `plan` sizes: from the plan where it says (the Bloom
/// variants), else in a filter built with `params`, whose table is zeroed memory nothing writes
/// to, if it takes at most [`BUILT_TO_EXPLAIN`].
fn place(v: Variant, params: &Params, plan: &Plan, key: &[u8]) -> Result<Positions> {
    if let Some(p) = plan.positions_hash(params.hasher.hash(key)) {
        return Ok(p);
    }
    if plan.bytes > BUILT_TO_EXPLAIN {
        bail!(
            "explain places a key in a {v} filter by building one, and this one takes {} \
             (more than {}); give a smaller --n (where a key lands follows the same rule at \
             any size), or explain a saved filter (explain FILE KEY)",
            size(plan.bytes),
            size(BUILT_TO_EXPLAIN)
        );
    }
    Ok(AnyFilter::build(v, params)
        .context("explain builds the filter to locate a key; lower --n")?
        .positions(key))
}

/// `explain FILE [KEY]`: the formulas with a saved filter's own parameters, and where a key
/// lands in it, hashed with the file's hash function and seed.
///
/// # Errors
/// No file named, or one that cannot be loaded.
pub fn saved(args: Vec<String>) -> Result<Explained> {
    let mut args = args.into_iter();
    let Some(path) = args.next() else {
        bail!("explain needs a saved filter (explain FILE [KEY]) or --variant, --n and --fpr");
    };
    let read = crate::file::read_only(Path::new(&path)).context(
        "explain FILE [KEY] reads a saved filter; to size one instead, give --variant, --n and --fpr",
    )?;
    let f = read.filter();
    let plan = f.plan().context("the file's parameters")?;
    let key = args.next();
    let touch = key.as_deref().map(|k| f.positions(k.as_bytes()));
    let hasher = f.hasher();
    Ok(Explained {
        file: Some(path),
        formulas: formulas(&plan),
        hash: hasher.kind().name(),
        seed: hasher.seed(),
        key,
        touch,
        plan,
    })
}
