//! The result files of a benchmark, one format per file, each behind one interface: a
//! [`Render`] from the [`Results`] to the file's bytes, named in [`FILES`]. The text formats read
//! one table definition (`markup::COLUMNS`, the fields of [`Row`](crate::bench::Row)) and
//! share its helpers.

mod csv;
mod json;
mod markdown;
mod markup;
#[cfg(feature = "plot")]
mod svg;

use super::{BenchError, Results};
use std::path::{Path, PathBuf};

/// Renders one result file of a report.
pub type Render = fn(&Results) -> Result<Vec<u8>, BenchError>;

/// Whether bytes found at a result file's name are such a file of a benchmark (of any
/// version), by what each always begins with or holds: how a folder's earlier results are told
/// from files someone else put there under those names.
pub type Mark = fn(&[u8]) -> bool;

/// Every result file, by name: `scaling.csv`, `scaling.json`, `scaling.svg` and `time.svg`
/// (with the `plot` feature), `summary.md`.
pub const FILES: &[(&str, Render, Mark)] = &[
    ("scaling.csv", csv::render, csv::is_ours),
    ("scaling.json", json::render, json::is_ours),
    #[cfg(feature = "plot")]
    ("scaling.svg", svg::scaling, svg::is_scaling),
    #[cfg(feature = "plot")]
    ("time.svg", svg::time, svg::is_time),
    ("summary.md", markdown::render, markdown::is_ours),
];

/// `scaling.json` of `report`: what a program reads (the schema is documented on [`Results`]).
pub use json::render as json;

/// Renders every result file of `report` into `dir` (created if missing), each written
/// atomically. Returns the paths written.
pub fn write_all(report: &Results, dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BenchError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut written = Vec::new();
    for (name, render, _) in FILES {
        let (bytes, path) = (render(report)?, dir.join(name));
        crate::longrun::durable::write_atomic(&path, &bytes).map_err(|e| io(&path)(e.into_io()))?;
        written.push(path);
    }
    Ok(written)
}

/// A file that could not be rendered.
fn render_error(file: &str, e: impl std::fmt::Display) -> BenchError {
    let source = std::io::Error::other(format!("rendering failed: {e}"));
    let path = file.into();
    BenchError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use crate::bench::report::SCHEMA_VERSION;
    use crate::bench::{Machine, Results, Row, Settings, Solver};

    /// A small fixed report: N = 10 and 11, serial and engine on 1 and 2 threads.
    pub fn sample() -> Results {
        let mut rows = Vec::new();
        for (n, serial) in [(10u32, 0.004), (11, 0.02)] {
            for (solver, t, time) in [
                (Solver::Serial, 1usize, serial),
                (Solver::Engine, 1, serial * 1.01),
                (Solver::Engine, 2, serial * 0.55),
            ] {
                let engine = solver == Solver::Engine;
                let speedup = serial / time;
                rows.push(Row {
                    n,
                    solver,
                    method: "mirror".into(),
                    kernel: if engine { "avx2" } else { "dfs" }.into(),
                    threads: t,
                    split_depth: engine.then_some(2),
                    units: engine.then_some(35),
                    repeats: 3,
                    solutions: if n == 10 { 724 } else { 2680 },
                    unique: engine.then_some(if n == 10 { 92 } else { 341 }),
                    median_s: time,
                    min_s: time * 0.98,
                    max_s: time * 1.05,
                    cpu_s: Some(time * t as f64),
                    speedup: Some(speedup),
                    efficiency: engine.then_some(1.01 * serial / time / t as f64),
                    scaling: engine.then_some(1.01 * serial / time),
                    solutions_per_s: Some(724.0 / time),
                    counts_per_run: if n == 10 { 13 } else { 3 },
                    too_short: false,
                    // Unflagged, as a long count's would be (the tests of the mark set it).
                    short_for_scaling: false,
                });
            }
        }
        Results {
            schema_version: SCHEMA_VERSION,
            started_utc: "2026-11-29T12:00:00Z".into(),
            machine: Machine {
                host: "box".into(),
                cpu_model: "Some CPU".into(),
                logical_cores: 2,
                physical_cores: 1,
                memory_bytes: Some(8 << 30),
                os: "Linux".into(),
                rustc: "rustc 1.95.0".into(),
                git_commit: "abc".into(),
                command_line: "nqueens bench --n-min 10 --n-max 11".into(),
            },
            settings: Settings {
                n_min: 10,
                n_max: 11,
                budget_s: None,
                threads: vec![1, 2],
                repeat: 3,
                split_depths: vec![],
                methods: vec![crate::Method::D4, crate::Method::Mirror],
                kernel: crate::Kernel::Avx2,
                devices: crate::Devices::Cpu,
                device_batch: None,
                min_run_ms: 50,
                unique: true,
            },
            default_method: "d4".into(),
            range_end: "N = 11 is the largest asked for".into(),
            partial: None,
            rows,
        }
    }

    /// The significant digits of a decimal number as written (`0.000229` 3, `182335000.0` 6,
    /// `1.5e-7` 2).
    pub fn significant_digits(text: &str) -> usize {
        let mantissa = text
            .trim_start_matches('-')
            .split(['e', 'E'])
            .next()
            .unwrap();
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        digits.trim_start_matches('0').trim_end_matches('0').len()
    }

    /// [`sample`] with figures as a division leaves them: long tails of digits.
    pub fn ragged() -> Results {
        let mut report = sample();
        for (i, r) in report.rows.iter_mut().enumerate() {
            let k = 1.0 + (i as f64 + 1.0) / 3.0;
            r.median_s = 0.0002289999999999996 * k;
            r.min_s = r.median_s / 1.1;
            r.max_s = r.median_s * 1.1;
            r.cpu_s = Some(7.000000000000062e-6 * k);
            r.speedup = r.speedup.map(|x| x / 3.0);
            r.efficiency = r.efficiency.map(|x| x / 7.0);
            r.scaling = r.scaling.map(|x| x / 3.0);
            r.solutions_per_s = Some(14_745_952.877_063_632 * k);
        }
        report
    }

    #[test]
    fn digit_counting() {
        assert_eq!(significant_digits("0.000229"), 3);
        assert_eq!(significant_digits("182335000.0"), 6);
        assert_eq!(significant_digits("-1.5e-7"), 2);
        assert_eq!(significant_digits("0.0002289999999999996"), 16);
    }

    #[test]
    fn each_result_file_is_told_by_its_own_mark_alone() {
        let report = sample();
        for (name, render, _) in super::FILES {
            let bytes = render(&report).unwrap();
            for (other, _, mark) in super::FILES {
                assert_eq!(mark(&bytes), name == other, "{name} by the mark of {other}");
            }
        }
        for (name, _, mark) in super::FILES {
            let half_json = [&br#"{"schema_version": 6}"#[..], br#"{"rows": []}"#];
            for bytes in [&b""[..], b"my notes\n", b"a,b\n", b"{}", b"<svg></svg>"]
                .into_iter()
                .chain(half_json)
            {
                assert!(!mark(bytes), "{name}: {bytes:?}");
            }
        }
    }

    /// The result files of earlier versions are told as such too: the first lines of an
    /// earlier `scaling.csv` (schema 4) and the two earlier captions of `scaling.svg` (as in
    /// `results/2026-11-29-2core-vm/` and `results/2026-11-29-2core-vm-lanes/`).
    #[test]
    fn earlier_versions_bear_the_marks() {
        let csv = b"n,solver,method,threads,split_depth,units,repeats,solutions,median_s\n";
        assert!(super::csv::is_ours(csv));
        #[cfg(feature = "plot")]
        {
            let svg = b"<svg width=\"900\" height=\"560\">\n<text x=\"450\">\nSpeed-up of the \
                engine (mirror) over the serial solver (vm)\n</text>\n</svg>\n";
            assert!(super::svg::is_scaling(svg));
            assert!(!super::svg::is_time(svg));
            let svg = b"<svg width=\"900\">\n<text x=\"450\">\nScaling of the engine (d4, avx512 \
                kernel) over its own 1-thread run (vm)\n</text>\n</svg>\n";
            assert!(super::svg::is_scaling(svg));
        }
    }

    #[test]
    fn write_all_writes_five_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a/b");
        let written = super::write_all(&sample(), &out).unwrap();
        let names: Vec<_> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        let mut want = vec!["scaling.csv", "scaling.json"];
        // The plots with the `plot` feature only.
        if cfg!(feature = "plot") {
            want.extend(["scaling.svg", "time.svg"]);
        }
        want.push("summary.md");
        assert_eq!(names, want);
        for p in &written {
            assert!(std::fs::metadata(p).unwrap().len() > 100, "{}", p.display());
        }
        // Only these files: no temporary file left behind.
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), want.len());
    }

    #[test]
    fn a_busy_machine_is_reported() {
        let mut report = sample();
        assert_eq!(report.busy_warning(), None);
        // 2 threads for 0.5 s could use 1 s of CPU; 0.6 s is 60 %.
        let r = &mut report.rows[5];
        (r.median_s, r.cpu_s) = (0.5, Some(0.6));
        let w = report.busy_warning().unwrap();
        assert!(
            w.contains("N = 11 engine (mirror, avx2) on 2 threads got 60 %"),
            "{w}"
        );
    }
}
