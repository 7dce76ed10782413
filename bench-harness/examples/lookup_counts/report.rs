//! Callgrind output files read back: the collected events' totals, per operation.
//!
//! A file's `cmd:` line names the contender, the key mix, the members and the operations it ran
//! (`lookup_counts run --contender … --mix … --members … --ops …`), its `events:` line the
//! events and its `totals:` line (else `summary:`) their totals over the collected function.
//! As in callgrind's cost lines, values missing at the end of the totals are zero.

use std::fmt;

/// Why a callgrind file cannot be read back.
#[derive(Debug, PartialEq, Eq)]
pub enum ParseError {
    /// No `events:` line (not a callgrind file).
    NoEvents,
    /// No `totals:` or `summary:` line.
    NoTotals,
    /// More totals than events.
    TooManyValues { events: usize, values: usize },
    /// A total that is not a whole number.
    BadNumber(String),
    /// No `cmd:` line, or one without this flag's value.
    MissingFlag(&'static str),
    /// `--ops` is not a positive whole number.
    BadOps(String),
    /// An event every row needs was not collected (callgrind run without `--cache-sim=yes`).
    MissingEvent(&'static str),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NoEvents => write!(f, "no `events:` line: not a callgrind output file"),
            ParseError::NoTotals => write!(f, "no `totals:` or `summary:` line"),
            ParseError::TooManyValues { events, values } => {
                write!(f, "{values} totals for {events} events")
            }
            ParseError::BadNumber(s) => write!(f, "total {s:?} is not a whole number"),
            ParseError::MissingFlag(flag) => {
                write!(
                    f,
                    "the `cmd:` line has no {flag} value (was it a lookup_counts run?)"
                )
            }
            ParseError::BadOps(s) => write!(f, "--ops {s:?} is not a positive whole number"),
            ParseError::MissingEvent(e) => {
                write!(
                    f,
                    "event {e} was not collected (run callgrind with --cache-sim=yes)"
                )
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Events every row needs.
const REQUIRED: [&str; 4] = ["Ir", "Dr", "D1mr", "DLmr"];

/// One run's totals.
#[derive(Debug, PartialEq)]
pub struct Counts {
    pub contender: String,
    pub mix: String,
    pub members: String,
    pub ops: u64,
    events: Vec<(String, u64)>,
}

fn flag<'a>(cmd: &'a [&'a str], name: &'static str) -> Result<&'a str, ParseError> {
    cmd.windows(2)
        .find(|w| w[0] == name)
        .map(|w| w[1])
        .ok_or(ParseError::MissingFlag(name))
}

impl Counts {
    /// Reads a callgrind output file's text.
    ///
    /// # Errors
    /// See [`ParseError`].
    pub fn parse(text: &str) -> Result<Counts, ParseError> {
        let line = |key: &str| text.lines().find_map(|l| l.strip_prefix(key));
        let names: Vec<&str> = line("events:")
            .ok_or(ParseError::NoEvents)?
            .split_whitespace()
            .collect();
        let totals = line("totals:")
            .or_else(|| line("summary:"))
            .ok_or(ParseError::NoTotals)?;
        let values = totals
            .split_whitespace()
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| ParseError::BadNumber(v.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if values.len() > names.len() {
            return Err(ParseError::TooManyValues {
                events: names.len(),
                values: values.len(),
            });
        }
        let events: Vec<(String, u64)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), values.get(i).copied().unwrap_or(0)))
            .collect();
        if let Some(e) = REQUIRED
            .iter()
            .find(|e| !events.iter().any(|(n, _)| n == *e))
        {
            return Err(ParseError::MissingEvent(e));
        }
        let cmd: Vec<&str> = line("cmd:").unwrap_or("").split_whitespace().collect();
        let ops_text = flag(&cmd, "--ops")?;
        let ops = match ops_text.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => return Err(ParseError::BadOps(ops_text.to_string())),
        };
        Ok(Counts {
            contender: flag(&cmd, "--contender")?.to_string(),
            mix: flag(&cmd, "--mix")?.to_string(),
            members: flag(&cmd, "--members")?.to_string(),
            ops,
            events,
        })
    }

    /// `event`'s total per operation, if it was collected.
    pub fn per_op(&self, event: &str) -> Option<f64> {
        self.events
            .iter()
            .find(|(n, _)| n == event)
            .map(|&(_, v)| v as f64 / self.ops as f64)
    }
}

/// Columns of the table: heading and event.
const COLUMNS: [(&str, &str); 8] = [
    ("instructions (Ir)", "Ir"),
    ("data reads (Dr)", "Dr"),
    ("data writes (Dw)", "Dw"),
    ("D1 read misses (D1mr)", "D1mr"),
    ("LL read misses (DLmr)", "DLmr"),
    ("cond. branches (Bc)", "Bc"),
    ("mispredicted (Bcm)", "Bcm"),
    ("indirect mispredicted (Bim)", "Bim"),
];

/// A Markdown table of every run's counts per operation, in the given order.
pub fn table(rows: &[Counts]) -> String {
    let mut out = String::from("| contender | keys | members | operations |");
    for (h, _) in COLUMNS {
        out.push_str(&format!(" {h} |"));
    }
    out.push_str("\n|---|---|---:|---:|");
    out.push_str(&"---:|".repeat(COLUMNS.len()));
    out.push('\n');
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |",
            r.contender, r.mix, r.members, r.ops
        ));
        for (_, e) in COLUMNS {
            match r.per_op(e) {
                Some(v) => out.push_str(&format!(" {v:.2} |")),
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
