//! `summary.md`: the machine, the settings and a table of every configuration, for the
//! README's Performance section and for reports.

use super::markup::{fields, markdown, si, sig3, values, HEADS};
use crate::bench::report::plural;
use crate::bench::{BenchError, Results, Row};
use serde_json::Value;

/// Whether `bytes` are a `summary.md` of a benchmark: they begin with its title.
pub fn is_ours(bytes: &[u8]) -> bool {
    bytes.starts_with(TITLE.as_bytes())
}

/// The mark of a time from a run too short to time ([`Row::too_short`]).
const SHORT: &str = "†";

/// The mark of a scaling or an efficiency from a parallel run too short to judge scaling by
/// ([`Row::short_for_scaling`]).
const SHORT_FOR_SCALING: &str = "‡";

/// How the figures were made, below the machine and the settings.
const HOW: &str = "Every count checked against the published value. Times are medians of one \
    count, min and max the fastest and the slowest run's; CPU = user + system time of the \
    process. A count under 10 ms is repeated within its timed run until the run has lasted \
    `min_run_ms` (at most 1 000 000 counts; `min_run_ms` 0: not repeated), and timed per count \
    (counts/run). Speed-up = the serial solver's median ÷ median: the gain over the serial \
    solver, what the method and the kernel gain included. Scaling = the same method's 1-thread \
    engine median ÷ median. Efficiency = parallel efficiency = scaling ÷ threads, at most 1 (a \
    scaling above the thread count is capped and marked *).";

/// The first line of the file.
const TITLE: &str = "# N-Queens scaling benchmark\n";

/// The markdown file.
pub fn render(report: &Results) -> Result<Vec<u8>, BenchError> {
    let mut text = format!("{TITLE}\n");
    if let Some(p) = &report.partial {
        text += &format!("**Partial**: {p}.\n\n");
    }
    notes(report)
        .iter()
        .for_each(|l| text += &format!("- {l}\n"));
    let columns: Vec<(&str, &str)> = fields().zip(HEADS.split('|')).collect();
    let mut rows = Vec::new();
    for r in &report.rows {
        let cells = columns.iter().zip(values("summary.md", r)?);
        let shown = cells.filter(|((_, head), _)| !head.is_empty());
        rows.push(shown.map(|((name, _), v)| cell(r, name, &v)).collect());
    }
    let heads: Vec<&str> = columns
        .iter()
        .map(|c| c.1)
        .filter(|h| !h.is_empty())
        .collect();
    Ok((text + "\n" + &markdown(&heads, &rows)).into_bytes())
}

/// The cell of column `name` of `r`, its value `v` short, with its marks: `*` on an
/// efficiency capped at 1, [`SHORT`] on the median of a run too short to time,
/// [`SHORT_FOR_SCALING`] on the scaling and efficiency of a run too short to judge scaling by.
fn cell(r: &Row, name: &str, v: &Value) -> String {
    let text = match v {
        Value::Null => return "–".into(),
        Value::String(s) => s.clone(),
        Value::Number(x) if x.is_f64() && name.ends_with("_per_s") => si(x.as_f64().unwrap_or(0.0)),
        Value::Number(x) if x.is_f64() => sig3(x.as_f64().unwrap_or(0.0)),
        other => other.to_string(),
    };
    let capped = name == "efficiency" && r.scaling.is_some_and(|s| s > r.threads as f64);
    let scaling = matches!(name, "scaling" | "efficiency") && r.short_for_scaling;
    let marks = [
        (capped, "*"),
        (name == "median_s" && r.too_short, SHORT),
        (scaling, SHORT_FOR_SCALING),
    ];
    text + &marks
        .iter()
        .filter(|m| m.0)
        .map(|m| m.1)
        .collect::<String>()
}

/// The lines above the table: where, what and how it was measured, and the warnings.
fn notes(report: &Results) -> Vec<String> {
    let m = &report.machine;
    let memory = m.memory_bytes.map_or(String::new(), |b| {
        format!(", {:.1} GiB memory", b as f64 / (1u64 << 30) as f64)
    });
    let settings = serde_json::to_string(&report.settings).unwrap_or_default();
    let count = |flag: fn(&Row) -> bool| report.rows.iter().filter(|r| flag(r)).count();
    let (short, short_for_scaling) = (count(|r| r.too_short), count(|r| r.short_for_scaling));
    let notes = [
        Some(format!(
            "Machine: `{}`: {}, {} logical / {} physical cores{memory}; {}",
            m.host, m.cpu_model, m.logical_cores, m.physical_cores, m.os
        )),
        Some(format!("Build: {}, commit `{}`", m.rustc, m.git_commit)),
        Some(format!(
            "Command: `{}` (started {})",
            m.command_line, report.started_utc
        )),
        Some(format!(
            "Settings: `{settings}`; the range ended: {}.",
            report.range_end
        )),
        Some(HOW.into()),
        report.busy_warning().map(|w| format!("**Warning**: {w}.")),
        (short > 0).then(|| {
            let (marked, rows) = (plural(short, "row"), report.rows.len());
            let ms = report.settings.min_run_ms.max(10);
            format!(
                "**Warning**: {marked} of {rows} marked {SHORT}: some run lasted under {ms} ms; \
                 their times, and every speed-up, scaling and efficiency from them, are noise."
            )
        }),
        (short_for_scaling > 0).then(|| {
            let marked = plural(short_for_scaling, "engine row");
            format!(
                "{SHORT_FOR_SCALING}: {marked} on several threads lasted under 1 s, too short to \
                 judge scaling by: making the plan, waking the workers and the tail weigh on \
                 them, so their scaling and efficiency understate a long count."
            )
        }),
    ];
    notes.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;
    use crate::bench::Solver;

    /// The summary of `report`.
    fn summary(report: &Results) -> String {
        String::from_utf8(render(report).unwrap()).unwrap()
    }

    /// The cells of column `name` of the table.
    fn column(text: &str, name: &str) -> Vec<String> {
        let mut lines = text.lines().skip_while(|l| !l.starts_with("| N |"));
        let heads: Vec<&str> = lines.next().unwrap().split('|').map(str::trim).collect();
        let i = heads.iter().position(|h| *h == name).unwrap();
        let cells = lines.skip(1).take_while(|l| l.starts_with('|'));
        cells
            .map(|l| l.split('|').nth(i).unwrap().trim().to_string())
            .collect()
    }

    #[test]
    fn the_summary_has_the_machine_the_settings_and_every_row() {
        let text = summary(&sample());
        assert!(text.contains("Some CPU, 2 logical / 1 physical cores, 8.0 GiB memory; Linux"));
        assert!(text.contains("- Command: `nqueens bench --n-min 10 --n-max 11`"));
        assert!(text.contains("the range ended: N = 11 is the largest asked for."));
        // The settings, all of them, as scaling.json has them.
        let settings = serde_json::to_string(&sample().settings).unwrap();
        assert!(
            text.contains(&format!("- Settings: `{settings}`;")),
            "{text}"
        );
        assert!(settings.contains(r#""methods":["d4","mirror"],"kernel":"avx2","#));
        assert!(text.contains(
            "| N | solver | method | kernel | threads | depth | units | median (s) | min (s) | \
             max (s) | CPU (s) | speed-up | efficiency | scaling | solutions/s | counts/run |"
        ));
        assert_eq!(column(&text, "N").len(), 6);
        assert_eq!(column(&text, "method"), ["mirror"; 6]);
        assert_eq!(column(&text, "kernel")[..2], ["dfs", "avx2"]);
        assert_eq!(column(&text, "median (s)")[0], "0.00400");
        assert_eq!(column(&text, "max (s)")[0], "0.00420");
        assert_eq!(column(&text, "solutions/s")[0], "181 k");
        assert_eq!(column(&text, "counts/run")[0], "13");
        // None where a figure does not apply.
        assert_eq!(column(&text, "depth")[0], "–");
        assert_eq!(column(&text, "efficiency")[0], "–");
        assert!(!text.contains("Warning") && !text.contains('†') && !text.contains('‡'));
        let mut busy = sample();
        (busy.rows[5].median_s, busy.rows[5].cpu_s) = (0.5, Some(0.6));
        assert!(summary(&busy).contains("- **Warning**: the machine was busy"));
    }

    #[test]
    fn efficiency_is_parallel_efficiency_at_most_1_for_any_data() {
        // The issue's report: d4 on 2 threads 20 times faster than the serial solver, with a
        // scaling of 3.48 over its own 1-thread run (sub-millisecond counts).
        let mut report = sample();
        for r in (report.rows.iter_mut()).filter(|r| r.solver == Solver::Engine) {
            r.speedup = Some(20.0);
            r.scaling = Some(if r.threads == 1 { 1.0 } else { 3.48 });
            r.efficiency = r
                .scaling
                .map(|x| crate::bench::stats::efficiency(x, r.threads));
        }
        let cells = column(&summary(&report), "efficiency");
        for cell in cells.iter().filter(|c| *c != "–") {
            let x: f64 = cell.trim_end_matches('*').parse().unwrap();
            assert!(x <= 1.0, "{cell}");
        }
        // The capped 2-thread cells say so.
        assert_eq!(cells[2], "1.00*");
        assert_eq!(cells[1], "1.00");
    }

    #[test]
    fn figures_from_runs_too_short_are_marked() {
        // The 1-thread engine run of N = 10 was too short to time; the 2-thread run of N = 11
        // too short to judge scaling by.
        let mut report = sample();
        report.rows[1].too_short = true;
        report.rows[5].short_for_scaling = true;
        report.settings.budget_s = Some(600);
        let text = summary(&report);
        assert!(text.contains("- **Warning**: 1 row of 6 marked †: some run lasted under 50 ms"));
        assert!(text.contains("- ‡: 1 engine row on several threads lasted under 1 s"));
        assert!(text.contains(r#""budget_s":600"#), "{text}");
        let median = column(&text, "median (s)");
        assert!(median[1].ends_with('†') && !median[0].ends_with('†'));
        let (scaling, efficiency) = (column(&text, "scaling"), column(&text, "efficiency"));
        assert!(scaling[5].ends_with('‡') && efficiency[5].ends_with('‡'));
        assert!(!scaling[2].contains('‡') && !median[5].contains('‡'));
        // Repetition off.
        report.settings.min_run_ms = 0;
        let text = summary(&report);
        assert!(text.contains("some run lasted under 10 ms"));
    }

    #[test]
    fn a_partial_benchmark_says_so_first() {
        let mut report = sample();
        report.partial = Some("stopped during N = 11, after 3 s".into());
        let text = summary(&report);
        let first = text.lines().find(|l| !l.is_empty() && !l.starts_with('#'));
        assert_eq!(
            first,
            Some("**Partial**: stopped during N = 11, after 3 s.")
        );
    }
}
