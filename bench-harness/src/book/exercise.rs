//! Exercises: the chapter gives the `filterlab` command; the book runs it when it is built and
//! prints the answer it gives, with the command beside it, so a student can check by running it.

use std::path::Path;
use std::process::Command;

/// A number as an answer: whole numbers whole, others to 4 significant digits.
#[must_use]
pub fn show(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => n.to_string(),
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let e = if x == 0.0 {
                0
            } else {
                x.abs().log10().floor() as i32
            };
            let decimals = (3 - e).max(0) as usize;
            let s = format!("{x:.decimals$}");
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            }
        }
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value at a dotted `path` (`plan.variant`, `0.bits_per_key`); a one-element array is
/// looked into.
///
/// # Errors
/// A step of the path that is not there.
pub fn at<'a>(json: &'a serde_json::Value, path: &str) -> Result<&'a serde_json::Value, String> {
    let mut v = match json {
        serde_json::Value::Array(a) if a.len() == 1 => &a[0],
        other => other,
    };
    for step in path.split('.') {
        v = match v {
            serde_json::Value::Array(a) => step.parse::<usize>().ok().and_then(|i| a.get(i)),
            serde_json::Value::Object(o) => o.get(step),
            _ => None,
        }
        .ok_or_else(|| format!("the answer has no {path:?} (stuck at {step:?})"))?;
    }
    Ok(v)
}

/// Runs `cli args --json` and returns the value at `path`, shown.
///
/// # Errors
/// The command fails, prints no JSON, or has nothing at `path`.
pub fn answer(cli: &Path, args: &[String], path: &str) -> Result<String, String> {
    let out = Command::new(cli)
        .args(args)
        .arg("--json")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cli.display()))?;
    if !out.status.success() {
        return Err(format!(
            "`filterlab {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("`filterlab {}` printed no JSON: {e}", args.join(" ")))?;
    at(&json, path).map(show)
}

/// The exercise's answer, folded, with the command that checks it: one line of HTML, so that it
/// can stand inside a list item.
#[must_use]
pub fn block(args: &[String], path: &str, answer: &str) -> String {
    let html = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    format!(
        "<details><summary>Answer</summary><p><strong>{}</strong>. Check it: \
         <code>filterlab {} --json</code> prints it at <code>{}</code>.</p></details>",
        html(answer),
        html(&args.join(" ")),
        html(path)
    )
}
