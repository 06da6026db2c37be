//! Terminal tables of the command line (the fuzz summary, `matrix`, `sincro table ...`), laid
//! out by `comfy-table` within [`WIDTH`] columns: a column too wide for the line wraps its
//! cells instead of pushing the others right, so long names do not shift a table.
//!
//! `--markdown` outputs (for a README) stay Markdown, one line a row, whatever their width.

use comfy_table::{
    CellAlignment, ColumnConstraint, ContentArrangement, Table, TableComponent, Width,
};

/// The widest line a table of the command line prints.
pub const WIDTH: u16 = 100;

/// No borders: the header underlined with `-` (vertical lines are set to a space below, so
/// columns are two spaces apart: one of padding, one of line).
const STYLE: &str = "     -             ";

/// A table: a header, rows of text cells, and which columns are right-aligned (numbers).
#[derive(Clone, Debug, Default)]
pub struct Grid {
    header: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    /// A table with these column names; a name starting with `>` is right-aligned (the `>`
    /// is not printed).
    pub fn new<S: AsRef<str>>(header: &[S]) -> Self {
        let (header, right) = header
            .iter()
            .map(|h| {
                let h = h.as_ref();
                match h.strip_prefix('>') {
                    Some(rest) => (rest.to_string(), true),
                    None => (h.to_string(), false),
                }
            })
            .unzip();
        Grid {
            header,
            right,
            rows: Vec::new(),
        }
    }

    /// Appends a row (missing cells are empty, extra cells ignored).
    pub fn row<S: ToString>(&mut self, cells: impl IntoIterator<Item = S>) -> &mut Self {
        let mut r: Vec<String> = cells.into_iter().map(|c| c.to_string()).collect();
        r.resize(self.header.len(), String::new());
        self.rows.push(r);
        self
    }

    /// The table within [`WIDTH`] columns, every line trimmed on the right, ending in a
    /// newline.
    pub fn text(&self) -> String {
        let mut t = Table::new();
        t.load_preset(STYLE)
            .set_style(TableComponent::VerticalLines, ' ')
            .set_style(TableComponent::MiddleHeaderIntersections, ' ')
            .set_width(WIDTH)
            .set_header(self.header.clone());
        for r in &self.rows {
            t.add_row(r.clone());
        }
        let last = self.header.len().saturating_sub(1);
        for (i, col) in t.column_iter_mut().enumerate() {
            // Columns two spaces apart (padding and line), none before the first.
            col.set_padding((0, if i == last { 0 } else { 1 }));
            if self.right.get(i).copied().unwrap_or(false) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        let natural: usize = (0..self.header.len())
            .map(|i| {
                let cells = self.rows.iter().map(|r| r[i].chars().count());
                let w = cells.chain([self.header[i].chars().count()]).max();
                w.unwrap_or(0) + if i == last { 0 } else { 2 }
            })
            .sum();
        if natural > WIDTH as usize {
            // Too wide: comfy-table wraps the widest cells; a header is never split inside a
            // word, numbers keep their width.
            t.set_content_arrangement(ContentArrangement::Dynamic);
            let lower: Vec<ColumnConstraint> = (0..self.header.len())
                .map(|i| {
                    let word = self.header[i].split_whitespace().map(str::len).max();
                    // A right-aligned column keeps its figures whole (not its long texts):
                    // up to a seed's 20 digits (one near 2^64 was split over two lines).
                    let number = if self.right[i] {
                        let figures = self.rows.iter().map(|r| r[i].chars().count());
                        figures.filter(|&n| n <= 20).max()
                    } else {
                        None
                    };
                    let mut w = word.unwrap_or(0).max(number.unwrap_or(0));
                    if i == 0 {
                        // The first column names the row: kept whole up to 45 % of the line.
                        let name = self.rows.iter().map(|r| r[0].chars().count()).max();
                        w = w.max(name.unwrap_or(0).min(WIDTH as usize * 45 / 100));
                    }
                    let pad = if i == last { 0 } else { 1 };
                    ColumnConstraint::LowerBoundary(Width::Fixed((w + pad) as u16))
                })
                .collect();
            // Bounds that cannot all fit are left to comfy-table's own split.
            let sum: u16 = lower
                .iter()
                .map(|c| match c {
                    ColumnConstraint::LowerBoundary(Width::Fixed(w)) => *w,
                    _ => 0,
                })
                .sum();
            if sum <= WIDTH {
                t.set_constraints(lower);
            }
        }
        let mut out = String::new();
        for line in t.lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// `text` wrapped at spaces within [`WIDTH`] columns, the lines after the first indented by
/// `indent` spaces; a word longer than the line (a path) stays whole. Ends with a newline.
pub fn wrap(text: &str, indent: usize) -> String {
    let width = WIDTH as usize;
    // The first line keeps its own leading spaces.
    let body = text.trim_start_matches(' ');
    let mut line = " ".repeat(text.len() - body.len());
    let mut out = String::new();
    let mut fresh = true; // nothing but the indentation on `line` yet
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let len = line.chars().count();
        if !fresh && len + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(indent);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(word);
        fresh = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_table_fits_and_long_names_do_not_shift_the_columns() {
        let mut g = Grid::new(&["target", ">seeds", ">fail", "outcome"]);
        g.row(["a / correct", "1000", "0", "no violation"]);
        g.row([
            "election.chang-roberts-with-a-very-long-name / unidirectional-ring-with-extra",
            "1000",
            "12",
            "UNEXPECTED: a correct variant failed inside its fault model, and more words here",
        ]);
        let text = g.text();
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH as usize, "{line}\n{text}");
        }
        // The seeds column starts at the same place on every row that has one.
        let at = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .and_then(|l| l.find(needle))
                .unwrap_or_else(|| panic!("{needle} in\n{text}"))
        };
        assert_eq!(at("1000  ") + 4, at("seeds") + 5, "{text}");
        // A 20-digit seed stays on one line (the fuzz summary split it over two).
        let seed = u64::MAX.to_string();
        let mut r = Grid::new(&[
            "target", ">seeds", ">fail", ">first", ">runs/s", "shrunk", "outcome",
        ]);
        r.row([
            "mutex.centralized / lease-timeout [bug]",
            "2",
            "1",
            &seed,
            "170",
            "-",
            "caught after 2 seeds",
        ]);
        let text = r.text();
        assert!(text.contains(&seed), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        let long = format!("  {}", "word ".repeat(50));
        let wrapped = wrap(&long, 4);
        assert!(wrapped.lines().count() == 3, "{wrapped}");
        assert!(wrapped.lines().all(|l| l.len() <= 100), "{wrapped}");
        assert!(
            wrapped.starts_with("  word word")
                && wrapped.lines().skip(1).all(|l| l.starts_with("    word")),
            "{wrapped}"
        );
    }
}
