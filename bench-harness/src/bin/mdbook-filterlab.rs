//! The book's mdBook preprocessor (see `bench_harness::book`): `book/book.toml` runs it.
//!
//! ```text
//! mdbook-filterlab supports html          # exit 0: it does
//! mdbook-filterlab < [context, book] > book  # fills in the directives (before KaTeX)
//! mdbook-filterlab escape < [context, book] > book  # protects KaTeX's TeX source (after it)
//! ```

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let escape = args.first().is_some_and(|a| a == "escape");
    if escape {
        args.remove(0);
    }
    if let [cmd, renderer] = args.as_slice() {
        if cmd == "supports" {
            return if bench_harness::book::preprocess::supports(renderer) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
    }
    let mut input = String::new();
    let result = std::io::stdin()
        .read_to_string(&mut input)
        .map_err(anyhow::Error::from)
        .and_then(|_| {
            if escape {
                bench_harness::book::preprocess::run_escape(&input)
            } else {
                bench_harness::book::preprocess::run(&input)
            }
        })
        .and_then(|book| Ok(std::io::stdout().write_all(book.as_bytes())?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mdbook-filterlab: {e:#}");
            ExitCode::FAILURE
        }
    }
}
