//! A sign-up service with the gate in front of PostgreSQL, and a load generator, in one binary
//! (the service and the load live in `filter_gate::service`, feature `service`, which the
//! harness's systems stage also runs).
//!
//! ```text
//! eval "$(bash scripts/pg.sh start)"
//! cargo run --release -p filter-gate --features service --example signup_service -- [--clients 32] [--ops 2000] [--preload 100000]
//! bash scripts/pg.sh stop
//! ```
//!
//! See `filter_gate::service` for what it creates, serves and measures. It prints throughput
//! and p50/p99 of both request kinds per mode, and the number of duplicate accounts, which
//! must be 0.

use filter_gate::service::{self, LoadConfig};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn args() -> Result<LoadConfig, Error> {
    let mut a = LoadConfig::default();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value: usize = it.next().ok_or("a flag needs a value")?.parse()?;
        match flag.as_str() {
            "--clients" => a.clients = value.max(1),
            "--ops" => a.ops = value,
            "--preload" => a.preload = value,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(a)
}

fn main() -> Result<(), Error> {
    let load = args()?;
    let conn = std::env::var("FILTERLAB_PG")
        .map_err(|_| "set FILTERLAB_PG (eval \"$(bash scripts/pg.sh start)\")")?;
    println!(
        "{} clients x {} checks, {} accounts preloaded, {} contested addresses",
        load.clients, load.ops, load.preload, load.contested
    );
    let report = service::run(&conn, &load)?;
    for m in &report.modes {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:8} {:>9.0} req/s   check p50 {:>8.3} ms p99 {:>8.3} ms   sign-up p50 {:>8.3} ms p99 {:>8.3} ms",
            format!("{:?}", m.mode),
            m.requests as f64 / m.seconds,
            ms(m.check_p50),
            ms(m.check_p99),
            ms(m.signup_p50),
            ms(m.signup_p99),
        );
        if let Some(p) = m.gate_fpr {
            println!("         gate: measured FP rate {p:.4}");
        }
    }
    println!("duplicate accounts: {}", report.duplicates);
    if report.duplicates != 0 {
        return Err(format!("{} duplicate accounts", report.duplicates).into());
    }
    Ok(())
}
