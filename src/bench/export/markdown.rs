//! `summary.md`: the machine, a table of every configuration and the load-balance tables, for
//! the README's Performance section and for reports.

use super::markup::{opt, plural, si, sig3, Table};
use super::Exporter;
use crate::bench::timing::MAX_COUNTS_PER_RUN;
use crate::bench::{stats, BenchError, Report, Row, Settings, Solver};
use std::time::Duration;

/// The markdown export.
pub struct Markdown;

/// The mark of a figure from a run too short to time ([`Row::too_short`]).
const SHORT: &str = "†";

/// The mark of a scaling or an efficiency from a parallel run too short to judge scaling by
/// ([`Row::short_for_scaling`]).
const SHORT_FOR_SCALING: &str = "‡";

impl Exporter for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    fn render(&self, report: &Report) -> Result<Vec<u8>, BenchError> {
        let mut text = "# N-Queens scaling benchmark\n\n".to_string();
        if let Some(p) = &report.partial {
            text += &format!("**Partial**: {p}.\n\n");
        }
        notes(report)
            .iter()
            .for_each(|line| text += &format!("- {line}\n"));
        text += "\n";
        text += &rows(report).markdown();
        let parallel: Vec<&Row> = engine_rows(report).filter(|r| r.threads > 1).collect();
        if !parallel.is_empty() {
            text += "\n## Load balance\n\nUnit max ÷ mean: the costliest work unit's time over \
                     the mean unit time. Tail: the share of the wall time after the first worker \
                     ran out of units (medians over the runs). The worker that runs out of units \
                     first waits through the whole tail, so the tail bounds the parallel \
                     efficiency: efficiency ≤ 1 − tail ÷ threads.\n\n";
            text += &balance(report, &parallel).markdown();
        }
        if !report.projections.is_empty() {
            text += "\n## Projected load balance\n\nThe best efficiency the work units allow at \
                     more threads than this machine has: the unit costs measured on 1 thread \
                     (each unit's cheapest time over the runs), handed out in index order to \
                     whichever simulated worker is free first, as the engine does (load balance \
                     only: no memory, frequency or scheduling-overhead effects).\n\n";
            text += &projections(report).markdown();
        }
        Ok(text.into_bytes())
    }
}

fn engine_rows(report: &Report) -> impl Iterator<Item = &Row> {
    report.rows.iter().filter(|r| r.solver == Solver::Engine)
}

/// The lines above the table: where, what and how it was measured, and the warnings.
fn notes(report: &Report) -> Vec<String> {
    let (m, settings) = (&report.machine, &report.settings);
    let memory = m.memory_bytes.map_or(String::new(), |b| {
        format!(", {:.1} GiB memory", b as f64 / (1u64 << 30) as f64)
    });
    let measured = || report.rows.iter().map(|r| r.n);
    let range = match (measured().min(), measured().max()) {
        (Some(a), Some(b)) if a == b => format!("N = {a}"),
        (Some(a), Some(b)) => format!("N = {a} to {b}"),
        _ => "no N".into(),
    };
    let budget = settings.budget_s.map_or(String::new(), |b| {
        let b = crate::longrun::estimate::human(Duration::from_secs(b));
        format!(" (open range, budget {b})")
    });
    let mut notes =
        vec![
        format!(
            "Machine: `{}`: {}, {} logical / {} physical cores{memory}; {}",
            m.host, m.cpu_model, m.logical_cores, m.physical_cores, m.os
        ),
        format!("Build: {}, commit `{}`", m.rustc, m.git_commit),
        format!("Command: `{}` (started {})", m.command_line, report.started_utc),
        format!("Range: {range}{budget}; ended: {}.", report.range_end),
        format!(
            "{} per configuration; times are medians (min = fastest run); CPU = user + system \
             time of the process; every count checked against the published value.",
            plural(settings.repeat, "timed run")
        ),
        "Speed-up = the serial solver's median ÷ median: the gain over the serial solver, what \
         the method and the kernel gain included. Scaling = the same method's 1-thread engine \
         median ÷ median. Efficiency = parallel efficiency = scaling ÷ threads, at most 1 (a \
         scaling above the thread count is capped and marked *)."
            .into(),
        format!(
            "Engine kernel: {} (the serial solver runs its own depth-first search).",
            settings.kernel
        ),
        format!("Nodes: {}.", report.nodes_note),
        repetition_note(settings.min_run_ms),
    ];
    notes.extend(report.busy_warning().map(|w| format!("**Warning**: {w}.")));
    let short = report.rows.iter().filter(|r| r.too_short).count();
    if short > 0 {
        let per_run = match settings.min_run_ms {
            0 => "10 ms a run, with repetition off".into(),
            ms => format!("{ms} ms a run"),
        };
        notes.push(format!(
            "**Warning**: {} of {} marked {SHORT}: timed over less than {per_run}; their times \
             and every speed-up, scaling and efficiency from them are noise.",
            plural(short, "row"),
            report.rows.len()
        ));
    }
    let short = report.rows.iter().filter(|r| r.short_for_scaling).count();
    if short > 0 {
        let parallel = engine_rows(report).filter(|r| r.threads > 1).count();
        notes.push(format!(
            "{SHORT_FOR_SCALING}: {short} of {} on several threads lasted under {} s, too \
             short to judge scaling by: making the plan, waking the workers and the tail weigh \
             on them, so their scaling and efficiency understate a long count.",
            plural(parallel, "engine row"),
            Settings::SCALING_MIN_S
        ));
    }
    notes
}

/// How short counts were timed, in words.
fn repetition_note(ms: u32) -> String {
    if ms > 0 {
        format!(
            "A count under 10 ms is repeated within its timed run until the run has lasted at \
             least {ms} ms (at most {} counts), and timed per count (counts/run); a run shorter \
             than {ms} ms after one count makes a second, so that a slow first count hides no \
             short one. A row marked {SHORT} still ran shorter.",
            si(MAX_COUNTS_PER_RUN as f64)
        )
    } else {
        format!(
            "Short counts are not repeated (min_run_ms 0): a row whose count took under 10 ms \
             is marked {SHORT}."
        )
    }
}

/// `SHORT` where `noisy`, else nothing.
fn mark(noisy: bool) -> &'static str {
    if noisy {
        SHORT
    } else {
        ""
    }
}

/// The marks of a scaling or an efficiency: `†` where it rests on a run too short to time (its
/// own, or the 1-thread run of the same method and kernel it is scaled against), `‡` where its
/// run was too short to judge scaling by.
fn scaling_marks(report: &Report, r: &Row) -> String {
    let noisy = r.too_short
        || engine_rows(report).any(|o| {
            (o.n, &o.method, &o.kernel, o.threads) == (r.n, &r.method, &r.kernel, 1) && o.too_short
        });
    let scaling = if r.short_for_scaling {
        SHORT_FOR_SCALING
    } else {
        ""
    };
    format!("{}{scaling}", mark(noisy))
}

/// The parallel efficiency of a row, `*` after it where a scaling above the thread count was
/// capped at 1, then its [`scaling_marks`].
fn efficiency_cell(report: &Report, r: &Row) -> String {
    let capped = r.scaling.is_some_and(|x| stats::superlinear(x, r.threads));
    let capped = if capped { "*" } else { "" };
    opt(r.efficiency, |x| {
        format!("{x:.2}{capped}{}", scaling_marks(report, r))
    })
}

/// The table of every configuration.
fn rows(report: &Report) -> Table {
    let mut table = Table::new(
        "N:|solver|method|kernel|threads:|depth:|units:|counts/run:|median (s):|min (s):|\
         CPU (s):|speed-up:|efficiency:|scaling:|solutions/s:|nodes/s:"
            .split('|'),
    );
    for r in &report.rows {
        // The speed-up rests on this run and the serial solver's at this N.
        let serial_short = report
            .rows
            .iter()
            .any(|o| (o.n, o.solver, o.too_short) == (r.n, Solver::Serial, true));
        table.row(vec![
            r.n.to_string(),
            r.solver.to_string(),
            r.method.clone(),
            r.kernel.clone(),
            r.threads.to_string(),
            opt(r.split_depth, |k| k.to_string()),
            opt(r.units, |u| u.to_string()),
            r.counts_per_run.to_string(),
            format!("{}{}", sig3(r.median_s), mark(r.too_short)),
            sig3(r.min_s),
            opt(r.cpu_s, sig3),
            opt(r.speedup, |x| {
                format!("{x:.2}{}", mark(r.too_short || serial_short))
            }),
            efficiency_cell(report, r),
            opt(r.scaling, |x| format!("{x:.2}{}", scaling_marks(report, r))),
            opt(r.solutions_per_s, si),
            opt(r.nodes_per_s, si),
        ]);
    }
    table
}

/// The load balance of the engine rows on several threads.
fn balance(report: &Report, parallel: &[&Row]) -> Table {
    let heads = "N:|method|kernel|threads:|depth:|units:|unit max ÷ mean:|tail:|efficiency:";
    let mut table = Table::new(heads.split('|'));
    for r in parallel {
        table.row(vec![
            r.n.to_string(),
            r.method.clone(),
            r.kernel.clone(),
            r.threads.to_string(),
            opt(r.split_depth, |k| k.to_string()),
            opt(r.units, |u| u.to_string()),
            opt(r.unit_max_over_mean, |x| format!("{x:.1}")),
            opt(r.tail_share, |x| format!("{:.1} %", 100.0 * x)),
            efficiency_cell(report, r),
        ]);
    }
    table
}

/// The projected efficiency bounds: one line per plan, in the order measured, one column per
/// thread count.
fn projections(report: &Report) -> Table {
    let key = |p: &crate::bench::ProjectionRow| {
        (
            p.n,
            p.method.clone(),
            p.kernel.clone(),
            p.split_depth,
            p.units,
        )
    };
    let mut threads: Vec<usize> = report.projections.iter().map(|p| p.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let heads = ["N:", "method", "kernel", "depth:", "units:"].map(String::from);
    let mut table = Table::new(
        heads
            .into_iter()
            .chain(threads.iter().map(|t| format!("{t} threads:"))),
    );
    let mut plans = Vec::new();
    report.projections.iter().map(key).for_each(|k| {
        if !plans.contains(&k) {
            plans.push(k)
        }
    });
    for plan in plans {
        let (n, method, kernel, depth, units) = plan.clone();
        let mut cells = vec![
            n.to_string(),
            method,
            kernel,
            depth.to_string(),
            units.to_string(),
        ];
        cells.extend(threads.iter().map(|&t| {
            let p = report
                .projections
                .iter()
                .find(|p| key(p) == plan && p.threads == t);
            opt(p, |p| format!("{:.2}", p.efficiency_bound))
        }));
        table.row(cells);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;

    /// The cells of column `name` in the table whose header line starts with `header`.
    fn column(text: &str, header: &str, name: &str) -> Vec<String> {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(header));
        let heads: Vec<&str> = lines.next().unwrap().split('|').map(str::trim).collect();
        let i = heads.iter().position(|h| *h == name).unwrap();
        lines
            .skip(1)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.split('|').nth(i).unwrap().trim().to_string())
            .collect()
    }

    #[test]
    fn efficiency_is_parallel_efficiency_at_most_1_for_any_data() {
        // The report: d4 on 2 threads 20 times faster than the serial solver, with a
        // scaling of 3.48 over its own 1-thread run (sub-millisecond counts).
        let mut report = sample();
        for r in report
            .rows
            .iter_mut()
            .filter(|r| r.solver == Solver::Engine)
        {
            r.speedup = Some(20.0);
            r.scaling = Some(if r.threads == 1 { 1.0 } else { 3.48 });
            r.efficiency = r.scaling.map(|x| stats::efficiency(x, r.threads));
        }
        report.settings.repeat = 1;
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        for header in ["| N | solver |", "| N | method | kernel | threads |"] {
            let cells = column(&text, header, "efficiency");
            assert!(!cells.is_empty());
            for cell in cells.iter().filter(|c| *c != "–") {
                let x: f64 = cell.trim_end_matches('*').parse().unwrap();
                assert!(x <= 1.0, "{header}: {cell}");
            }
            // The capped 2-thread cells say so.
            assert!(cells.iter().any(|c| c == "1.00*"), "{header}: {cells:?}");
        }
        assert!(text.contains("efficiency ≤ 1 − tail ÷ threads"));
        assert!(text.contains("- 1 timed run per configuration;"), "{text}");
        assert!(!text.contains("1 timed runs"));
        assert_eq!(plural(3, "timed run"), "3 timed runs");
    }

    #[test]
    fn every_table_row_names_its_method_and_kernel() {
        // Two methods per N, as the default run measures: no row may leave the reader to guess.
        let mut report = sample();
        let d4: Vec<_> = report
            .rows
            .iter()
            .filter(|r| r.solver == Solver::Engine)
            .cloned()
            .collect();
        for mut r in d4 {
            r.method = "d4".into();
            report.rows.push(r);
        }
        let mut p = report.projections.clone();
        p.iter_mut().for_each(|p| p.method = "d4".into());
        report.projections.extend(p);
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        for header in [
            "| N | solver |",
            "| N | method | kernel | threads |",
            "| N | method | kernel | depth |",
        ] {
            let methods = column(&text, header, "method");
            let kernels = column(&text, header, "kernel");
            assert!(methods.iter().any(|m| m == "d4"), "{header}");
            assert!(methods.iter().any(|m| m == "mirror"), "{header}");
            for (m, k) in methods.iter().zip(&kernels) {
                assert!(["d4", "mirror"].contains(&m.as_str()), "{header}: {m}");
                assert!(["avx2", "dfs"].contains(&k.as_str()), "{header}: {k}");
            }
        }
        // The projections: one line per plan, both methods.
        assert_eq!(
            column(&text, "| N | method | kernel | depth |", "N").len(),
            2
        );
    }

    #[test]
    fn figures_from_runs_too_short_to_time_are_marked() {
        let text = String::from_utf8(Markdown.render(&sample()).unwrap()).unwrap();
        assert!(
            text.contains("repeated within its timed run until the run has lasted at least 50 ms")
        );
        assert_eq!(column(&text, "| N | solver |", "counts/run")[0], "13");
        let scaling = column(&text, "| N | solver |", "scaling");
        assert!(!scaling.iter().any(|c| c.ends_with('†')), "{scaling:?}");
        assert!(!text.contains("**Warning**"));
        // The 1-thread engine run of N = 10 was too short: it, and the 2-thread row's scaling
        // and efficiency against it, are marked; the serial row and its speed-ups are not.
        let mut report = sample();
        report.rows[1].too_short = true;
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        assert!(text.contains("- **Warning**: 1 row of 6 marked †: timed over less than 50 ms"));
        let median = column(&text, "| N | solver |", "median (s)");
        let scaling = column(&text, "| N | solver |", "scaling");
        let efficiency = column(&text, "| N | solver |", "efficiency");
        let speedup = column(&text, "| N | solver |", "speed-up");
        assert!(!median[0].ends_with('†') && median[1].ends_with('†'));
        assert!(!median[2].ends_with('†') && scaling[2].ends_with('†'));
        assert!(efficiency[2].ends_with('†') && !speedup[2].ends_with('†'));
        assert!(speedup[1].ends_with('†'));
        // N = 11 is untouched.
        assert!(!scaling[5].ends_with('†'));
        // Repetition off.
        report.settings.min_run_ms = 0;
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        assert!(text.contains("Short counts are not repeated"));
        assert!(text.contains("less than 10 ms a run, with repetition off"));
    }

    #[test]
    fn summary_has_both_tables() {
        let text = String::from_utf8(Markdown.render(&sample()).unwrap()).unwrap();
        assert!(text.contains("Some CPU, 2 logical / 1 physical cores"));
        assert!(text.contains("| N | solver | method | kernel | threads |"));
        // 6 rows in the main table, 2 (the 2-thread rows) in the load-balance table, 1 in the
        // projections.
        assert_eq!(text.lines().filter(|l| l.starts_with("| 1")).count(), 9);
        assert!(text.contains("## Load balance"));
        assert!(text.contains("| 10 | mirror | avx2 | 2 | 2 | 35 | 3.5 | 4.0 % |"));
        assert!(text.contains("| N | method | kernel | depth | units | 2 threads | 4 threads |"));
        assert!(text.contains("| 11 | mirror | avx2 | 2 | 35 | 0.99 | 0.90 |"));
        assert!(!text.contains("Warning"));
        let mut busy = sample();
        (busy.rows[5].median_s, busy.rows[5].cpu_s) = (0.5, Some(0.6));
        let text = String::from_utf8(Markdown.render(&busy).unwrap()).unwrap();
        assert!(text.contains("- **Warning**: the machine was busy"));
    }

    #[test]
    fn runs_too_short_to_judge_scaling_are_marked() {
        let text = String::from_utf8(Markdown.render(&sample()).unwrap()).unwrap();
        assert!(!text.contains('‡'), "{text}");
        assert!(text.contains("- Range: N = 10 to 11; ended: N = 11 is the largest asked for."));
        // The 2-thread run of N = 10 lasted under a second: its scaling and efficiency (in both
        // tables) are marked, and a line says why; its time and speed-up are not.
        let mut report = sample();
        report.rows[2].short_for_scaling = true;
        report.settings.budget_s = Some(600);
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        assert!(
            text.contains("- ‡: 1 of 2 engine rows on several threads lasted under 1 s"),
            "{text}"
        );
        assert!(text.contains("(open range, budget 10 min)"), "{text}");
        let scaling = column(&text, "| N | solver |", "scaling");
        let efficiency = column(&text, "| N | solver |", "efficiency");
        let median = column(&text, "| N | solver |", "median (s)");
        let speedup = column(&text, "| N | solver |", "speed-up");
        assert!(scaling[2].ends_with('‡') && efficiency[2].ends_with('‡'));
        assert!(!median[2].contains('‡') && !speedup[2].contains('‡'));
        assert!(!scaling[5].contains('‡') && !efficiency[5].contains('‡'));
        let balance = column(&text, "| N | method | kernel | threads |", "efficiency");
        assert!(balance[0].ends_with('‡') && !balance[1].contains('‡'));
    }

    #[test]
    fn a_partial_benchmark_says_so_first() {
        let mut report = sample();
        report.partial = Some("stopped during N = 11, after 3 s".into());
        let text = String::from_utf8(Markdown.render(&report).unwrap()).unwrap();
        let first = text.lines().find(|l| !l.is_empty() && !l.starts_with('#'));
        assert_eq!(
            first,
            Some("**Partial**: stopped during N = 11, after 3 s.")
        );
    }
}
