//! What the text exporters share: the one definition of a row's columns, tables of cells
//! written as markdown or as CSV, and the short forms of numbers.

use super::render_error;
use crate::bench::{BenchError, Row};
use serde_json::Value;

/// The columns of a row, as the head line of `scaling.csv`: the names of [`Row`]'s fields, in
/// their order (the keys of `scaling.json`).
pub(crate) const FIELDS: &str = "n,solver,method,kernel,threads,split_depth,units,repeats,\
    solutions,unique,median_s,min_s,max_s,cpu_s,speedup,efficiency,scaling,solutions_per_s,\
    counts_per_run,too_short,short_for_scaling";

/// The head of each of [`FIELDS`] in `summary.md`, `|` between them, empty where the summary
/// leaves the column out; a head ending in `:` is right-aligned (written `---:`, as markdown
/// has it), the `:` dropped.
pub(crate) const HEADS: &str = "N:|solver|method|kernel|threads:|depth:|units:||||median (s):|\
    min (s):|max (s):|CPU (s):|speed-up:|efficiency:|scaling:|solutions/s:|counts/run:||";

/// The names of [`FIELDS`].
pub(crate) fn fields() -> impl Iterator<Item = &'static str> {
    FIELDS.split(',')
}

/// The values of `row` by column, as `scaling.json` writes them (figures rounded to 6
/// significant digits, none as null).
pub(crate) fn values(file: &str, row: &Row) -> Result<Vec<Value>, BenchError> {
    let row = serde_json::to_value(row).map_err(|e| render_error(file, e))?;
    Ok(fields().map(|name| row[name].clone()).collect())
}

/// A table in markdown, one line per row (see [`HEADS`] for the alignment).
pub(crate) fn markdown(heads: &[&str], rows: &[Vec<String>]) -> String {
    let line = |cells: &[&str]| format!("| {} |\n", cells.join(" | "));
    let names: Vec<&str> = heads.iter().map(|h| h.trim_end_matches(':')).collect();
    let rule = heads
        .iter()
        .map(|h| if h.ends_with(':') { "---:" } else { "---" });
    let mut text = line(&names) + "|" + &rule.collect::<Vec<_>>().join("|") + "|\n";
    for row in rows {
        text += &line(&row.iter().map(String::as_str).collect::<Vec<_>>());
    }
    text
}

/// A table as CSV (RFC 4180, with `\n` line ends): a cell with a comma, a quote or a line
/// break is quoted.
pub(crate) fn csv(heads: &[&str], rows: &[Vec<String>]) -> String {
    let field = |c: &str| match c.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", c.replace('"', "\"\"")),
        false => c.to_string(),
    };
    let line = |cells: Vec<String>| cells.join(",") + "\n";
    let rows = rows
        .iter()
        .map(|r| line(r.iter().map(|c| field(c)).collect()));
    line(heads.iter().map(|h| field(h)).collect()) + &rows.collect::<String>()
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
        let rows = [
            vec!["10".into(), "d4".into()],
            vec!["11".into(), "a, \"b\"".into()],
        ];
        assert_eq!(
            markdown(&["N:", "method"], &rows),
            "| N | method |\n|---:|---|\n| 10 | d4 |\n| 11 | a, \"b\" |\n"
        );
        let csv = csv(&["n", "kernel"], &rows);
        assert_eq!(csv, "n,kernel\n10,d4\n11,\"a, \"\"b\"\"\"\n");
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
        let mut names: Vec<&str> = fields().collect();
        assert_eq!(names.len(), HEADS.split('|').count());
        keys.sort_unstable();
        names.sort_unstable();
        assert_eq!(keys, names);
        let debug = format!("{:?}", sample().rows[0]);
        let at: Vec<usize> = fields()
            .map(|name| debug.find(&format!(" {name}: ")).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{debug}");
    }
}
