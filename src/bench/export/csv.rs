//! `scaling.csv`: one row per configuration, the fields of [`Row`](crate::bench::Row) as
//! columns (empty cells for the figures that do not apply, such as the split depth of the
//! serial solver), written as `scaling.json` writes them.

use super::markup::Table;
use super::Exporter;
use crate::bench::{BenchError, Report};
use serde_json::Value;

/// The CSV export.
pub struct Csv;

/// The columns of `scaling.csv`, in order: the fields of [`crate::bench::Row`]; a column added
/// in a later schema comes last, so that the others keep their places.
pub const HEADER: &str = "n,solver,method,threads,split_depth,units,repeats,solutions,median_s,\
    min_s,cpu_s,speedup,efficiency,scaling,solutions_per_s,nodes,nodes_per_s,unit_max_over_mean,\
    tail_share,kernel,counts_per_run,too_short,short_for_scaling,unique";

impl Exporter for Csv {
    fn file_name(&self) -> &'static str {
        "scaling.csv"
    }

    fn render(&self, report: &Report) -> Result<Vec<u8>, BenchError> {
        let mut table = Table::new(HEADER.split(','));
        for row in &report.rows {
            let row = serde_json::to_value(row).map_err(|e| BenchError::Render {
                file: "scaling.csv",
                message: e.to_string(),
            })?;
            table.row(
                HEADER
                    .split(',')
                    .map(|column| match &row[column] {
                        Value::Null => String::new(),
                        Value::String(s) => s.clone(),
                        figure => figure.to_string(),
                    })
                    .collect(),
            );
        }
        Ok(table.csv().into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::{ragged, sample, significant_digits};

    #[test]
    fn header_and_rows_follow_the_schema() {
        let report = sample();
        let bytes = Csv.render(&report).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header, HEADER.split(',').collect::<Vec<_>>());
        let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(records.len(), report.rows.len());
        // The serial row: no split depth, units or load-balance figures.
        let serial = &records[0];
        assert_eq!(&serial[0], "10");
        assert_eq!(&serial[1], "serial");
        assert_eq!(&serial[4], "");
        assert_eq!(&serial[5], "");
        assert_eq!(&serial[13], "");
        assert_eq!(&serial[17], "");
        // An engine row: numbers where numbers belong.
        let engine = &records[2];
        assert_eq!(&engine[1], "engine");
        assert_eq!(&engine[3], "2");
        assert_eq!(&engine[4], "2");
        assert_eq!(&engine[7], "724");
        let round = |x: f64| crate::bench::stats::round_sig(x, 6);
        assert_eq!(
            engine[8].parse::<f64>().unwrap(),
            round(report.rows[2].median_s)
        );
        assert_eq!(
            engine[13].parse::<f64>().unwrap(),
            round(report.rows[2].scaling.unwrap())
        );
        assert_eq!(engine[18].parse::<f64>().unwrap(), 0.04);
        // Every row names its method and kernel.
        assert_eq!((&serial[2], &serial[19]), ("mirror", "dfs"));
        assert_eq!((&engine[2], &engine[19]), ("mirror", "avx2"));
        // The unique count, last: the engine's, none for the serial solver.
        assert_eq!((&serial[23], &engine[23]), ("", "92"));
    }

    #[test]
    fn figures_have_at_most_6_significant_digits() {
        let bytes = Csv.render(&ragged()).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let mut figures = 0;
        for record in r.records().map(Result::unwrap) {
            for (name, cell) in header.iter().zip(record.iter()) {
                // Counts (solutions, nodes, units, …) are integers, exact at any length.
                if cell.parse::<u64>().is_err() && cell.parse::<f64>().is_ok() {
                    figures += 1;
                    assert!(significant_digits(cell) <= 6, "{name} = {cell}");
                }
            }
        }
        assert!(figures > 50, "{figures}");
    }

    #[test]
    fn the_header_matches_the_row_fields() {
        // Serialising a row through serde_json gives its field names in declaration order.
        let row = serde_json::to_value(&sample().rows[0]).unwrap();
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        let mut header: Vec<&str> = HEADER.split(',').collect();
        header.sort_unstable();
        let mut keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(keys, header);
    }
}
