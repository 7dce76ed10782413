//! `filterlab`: the calculator, adviser and teaching tool for filterlab's filters.
//!
//! ```text
//! filterlab calc --n 10M --fpr 1% [--variant V]
//! filterlab recommend --n 10M --fpr 1% [--deletes] [--growth [--max-n 100M]] [--max-memory 64MiB] [--threads 4]
//! filterlab build --variant classic [--n 10M] --fpr 1% --keys emails.txt -o filter.bin [--seed S | --secret-seed] [--hash H]
//! filterlab query filter.bin alice@example.com bob@example.com      (or --keys FILE, or stdin)
//! filterlab add filter.bin carol@example.com                          (or --keys FILE, or stdin)
//! filterlab remove filter.bin carol@example.com                       (counting and cuckoo only)
//! filterlab info filter.bin
//! filterlab info data.parquet                                      (each column chunk's bloom filter)
//! filterlab query data.parquet --column email --keys probes.txt      (row groups that may hold each key)
//! filterlab build --to guava --fpr 1% --keys emails.txt -o emails.guava   (Guava's BloomFilter)
//! filterlab convert old.bin new.bin --to filterlab                    (or --to guava; --keys FILE to rebuild)
//! filterlab recommend --n 70K --fpr 1% --window 24h                   (or --window items)
//! filterlab build --variant time-window --n 70K --fpr 1% --keys k.txt --at 1700000000 -o w.bin
//! filterlab query w.bin --at 1700003600 alice@example.com
//! filterlab explain filter.bin alice@example.com
//! filterlab explain --variant classic --n 10M --fpr 1% alice@example.com
//! filterlab gate migrate --url 'host=db user=owner dbname=app' --table auth.users --column email
//! ```
//!
//! Every command takes `--json`. Exit codes: 0 success (for `query`: every key maybe present),
//! 1 `query` found a key certainly absent (`remove`: a key certainly absent was not removed),
//! 2 any error (bad number, missing or damaged file, wrong variant, full table), reported as
//! one line on stderr (under `--json`, one JSON object).
mod args;
mod build;
mod commands;
mod convert;
mod explain;
mod file;
mod foreign;
#[cfg(feature = "gate")]
mod gate;
mod keys;
mod output;
mod parquet;
mod parse;
mod recommend;
mod render;
mod signals;
mod units;
mod window;

use args::Cli;
use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// Exit code of a failed command.
const EXIT_ERROR: u8 = 2;

/// Ignores SIGXFSZ, whose default action kills the process, without a word and with its
/// temporary file left behind, when a write passes the file-size limit (`ulimit -f`): ignored,
/// the write fails with EFBIG instead, the save removes its temporary file and the error is
/// reported (as Python does at startup).
#[cfg(unix)]
#[allow(unsafe_code)]
fn ignore_file_size_signal() {
    // SAFETY: `signal` with `SIG_IGN` installs no handler (no code runs on the signal); it is
    // called first thing in `main`, before any thread exists, and changes only this process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    ignore_file_size_signal();
    signals::install();
    // Known before parsing, so that even a bad argument is reported as JSON under --json.
    let json = std::env::args_os().any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version; a reader that closed the pipe early (`| head`) has all
            // it wanted, so a failed write is no error (and `print!` would panic on it).
            let _ = write!(std::io::stdout().lock(), "{e}");
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
            let message = message.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            output::error(json, &format!("{message} (try --help)"), &[]);
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let out = output::Out {
        json: cli.json,
        strict: cli.strict,
    };
    match commands::run(cli.command, out) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // The context chain on one line, each cause once.
            output::error(cli.json, &output::chain(&e), &[]);
            ExitCode::from(EXIT_ERROR)
        }
    }
}
