//! Where the tables' lines go. Every table module writes Markdown (`| a | b |` rows) through
//! the `println!` of [`super`], which lands here: with `--markdown` the lines are printed as
//! they are; otherwise each block of `|` lines is laid out by `Grid` (`cli::grid`) within
//! 100 columns and the prose lines longer than that are wrapped at spaces.

use crate::cli::grid::{Grid, WIDTH};
use std::sync::Mutex;

/// What waits to be printed: the table lines of the current block, a prose line too wide for
/// the terminal (its paragraph may go on), and whether to print Markdown.
struct Sink {
    block: Vec<String>,
    prose: Option<String>,
    markdown: bool,
}

static SINK: Mutex<Sink> = Mutex::new(Sink {
    block: Vec::new(),
    prose: None,
    markdown: false,
});

/// Prints Markdown as written (`--markdown`) instead of terminal tables.
pub fn set_markdown(on: bool) {
    let mut s = SINK.lock().expect("no poisoning");
    s.markdown = on;
}

/// One `println!` of a table module (it may hold several lines).
pub fn line(text: String) {
    let mut s = SINK.lock().expect("no poisoning");
    for l in text.split('\n') {
        if s.markdown {
            println!("{l}");
        } else if l.starts_with('|') {
            flush_prose(&mut s.prose);
            s.block.push(l.to_string());
        } else {
            flush_block(&mut s.block);
            prose(&mut s.prose, l);
        }
    }
}

/// Prints the table block and the prose still waiting (at the end of a command).
pub fn flush() {
    let mut s = SINK.lock().expect("no poisoning");
    flush_block(&mut s.block);
    flush_prose(&mut s.prose);
}

/// Prints prose line `l`. A line too wide for the terminal waits: the next line goes on its
/// paragraph (it is prose, not blank, not a list item or a heading), and the two are wrapped
/// as one. Wrapped alone, a source line a little over 100 columns left its last words on a
/// line of their own before the next one (stop 64's probe: "timely process;").
fn prose(waiting: &mut Option<String>, l: &str) {
    let goes_on = |l: &str| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with(['-', '*', '#', '|'])
    };
    let line = match waiting.take() {
        Some(before) if goes_on(l) => format!("{before} {}", l.trim_start()),
        Some(before) => {
            print_wrapped(&before);
            l.to_string()
        }
        None => l.to_string(),
    };
    if line.chars().count() > WIDTH as usize {
        *waiting = Some(line);
    } else {
        println!("{line}");
    }
}

/// Prints the prose line waiting, if any.
fn flush_prose(waiting: &mut Option<String>) {
    if let Some(line) = waiting.take() {
        print_wrapped(&line);
    }
}

/// The cells of a Markdown row (`| a | b |`), `\|` kept as `|`.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().expect("one cell").push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().expect("one cell").push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Whether `cells` is a Markdown alignment row (`---`, `---:`, `:---:`).
fn is_rule(cells: &[String]) -> bool {
    cells.iter().all(|c| {
        let c = c.trim_matches(':');
        !c.is_empty() && c.chars().all(|ch| ch == '-')
    })
}

/// Lays out one block of Markdown rows as a [`Grid`] and prints it.
fn flush_block(block: &mut Vec<String>) {
    if block.is_empty() {
        return;
    }
    print!("{}", grid_of(block).text());
    block.clear();
}

/// The [`Grid`] of a block of Markdown rows: the first row is the header, a rule row (if
/// any) says which columns are right-aligned, later rule rows are dropped.
fn grid_of(block: &[String]) -> Grid {
    let rows: Vec<Vec<String>> = block.iter().map(|l| cells(l)).collect();
    // The header decides the columns: a row's extra cells (`error: … |||`) are dropped.
    let header = rows[0].clone();
    let width = header.len();
    let right: Vec<bool> = match rows.get(1).filter(|r| is_rule(r)) {
        Some(rule) => (0..width)
            .map(|i| rule.get(i).is_some_and(|c| c.ends_with(':')))
            .collect(),
        None => vec![false; width],
    };
    let names: Vec<String> = header
        .iter()
        .zip(&right)
        .map(|(h, &r)| if r { format!(">{h}") } else { h.clone() })
        .collect();
    let mut grid = Grid::new(&names);
    for r in rows.iter().skip(1).filter(|r| !is_rule(r)) {
        grid.row(r.iter().cloned());
    }
    grid
}

/// Prints `line`, wrapped at spaces when it is wider than [`WIDTH`].
fn print_wrapped(line: &str) {
    if line.chars().count() <= WIDTH as usize {
        println!("{line}");
    } else {
        print!("{}", crate::cli::grid::wrap(line, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_blocks_become_grids() {
        let block: Vec<String> = [
            "| algorithm | n | messages |",
            "|---|---:|---:|",
            "| election.chang-roberts | 4 | 7 + 4 |",
            "| election.franklin | 16 | err \\| b |||",
        ]
        .map(String::from)
        .to_vec();
        let text = grid_of(&block).text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("algorithm"), "{text}");
        assert!(
            lines[1].starts_with("---") && !lines[1].ends_with(" -"),
            "{text}"
        );
        // Right-aligned where the rule says `---:`; the extra cells of `|||` dropped.
        assert!(lines[2].ends_with("   4     7 + 4"), "{text}");
        assert!(lines[3].ends_with("  16   err | b"), "{text}");
    }
}
