//! Where results, warnings and errors go: results on stdout (text or JSON), warnings and
//! errors on stderr, one line each (under `--json`, one JSON object each).

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::json;
use std::io::Write;

/// How the command reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Out {
    /// JSON instead of text.
    pub json: bool,
    /// Warnings about the result are errors.
    pub strict: bool,
}

impl Out {
    /// Prints `value` as JSON or with `text`; exit code 0.
    ///
    /// # Errors
    /// Stdout cannot be written (a closed pipe).
    pub fn emit<T: Serialize + ?Sized>(self, value: &T, text: fn(&T) -> String) -> Result<u8> {
        let out = if self.json {
            serde_json::to_string_pretty(value)?
        } else {
            text(value)
        };
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", out.trim_end()).context("cannot write to stdout")?;
        Ok(0)
    }

    /// A warning on stderr: `warning: ...`, or `{"warning": "..."}` under `--json`.
    pub fn warn(self, message: &str) {
        self.stderr("warning", message);
    }

    /// A note on stderr: `note: ...`, or `{"note": "..."}` under `--json`.
    pub fn note(self, message: &str) {
        self.stderr("note", message);
    }

    fn stderr(self, kind: &str, message: &str) {
        if self.json {
            eprintln!("{}", json!({ kind: message }));
        } else {
            eprintln!("{kind}: {message}");
        }
    }
}

/// An error and its causes on one line, joined by `": "` as anyhow's `{:#}` joins them, but each
/// cause once: an error that shows its source in its own message and also returns it as its
/// source (a transparent wrapper) would otherwise print the cause twice (`Is a directory (os
/// error 21): Is a directory (os error 21)`).
pub fn chain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if cause.is_empty() || text.ends_with(&cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
}

/// Prints an error on stderr: `error: ...`, or `{"error": "...", ...}` under `--json`, with
/// `nearest` (whole command lines that would succeed) when there are any.
pub fn error(json: bool, message: &str, nearest: &[String]) {
    if json {
        let mut v = json!({ "error": message });
        if !nearest.is_empty() {
            v["nearest"] = json!(nearest);
        }
        eprintln!("{v}");
    } else if nearest.is_empty() {
        eprintln!("error: {message}");
    } else {
        let lines: Vec<String> = nearest.iter().map(|n| format!("`{n}`")).collect();
        eprintln!("error: {message}; nearest possible: {}", lines.join(" or "));
    }
}
