//! `summary.md`: the machine, the settings and a table of every configuration, for the
//! README's Performance section and for reports.

use super::markup::{si, sig3, values, Table, COLUMNS};
use crate::bench::report::plural;
use crate::bench::timing::MAX_COUNTS_PER_RUN;
use crate::bench::{human_s, BenchError, Report, Row, Settings};
use serde_json::Value;

/// The mark of a time from a run too short to time ([`Row::too_short`]).
const SHORT: &str = "†";

/// The mark of a scaling or an efficiency from a parallel run too short to judge scaling by
/// ([`Row::short_for_scaling`]).
const SHORT_FOR_SCALING: &str = "‡";

/// The markdown file.
pub fn render(report: &Report) -> Result<Vec<u8>, BenchError> {
    let mut text = "# N-Queens scaling benchmark\n\n".to_string();
    if let Some(p) = &report.partial {
        text += &format!("**Partial**: {p}.\n\n");
    }
    notes(report)
        .iter()
        .for_each(|l| text += &format!("- {l}\n"));
    let shown: Vec<usize> = (0..COLUMNS.len())
        .filter(|&i| !COLUMNS[i].1.is_empty())
        .collect();
    let mut table = Table::new(shown.iter().map(|&i| COLUMNS[i].1));
    for r in &report.rows {
        let values = values("summary.md", r)?;
        table.row(
            shown
                .iter()
                .map(|&i| cell(r, COLUMNS[i].0, &values[i]))
                .collect(),
        );
    }
    Ok((text + "\n" + &table.markdown()).into_bytes())
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
fn notes(report: &Report) -> Vec<String> {
    let (m, s) = (&report.machine, &report.settings);
    let memory = m.memory_bytes.map_or(String::new(), |b| {
        format!(", {:.1} GiB memory", b as f64 / (1u64 << 30) as f64)
    });
    let measured = || report.rows.iter().map(|r| r.n);
    let range = match (measured().min(), measured().max()) {
        (Some(a), Some(b)) => format!("N = {a} to {b}"),
        _ => "no N".into(),
    };
    let budget = s.budget_s.map_or(String::new(), |b| {
        format!(" (open range, budget {})", human_s(b as f64))
    });
    let methods: Vec<String> = s.methods.iter().map(|m| m.to_string()).collect();
    let repetition = match s.min_run_ms {
        0 => "short counts are not repeated (min_run_ms 0)".to_string(),
        ms => format!(
            "a count under 10 ms is repeated within its timed run until the run has lasted at \
             least {ms} ms (at most {} counts), and timed per count (counts/run)",
            si(MAX_COUNTS_PER_RUN as f64)
        ),
    };
    let mut notes = vec![
        format!(
            "Machine: `{}`: {}, {} logical / {} physical cores{memory}; {}",
            m.host, m.cpu_model, m.logical_cores, m.physical_cores, m.os
        ),
        format!("Build: {}, commit `{}`", m.rustc, m.git_commit),
        format!(
            "Command: `{}` (started {})",
            m.command_line, report.started_utc
        ),
        format!("Range: {range}{budget}; ended: {}.", report.range_end),
        format!(
            "Settings: {} per configuration; methods {}; engine kernel {} (the serial solver \
             runs its own depth-first search); unique solutions {}; {repetition}.",
            plural(s.repeat, "timed run"),
            methods.join(", "),
            s.kernel,
            if s.unique {
                "counted too"
            } else {
                "not counted"
            },
        ),
        "Every count checked against the published value. Times are medians of one count, \
         min and max the fastest and the slowest run's; CPU = user + system time of the \
         process. Speed-up = the serial solver's median ÷ median: the gain over the serial \
         solver, what the method and the kernel gain included. Scaling = the same method's \
         1-thread engine median ÷ median. Efficiency = parallel efficiency = scaling ÷ threads, \
         at most 1 (a scaling above the thread count is capped and marked *)."
            .into(),
    ];
    notes.extend(report.busy_warning().map(|w| format!("**Warning**: {w}.")));
    let short = report.rows.iter().filter(|r| r.too_short).count();
    if short > 0 {
        notes.push(format!(
            "**Warning**: {} of {} marked {SHORT}: some run lasted under {} ms; their times, and \
             every speed-up, scaling and efficiency from them, are noise.",
            plural(short, "row"),
            report.rows.len(),
            s.min_run_ms.max(10)
        ));
    }
    let short = report.rows.iter().filter(|r| r.short_for_scaling).count();
    if short > 0 {
        notes.push(format!(
            "{SHORT_FOR_SCALING}: {} on several threads lasted under {} s, too short to judge \
             scaling by: making the plan, waking the workers and the tail weigh on them, so \
             their scaling and efficiency understate a long count.",
            plural(short, "engine row"),
            Settings::SCALING_MIN_S
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;
    use crate::bench::Solver;

    /// The summary of `report`.
    fn summary(report: &Report) -> String {
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
        assert!(text.contains("- Range: N = 10 to 11; ended: N = 11 is the largest asked for."));
        assert!(text.contains(
            "- Settings: 3 timed runs per configuration; methods d4, mirror; \
                               engine kernel avx2"
        ));
        assert!(
            text.contains("at least 50 ms (at most 1.00 M counts)"),
            "{text}"
        );
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
        let mut one = sample();
        one.settings.repeat = 1;
        assert!(summary(&one).contains("- Settings: 1 timed run per configuration;"));
    }

    #[test]
    fn efficiency_is_parallel_efficiency_at_most_1_for_any_data() {
        // The report: d4 on 2 threads 20 times faster than the serial solver, with a
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
        assert!(text.contains("(open range, budget 10 min)"), "{text}");
        let median = column(&text, "median (s)");
        assert!(median[1].ends_with('†') && !median[0].ends_with('†'));
        let (scaling, efficiency) = (column(&text, "scaling"), column(&text, "efficiency"));
        assert!(scaling[5].ends_with('‡') && efficiency[5].ends_with('‡'));
        assert!(!scaling[2].contains('‡') && !median[5].contains('‡'));
        // Repetition off.
        report.settings.min_run_ms = 0;
        let text = summary(&report);
        assert!(text.contains("short counts are not repeated"));
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
