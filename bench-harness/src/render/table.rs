//! A small Markdown table writer: headers with their alignment, rows of cells, and a `|` in a
//! cell escaped so it cannot break the table.

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
    cell.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests;
