//! The directives a chapter writes where a number belongs, so that no number is typed in:
//!
//! | directive | fills in |
//! |---|---|
//! | `{{#study}}` | the course study's commit, date, size and repetitions |
//! | `{{#measured TITLE}}` | a course section's source, measured table, finding and plots |
//! | `{{#erratum TITLE}}` | an erratum's runs, table and outcomes |
//! | `{{#value TITLE \| ROW \| FIELD}}` | one number of a measured row |
//! | `{{#example KIND key=value ...}}` | a worked example computed by `filter_core::math` |
//! | `{{#exercise ARGS \| PATH}}` | the answer of `filterlab ARGS --json` at PATH, with the command |
//!
//! `value` and `exercise` take a pin, `= TEXT` at the end: the text the chapter expects. The
//! book does not build, and `check` fails, when the number no longer reads so. `\{{#` writes a
//! literal `{{#`.

/// What a chapter asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    /// The course study's settings line.
    Study,
    /// A course section, by title.
    Measured(String),
    /// An erratum, by title.
    Erratum(String),
    /// One number of one row.
    Value {
        /// The section's or erratum's title.
        title: String,
        /// The row's label.
        row: String,
        /// Which number.
        field: Field,
        /// The text the chapter expects, if pinned.
        pin: Option<String>,
    },
    /// A worked example.
    Example {
        /// Which example.
        kind: String,
        /// Its `key=value` parameters, in order.
        params: Vec<(String, String)>,
    },
    /// An exercise's answer.
    Exercise {
        /// The `filterlab` arguments (without `--json`).
        args: Vec<String>,
        /// The dotted path into the JSON answer (`plan.variant`, `bits_per_key`).
        path: String,
        /// The text the chapter expects, if pinned.
        pin: Option<String>,
    },
}

/// The numbers of a measured row a chapter can quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The formula's value.
    Formula,
    /// The pooled measured rate.
    Measured,
    /// The 95% Wilson interval's lower end.
    Low,
    /// Its upper end.
    High,
    /// Pooled hits.
    Hits,
    /// Pooled trials.
    Trials,
    /// The z of the verdict.
    Z,
    /// The verdict in words.
    Verdict,
}

impl Field {
    fn parse(s: &str) -> Result<Field, String> {
        const ALL: [(&str, Field); 8] = [
            ("formula", Field::Formula),
            ("measured", Field::Measured),
            ("low", Field::Low),
            ("high", Field::High),
            ("hits", Field::Hits),
            ("trials", Field::Trials),
            ("z", Field::Z),
            ("verdict", Field::Verdict),
        ];
        ALL.iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, f)| f)
            .ok_or_else(|| {
                let names: Vec<&str> = ALL.iter().map(|(n, _)| *n).collect();
                format!("unknown field {s:?} ({})", names.join(", "))
            })
    }
}

/// A piece of a chapter: text to keep, or a directive to fill in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Text as written.
    Text(String),
    /// A directive, with its source text (for messages).
    Directive(Directive, String),
}

/// Splits a pin (` = TEXT`) off the last `|`-part of `s`, the only part that may carry one (a
/// title or a row label may itself contain ` = ` or `|`).
fn pinned(s: &str) -> (&str, Option<String>) {
    let last = s.rfind('|').map_or(0, |i| i + 1);
    match s[last..].find(" = ") {
        Some(i) => (
            s[..last + i].trim(),
            Some(s[last + i + 3..].trim().to_string()),
        ),
        None => (s.trim(), None),
    }
}

const THREE: &str = "{{#value TITLE | ROW | FIELD}} takes three parts";

fn parse_one(body: &str) -> Result<Directive, String> {
    let body = body.trim();
    let (name, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let rest = rest.trim();
    let need = |what: &str| {
        if rest.is_empty() {
            Err(format!("{{{{#{name}}}}} needs {what}"))
        } else {
            Ok(rest.to_string())
        }
    };
    match name {
        "study" if rest.is_empty() => Ok(Directive::Study),
        "measured" => need("a section title").map(Directive::Measured),
        "erratum" => need("an erratum title").map(Directive::Erratum),
        "value" => {
            let (spec, pin) = pinned(rest);
            // The title has no `|`; the row label may (`A | B (3000 keys)`); the field has none.
            let (title, rest) = spec.split_once('|').ok_or(THREE)?;
            let (row, field) = rest.rsplit_once('|').ok_or(THREE)?;
            Ok(Directive::Value {
                title: title.trim().into(),
                row: row.trim().into(),
                field: Field::parse(field.trim())?,
                pin,
            })
        }
        "example" => {
            let mut words = rest.split_whitespace();
            let kind = words.next().ok_or("{{#example KIND ...}} needs a kind")?;
            let params = words
                .map(|w| {
                    w.split_once('=')
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .ok_or_else(|| format!("example parameter {w:?} is not key=value"))
                })
                .collect::<Result<_, _>>()?;
            Ok(Directive::Example {
                kind: kind.into(),
                params,
            })
        }
        "exercise" => {
            let (spec, pin) = pinned(rest);
            let (args, path) = spec
                .rsplit_once('|')
                .ok_or("{{#exercise ARGS | PATH}} needs a JSON path after |")?;
            let args: Vec<String> = args.split_whitespace().map(String::from).collect();
            match args.first().map(String::as_str) {
                Some("calc" | "recommend") => {}
                _ => {
                    return Err("an exercise runs `filterlab calc` or `filterlab recommend`".into())
                }
            }
            Ok(Directive::Exercise {
                args,
                path: path.trim().into(),
                pin,
            })
        }
        _ => Err(format!("unknown directive {{{{#{body}}}}}")),
    }
}

/// Cuts a chapter into text and directives.
///
/// # Errors
/// Every directive that does not parse, or is not closed, with its line.
pub fn parse(text: &str) -> Result<Vec<Piece>, Vec<String>> {
    let mut pieces = Vec::new();
    let mut errors = Vec::new();
    let mut rest = text;
    let mut plain = String::new();
    while let Some(i) = rest.find("{{#") {
        if rest[..i].ends_with('\\') {
            plain.push_str(&rest[..i - 1]);
            plain.push_str("{{#");
            rest = &rest[i + 3..];
            continue;
        }
        plain.push_str(&rest[..i]);
        let line = text[..text.len() - rest.len() + i].matches('\n').count() + 1;
        let Some(end) = rest[i..].find("}}") else {
            errors.push(format!("line {line}: a directive is not closed with }}}}"));
            rest = "";
            break;
        };
        let source = &rest[i..i + end + 2];
        match parse_one(&source[3..source.len() - 2]) {
            Ok(d) => {
                pieces.push(Piece::Text(std::mem::take(&mut plain)));
                pieces.push(Piece::Directive(d, source.to_string()));
            }
            Err(e) => errors.push(format!("line {line}: {e}")),
        }
        rest = &rest[i + end + 2..];
    }
    plain.push_str(rest);
    pieces.push(Piece::Text(plain));
    if errors.is_empty() {
        Ok(pieces)
    } else {
        Err(errors)
    }
}
