//! `scaling.json`: the whole [`Results`]: machine, settings and rows. The doc comments of
//! [`Results`], [`crate::bench::Row`] and [`crate::bench::Machine`] document its fields.

use crate::bench::{BenchError, Results};

/// Whether `bytes` are a `scaling.json` of a benchmark: a JSON object with its version and
/// its rows (of any version).
pub fn is_ours(bytes: &[u8]) -> bool {
    let value = serde_json::from_slice::<serde_json::Value>(bytes);
    value.is_ok_and(|v| v.get("schema_version").is_some() && v.get("rows").is_some())
}

/// The JSON file.
pub fn render(report: &Results) -> Result<Vec<u8>, BenchError> {
    let mut bytes =
        serde_json::to_vec_pretty(report).map_err(|e| super::render_error("scaling.json", e))?;
    bytes.push(b'\n');
    Ok(bytes)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::{ragged, sample, significant_digits};

    /// Every number in `v` that is not an integer, with its path.
    fn figures(v: &serde_json::Value, path: &str, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Number(x) if x.is_f64() => out.push((path.into(), x.to_string())),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| figures(x, &format!("{path}[{i}]"), out)),
            serde_json::Value::Object(o) => o
                .iter()
                .for_each(|(k, x)| figures(x, &format!("{path}.{k}"), out)),
            _ => {}
        }
    }

    #[test]
    fn figures_have_at_most_6_significant_digits() {
        let text = String::from_utf8(render(&ragged()).unwrap()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut all = Vec::new();
        figures(&v, "", &mut all);
        assert!(all.len() > 40, "{}", all.len());
        for (path, x) in all {
            assert!(significant_digits(&x) <= 6, "{path} = {x}");
            // As written in the file, not only as re-serialised here.
            assert!(text.contains(&x), "{path} = {x}");
        }
    }

    #[test]
    fn json_has_the_machine_settings_and_rows() {
        let v: serde_json::Value = serde_json::from_slice(&render(&sample()).unwrap()).unwrap();
        assert_eq!(v["schema_version"], crate::bench::report::SCHEMA_VERSION);
        let m = &v["machine"];
        for key in [
            "host",
            "cpu_model",
            "logical_cores",
            "physical_cores",
            "memory_bytes",
            "os",
            "rustc",
            "git_commit",
            "command_line",
        ] {
            assert!(!m[key].is_null(), "machine.{key} missing");
        }
        assert_eq!(m["logical_cores"], 2);
        assert_eq!(v["settings"]["threads"], serde_json::json!([1, 2]));
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[0]["solver"], "serial");
        assert!(rows[0]["split_depth"].is_null());
        assert_eq!(rows[2]["solver"], "engine");
        assert_eq!(rows[2]["threads"], 2);
        assert_eq!(rows[2]["solutions"], 724);
        assert!(rows[2]["efficiency"].as_f64().unwrap() > 0.0);
        assert!(v.get("projections").is_none() && rows[2].get("nodes").is_none());
    }
}
