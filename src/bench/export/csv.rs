//! `scaling.csv`: one row per configuration, the fields of [`Row`](crate::bench::Row) as
//! columns in their order (`markup::FIELDS`, the head line), written as `scaling.json` writes them, with empty
//! cells for the figures that do not apply (such as the split depth of the serial solver).

use super::markup::{fields, values};
use crate::bench::{BenchError, Results};
use serde_json::Value;

/// Whether `bytes` are a `scaling.csv` of a benchmark: its head line, the fields of a row
/// (of this version; an earlier one began with the same two).
pub fn is_ours(bytes: &[u8]) -> bool {
    bytes.starts_with(b"n,solver,")
}

/// The CSV file.
pub fn render(report: &Results) -> Result<Vec<u8>, BenchError> {
    let cell = |v| match v {
        Value::Null => String::new(),
        Value::String(s) => s,
        figure => figure.to_string(),
    };
    let rows = report.rows.iter().map(|row| {
        let values = values("scaling.csv", row)?;
        Ok(values.into_iter().map(cell).collect())
    });
    let rows: Vec<Vec<String>> = rows.collect::<Result<_, BenchError>>()?;
    let heads: Vec<&str> = fields().collect();
    Ok(super::markup::csv(&heads, &rows).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::{ragged, sample, significant_digits};

    /// The cells of `report`'s CSV by column name, one map per row.
    fn records(report: &Results) -> Vec<std::collections::HashMap<String, String>> {
        let bytes = render(report).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header, fields().collect::<Vec<_>>());
        let records = r.records().map(Result::unwrap);
        let named = |rec: csv::StringRecord| {
            let cells = rec.iter().map(String::from);
            header.iter().cloned().zip(cells).collect()
        };
        records.map(named).collect()
    }

    #[test]
    fn header_and_rows_follow_the_schema() {
        let report = sample();
        let records = records(&report);
        assert_eq!(records.len(), report.rows.len());
        // The serial row: no split depth, units, scaling or unique count.
        let serial = &records[0];
        assert_eq!((&*serial["n"], &*serial["solver"]), ("10", "serial"));
        for empty in ["split_depth", "units", "scaling", "efficiency", "unique"] {
            assert_eq!(serial[empty], "", "{empty}");
        }
        // An engine row: numbers where numbers belong.
        let engine = &records[2];
        assert_eq!((&*engine["solver"], &*engine["threads"]), ("engine", "2"));
        assert_eq!(
            (&*engine["split_depth"], &*engine["solutions"]),
            ("2", "724")
        );
        let round = |x: f64| crate::bench::stats::round_sig(x, 6);
        let figure = |name: &str| engine[name].parse::<f64>().unwrap();
        assert_eq!(figure("median_s"), round(report.rows[2].median_s));
        assert_eq!(figure("max_s"), round(report.rows[2].max_s));
        assert_eq!(figure("scaling"), round(report.rows[2].scaling.unwrap()));
        // Every row names its method and kernel, and the engine its unique count.
        assert_eq!((&*serial["method"], &*serial["kernel"]), ("mirror", "dfs"));
        assert_eq!((&*engine["method"], &*engine["kernel"]), ("mirror", "avx2"));
        assert_eq!(engine["unique"], "92");
        assert_eq!(
            (&*engine["too_short"], &*engine["counts_per_run"]),
            ("false", "13")
        );
    }

    #[test]
    fn figures_have_at_most_6_significant_digits() {
        let mut figures = 0;
        for record in records(&ragged()) {
            for (name, cell) in record {
                // Counts (solutions, units, …) are integers, exact at any length.
                if cell.parse::<u64>().is_err() && cell.parse::<f64>().is_ok() {
                    figures += 1;
                    assert!(significant_digits(&cell) <= 6, "{name} = {cell}");
                }
            }
        }
        assert!(figures > 40, "{figures}");
    }
}
