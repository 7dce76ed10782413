//! The systems as a stage of the harness run: quick sizes under `--quick`, the articles' sizes
//! otherwise; skipped for `--keys` runs (they measure filters, not systems).

use std::path::PathBuf;

use anyhow::Result;

use crate::plan::{Plan, Run, Stage};

/// The sign-up gate on SQLite/PostgreSQL/RedisBloom, unique users, and the systems' claims,
/// written to `<out>/systems.md` and `<out>/systems.json`.
pub struct Systems;

impl Stage for Systems {
    fn name(&self) -> &'static str {
        "systems: sign-up gate and unique users (servers from scripts/)"
    }

    fn wanted(&self, plan: &Plan) -> bool {
        plan.keys.is_none()
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut cfg = if run.plan.quick {
            super::Config::quick(root)
        } else {
            super::Config::full(root)
        };
        cfg.machine = run.results.machine.clone();
        cfg.python_lookup_ns = run
            .results
            .peers
            .iter()
            .find(|p| p.side == crate::record::Side::Python)
            .map(|p| p.ns_negative.median);
        run.outputs.push(Box::new(super::run(&cfg)?));
        Ok(())
    }
}
