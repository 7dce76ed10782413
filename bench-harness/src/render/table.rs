//! A small Markdown table writer: headers with their alignment, rows of cells, each cell through
//! the one escape ([`cell`]) so that no text can break the table (a `|`, a line break) or hide
//! in it (a bare `<` or `>`); and [`misshapen`], which finds the rows of a rendered page whose
//! cells do not match their header.

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
    /// Short verdicts.
    Center,
}

/// A Markdown table being built.
#[derive(Clone, Debug, Default)]
pub struct Table {
    headers: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these columns.
    #[must_use]
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Self {
            headers: columns.iter().map(|&(h, a)| (h.to_string(), a)).collect(),
            rows: Vec::new(),
        }
    }

    /// A table whose columns a Markdown header and delimiter line give (`"| a | b |\n|---|---:|"`,
    /// as the report writers keep them); a column the delimiter line does not align is left
    /// aligned.
    #[must_use]
    pub fn with_head(head: &str) -> Self {
        let split = |l: &str| -> Vec<String> {
            let l = l.trim().trim_start_matches('|').trim_end_matches('|');
            l.split('|').map(|c| c.trim().to_string()).collect()
        };
        let mut lines = head.lines();
        let names = lines.next().map(split).unwrap_or_default();
        let aligns = lines.next().map(split).unwrap_or_default();
        let headers = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let align = match aligns.get(i).map(String::as_str) {
                    Some(a) if a.starts_with(':') && a.ends_with(':') => Align::Center,
                    Some(a) if a.ends_with(':') => Align::Right,
                    _ => Align::Left,
                };
                (name, align)
            })
            .collect();
        Self {
            headers,
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells are left empty and extra ones dropped, so every row has
    /// exactly the header's width.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) -> &mut Self {
        let mut cells: Vec<String> = cells.into_iter().map(Into::into).collect();
        cells.resize(self.headers.len(), String::new());
        self.rows.push(cells);
        self
    }

    /// Rows added so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as Markdown, ending in a newline.
    #[must_use]
    pub fn render(&self) -> String {
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut out = line(self.headers.iter().map(|(h, _)| cell(h)).collect());
        out += &format!(
            "|{}|\n",
            self.headers
                .iter()
                .map(|(_, a)| match a {
                    Align::Left => "---",
                    Align::Right => "---:",
                    Align::Center => ":-:",
                })
                .collect::<Vec<_>>()
                .join("|")
        );
        for r in &self.rows {
            out += &line(r.iter().map(|c| cell(c)).collect());
        }
        out
    }
}

/// Text for a Markdown line: `<` and `>` outside code spans as entities, so that a type such
/// as `HashSet<String>` written bare is shown, not read as an HTML tag and hidden (inside a
/// code span they stay as they are: entities are not decoded there).
#[must_use]
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// A cell's text, the one escape every table cell goes through: a `|` cannot end the cell
/// (escaped as `\|`, which GitHub and mdBook read inside code spans too; inside `$…$` math it
/// becomes `\vert`, which KaTeX draws as the bar), a line break cannot end the row, and a bare
/// `<` or `>` cannot open a tag ([`inline`]).
#[must_use]
pub fn cell(text: &str) -> String {
    // A lone `$` (a price, a shell variable) opens no math.
    let math_ok = text.matches('$').count() % 2 == 0;
    let mut out = String::with_capacity(text.len());
    let (mut in_code, mut in_math) = (false, false);
    for c in text.chars() {
        match c {
            '`' if !in_math => in_code = !in_code,
            '$' if !in_code && math_ok => in_math = !in_math,
            _ => {}
        }
        match c {
            '|' if in_math => out.push_str("\\vert "),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            '<' if !in_code && !in_math => out.push_str("&lt;"),
            '>' if !in_code && !in_math => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// The cells of a Markdown table line as GitHub and mdBook split it: at every `|` not escaped
/// by a backslash, the outer pipes of `| a | b |` included (so that line has 2).
#[must_use]
pub fn cells(line: &str) -> usize {
    let line = line.trim();
    let (mut bars, mut escaped) = (0usize, false);
    for c in line.chars() {
        match c {
            '\\' => {
                escaped = !escaped;
                continue;
            }
            '|' if !escaped => bars += 1,
            _ => {}
        }
        escaped = false;
    }
    let outer = usize::from(line.starts_with('|'))
        + usize::from(line.ends_with('|') && !line.ends_with("\\|"));
    (bars + 1).saturating_sub(outer)
}

/// Every row of every table in `markdown` whose cells are not as many as its header's, as
/// `line N: M cells under a header of H: <the line>`; empty when every table is whole. A table
/// is a header line and a delimiter line (`|---|`) followed by the lines that start with `|`.
#[must_use]
pub fn misshapen(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let is_delimiter = |l: &str| {
        let t = l.trim();
        t.starts_with('|') && t.contains("---") && t.chars().all(|c| "|-: ".contains(c))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if !(lines[i].trim_start().starts_with('|') && is_delimiter(lines[i + 1])) {
            i += 1;
            continue;
        }
        let width = cells(lines[i]);
        if cells(lines[i + 1]) != width {
            out.push(format!(
                "line {}: the delimiter row does not match its header",
                i + 2
            ));
        }
        i += 2;
        while i < lines.len() && lines[i].trim_start().starts_with('|') {
            let n = cells(lines[i]);
            if n != width {
                out.push(format!(
                    "line {}: {n} cells under a header of {width}: {}",
                    i + 1,
                    lines[i]
                ));
            }
            i += 1;
        }
    }
    out
}

/// A study page's "Goals" section: every goal's numerator and denominator with their values
/// (`digits` decimals), its ratio, interval, bound, verdict and conditions; information rows
/// marked. `interval` says how the page's intervals were made.
pub fn study_goals(s: &mut String, goals: &[crate::record::Ratio], interval: &str, digits: usize) {
    use crate::record::Role;
    s.push_str(&format!(
        "## Goals\n\nEach row is measured / bound's reference with its 95% interval ({interval}). \
         Target rows are in goals.md too; information rows are shown for comparison only.\n\n"
    ));
    let mut t = Table::new(&[
        ("goal", Align::Left),
        ("numerator", Align::Left),
        ("denominator", Align::Left),
        ("ratio", Align::Right),
        ("95% interval", Align::Left),
        ("bound", Align::Left),
        ("verdict", Align::Center),
        ("conditions", Align::Left),
    ]);
    for g in goals {
        t.row([
            match g.role {
                Role::Target => g.what.clone(),
                _ => format!("{} (information)", g.what),
            },
            format!("{}: {:.digits$}", g.numerator, g.numerator_value),
            format!("{}: {:.digits$}", g.denominator, g.denominator_value),
            format!("{:.3}", g.ratio),
            g.interval
                .map_or_else(|| "–".into(), |(lo, hi)| format!("{lo:.3}–{hi:.3}")),
            g.bound.text(),
            g.verdict.word().into(),
            if g.same_conditions {
                "same".into()
            } else {
                format!("differ: {}", g.differences)
            },
        ]);
    }
    s.push_str(&t.render());
    s.push('\n');
}

#[cfg(test)]
mod tests;
