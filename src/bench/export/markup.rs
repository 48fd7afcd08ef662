//! What the text exporters share: the one definition of a row's columns, a table of cells
//! written as markdown or as CSV, and the short forms of numbers.

use super::render_error;
use crate::bench::{BenchError, Row};
use serde_json::Value;

/// The columns of a row, in the order of [`Row`]'s fields: the field's name (its head in
/// `scaling.csv`, its key in `scaling.json`) and its head in `summary.md`, empty where the
/// summary leaves it out (a head ending in `:` is right-aligned).
pub(crate) const COLUMNS: [(&str, &str); 21] = [
    ("n", "N:"),
    ("solver", "solver"),
    ("method", "method"),
    ("kernel", "kernel"),
    ("threads", "threads:"),
    ("split_depth", "depth:"),
    ("units", "units:"),
    ("repeats", ""),
    ("solutions", ""),
    ("unique", ""),
    ("median_s", "median (s):"),
    ("min_s", "min (s):"),
    ("max_s", "max (s):"),
    ("cpu_s", "CPU (s):"),
    ("speedup", "speed-up:"),
    ("efficiency", "efficiency:"),
    ("scaling", "scaling:"),
    ("solutions_per_s", "solutions/s:"),
    ("counts_per_run", "counts/run:"),
    ("too_short", ""),
    ("short_for_scaling", ""),
];

/// The values of `row` by column, as `scaling.json` writes them (figures rounded to 6
/// significant digits, none as null).
pub(crate) fn values(file: &str, row: &Row) -> Result<Vec<Value>, BenchError> {
    let row = serde_json::to_value(row).map_err(|e| render_error(file, e))?;
    Ok(COLUMNS.iter().map(|(name, _)| row[name].clone()).collect())
}

/// A table: column heads and rows of text cells.
pub(crate) struct Table {
    heads: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column heads. In markdown a head ending in `:` is right-aligned
    /// (written `---:`, as markdown has it), the `:` dropped.
    pub fn new<S: Into<String>>(heads: impl IntoIterator<Item = S>) -> Table {
        let heads = heads.into_iter().map(Into::into).collect();
        let rows = Vec::new();
        Table { heads, rows }
    }

    /// Adds a row, one cell per column.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table in markdown, one line per row.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let names: Vec<String> = (self.heads.iter())
            .map(|h| h.trim_end_matches(':').into())
            .collect();
        let rule = (self.heads.iter()).map(|h| if h.ends_with(':') { "---:" } else { "---" });
        let mut text = line(&names) + "|" + &rule.collect::<Vec<_>>().join("|") + "|\n";
        self.rows.iter().for_each(|r| text += &line(r));
        text
    }

    /// The table as CSV (RFC 4180, with `\n` line ends): a cell with a comma, a quote or a line
    /// break is quoted.
    pub fn csv(&self) -> String {
        let field = |c: &String| match c.contains([',', '"', '\n', '\r']) {
            true => format!("\"{}\"", c.replace('"', "\"\"")),
            false => c.clone(),
        };
        let line = |cells: &[String]| cells.iter().map(field).collect::<Vec<_>>().join(",") + "\n";
        std::iter::once(&self.heads)
            .chain(&self.rows)
            .map(|r| line(r))
            .collect()
    }
}

/// `x` with three significant digits (`0.00123`, `12.3`, `456`).
pub(crate) fn sig3(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// `x` with three significant digits and a k/M/G suffix (`12.3 M`).
pub(crate) fn si(x: f64) -> String {
    let (v, unit) = match x.abs() {
        a if a >= 1e9 => (x / 1e9, " G"),
        a if a >= 1e6 => (x / 1e6, " M"),
        a if a >= 1e3 => (x / 1e3, " k"),
        _ => (x, ""),
    };
    format!("{}{unit}", sig3(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;

    #[test]
    fn numbers_are_short() {
        assert_eq!(sig3(0.0012345), "0.00123");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(456.7), "457");
        assert_eq!(si(95_815_104.0), "95.8 M");
        assert_eq!(si(1234.0), "1.23 k");
        assert_eq!(si(2.5e9), "2.50 G");
        assert_eq!(si(7.0), "7.00");
    }

    #[test]
    fn tables_in_markdown_and_csv() {
        let mut t = Table::new(["N:", "method"]);
        t.row(vec!["10".into(), "d4".into()]);
        t.row(vec!["11".into(), "a, \"b\"".into()]);
        assert_eq!(
            t.markdown(),
            "| N | method |\n|---:|---|\n| 10 | d4 |\n| 11 | a, \"b\" |\n"
        );
        let t = Table {
            heads: vec!["n".into(), "kernel".into()],
            ..t
        };
        assert_eq!(t.csv(), "n,kernel\n10,d4\n11,\"a, \"\"b\"\"\"\n");
    }

    #[test]
    fn the_columns_are_the_row_fields_in_order() {
        // serde_json without `preserve_order` sorts an object's keys: compare as sets, then
        // the order against the struct's serialisation as a sequence of its fields.
        let row = serde_json::to_value(&sample().rows[0]).unwrap();
        let mut keys: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut names: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
        keys.sort_unstable();
        names.sort_unstable();
        assert_eq!(keys, names);
        let debug = format!("{:?}", sample().rows[0]);
        let at: Vec<usize> = (COLUMNS.iter())
            .map(|c| debug.find(&format!(" {}: ", c.0)).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{debug}");
    }
}
