//! `filterlab`: the calculator, adviser and teaching tool for filterlab's filters.
//!
//! ```text
//! filterlab calc --n 10M --fpr 1% [--variant V]
//! filterlab recommend --n 10M --fpr 1% [--deletes] [--growth] [--max-memory 64MiB] [--threads 4]
//! filterlab build --variant classic --n 10M --fpr 1% --keys emails.txt -o filter.bin
//! filterlab query filter.bin alice@example.com bob@example.com      (or --keys FILE, or stdin)
//! filterlab info filter.bin
//! filterlab explain --variant classic --n 10M --fpr 1% alice@example.com
//! ```
//!
//! Every command takes `--json`. Exit codes: 0 success (for `query`: every key maybe present),
//! 1 `query` found a key certainly absent, 2 any error (bad number, missing or damaged file,
//! wrong variant, full table), reported as one line on stderr.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod commands;
mod explain;
mod keys;
mod parse;
mod plan;
mod recommend;
mod render;
mod store;

use clap::{Parser, Subcommand};
use plan::Variant;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code of a failed command.
const EXIT_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "filterlab",
    version,
    about = "Size, choose, build, query and explain approximate-membership filters",
    after_help = "Numbers: 10M, 1e7, 10_000_000; rates: 1%, 0.01, 1/100; memory: 64MiB, 512MB.\n\
                  Exit codes: 0 success (query: all keys maybe present), 1 query: some key absent, 2 error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print JSON instead of text, for scripts.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Memory, hash functions and expected rate of every variant (or one) for n items at rate p.
    Calc {
        #[command(flatten)]
        size: Size,
        /// Only this variant.
        #[arg(long, value_enum)]
        variant: Option<Variant>,
    },
    /// Which variant to use, sized, with the reasons and what happens if n is underestimated.
    Recommend {
        #[command(flatten)]
        size: Size,
        /// Items must be removable.
        #[arg(long)]
        deletes: bool,
        /// The item count is unknown or keeps growing.
        #[arg(long)]
        growth: bool,
        /// Memory budget (64MiB, 512MB, ...).
        #[arg(long, value_parser = parse::bytes)]
        max_memory: Option<u64>,
        /// Threads that will query the filter.
        #[arg(long, default_value = "1", value_parser = parse::threads)]
        threads: u32,
    },
    /// Build a filter from keys, one per line, and save it.
    Build {
        /// Variant.
        #[arg(long, value_enum)]
        variant: Variant,
        #[command(flatten)]
        size: Size,
        /// Key file, one key per line; `-` for stdin.
        #[arg(long)]
        keys: PathBuf,
        /// Where to save the filter (written whole or not at all).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Ask a saved filter about keys. Exit 0: all maybe present; 1: some certainly absent.
    Query {
        /// The saved filter.
        filter: PathBuf,
        /// Keys to ask about; none and no --keys: read stdin, one per line.
        keys: Vec<String>,
        /// Read keys from this file, one per line.
        #[arg(long = "keys", value_name = "FILE", conflicts_with = "keys")]
        key_file: Option<PathBuf>,
    },
    /// Variant, parameters, items, expected rate, bytes and checksum of a saved filter.
    Info {
        /// The saved filter.
        filter: PathBuf,
    },
    /// Each formula with this filter's numbers, and where a key lands.
    Explain {
        /// Variant.
        #[arg(long, value_enum)]
        variant: Variant,
        #[command(flatten)]
        size: Size,
        /// A key to locate in the filter.
        key: Option<String>,
    },
}

/// Capacity and rate, in human numbers.
#[derive(clap::Args, Debug, Clone, Copy)]
struct Size {
    /// Items (10M, 1e7, 10_000_000).
    #[arg(long, value_parser = parse::count, allow_hyphen_values = true)]
    n: u64,
    /// False-positive rate (1%, 0.01, 1/100).
    #[arg(long, value_parser = parse::rate, allow_hyphen_values = true)]
    fpr: f64,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // clap's message, without its usage block, on one line.
            let text = e.to_string();
            let message: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty())
                .collect();
            eprintln!("{} (try --help)", message.join(" "));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    match commands::run(cli.command, cli.json) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // `{:#}` joins the context chain into one line.
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
