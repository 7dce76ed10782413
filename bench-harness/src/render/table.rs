//! A small Markdown table writer: headers with their alignment, rows of cells, and a `|` in a
//! cell escaped so it cannot break the table (a bare `<` or `>` too, so it cannot hide text).

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
        let mut out = line(self.headers.iter().map(|(h, _)| escape(h)).collect());
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
            out += &line(r.iter().map(|c| escape(c)).collect());
        }
        out
    }
}

fn escape(cell: &str) -> String {
    inline(cell).replace('|', "\\|").replace('\n', " ")
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

#[cfg(test)]
mod tests;
