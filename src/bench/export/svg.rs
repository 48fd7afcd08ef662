//! The plots, drawn with plotters' SVG backend: text goes out as SVG `<text>` elements sized by
//! plotters' built-in estimate, so no system font is read. Both plots are one [`Chart`] with
//! their own axes.
//!
//! Both plots show the engine with the library's default method ([`Report::default_method`]),
//! or, where it was not measured, the first method measured, and say which; where several
//! split depths were measured for one N and thread count, they show the fastest (the CSV has
//! them all).

use super::Exporter;
use crate::bench::{BenchError, Report, Row, Solver};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// `scaling.svg`: the engine's scaling (its 1-thread time over its time) against threads, one
/// line per N, and the ideal line, both axes on log scales; for the default method.
pub struct ScalingPlot;

/// `time.svg`: median wall time against N on a log scale: the serial solver and the engine at
/// each thread count, with the default method; every line names its method and kernel.
pub struct TimePlot;

/// One line of a plot: its label, its points, and which of them are drawn hollow (none past
/// the end of the list).
type Line<X, Y> = (String, Vec<(X, Y)>, Vec<bool>);

/// Whether a figure has a place on a log scale.
fn positive(y: f64) -> bool {
    y.is_finite() && y > 0.0
}

/// A plot: what differs between the two is its caption and its axes (the vertical one, of
/// seconds or of scalings, on a log scale).
struct Chart<'a, X: AsRangedCoord, Y: AsRangedCoord> {
    file: &'static str,
    caption: String,
    /// The ranges of the axes (a log scale or not), their descriptions, their labels.
    axes: (X, Y),
    desc: [&'a str; 2],
    y_label_area: u32,
    x_labels: usize,
    x_label: &'a dyn Fn(&X::Value) -> String,
    y_label: &'a dyn Fn(&Y::Value) -> String,
}

impl<X, Y> Chart<'_, X, Y>
where
    X: AsRangedCoord,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<X::Value>,
    Y::CoordDescType: ValueFormatter<f64>,
    X::Value: Copy + 'static,
{
    /// The plot as SVG: the `ideal` line in grey, if any, then each of `lines` in a colour of
    /// its own with a marker on each point (hollow where it says), and the legend.
    fn draw(
        self,
        ideal: Option<Line<X::Value, f64>>,
        lines: Vec<Line<X::Value, f64>>,
    ) -> Result<Vec<u8>, BenchError> {
        let file = self.file;
        let err = |e: &dyn std::fmt::Display| BenchError::Render {
            file,
            message: e.to_string(),
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(&e))?;
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.caption, ("sans-serif", 22))
                .margin(20)
                .x_label_area_size(45)
                .y_label_area_size(self.y_label_area)
                .build_cartesian_2d(self.axes.0, self.axes.1)
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc(self.desc[0])
                .y_desc(self.desc[1])
                .x_labels(self.x_labels)
                .x_label_formatter(self.x_label)
                .y_label_formatter(self.y_label)
                .draw()
                .map_err(|e| err(&e))?;
            let grey = RGBColor(120, 120, 120);
            if let Some((label, pts, _)) = ideal {
                let line = LineSeries::new(pts, grey.stroke_width(1));
                let anno = chart.draw_series(line).map_err(|e| err(&e))?.label(label);
                anno.legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey));
            }
            for (i, (label, pts, hollow)) in lines.into_iter().enumerate() {
                // No point of a log scale is at or below zero (a run too short for the clock).
                let pts: Vec<_> = pts.into_iter().filter(|p| positive(p.1)).collect();
                let c = color(i);
                let line = LineSeries::new(pts.iter().copied(), c.stroke_width(2));
                let anno = chart.draw_series(line).map_err(|e| err(&e))?.label(label);
                anno.legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2))
                });
                let hollow = hollow.into_iter().chain(std::iter::repeat(false));
                let marks = pts.iter().zip(hollow).map(|(&p, h)| {
                    let style = if h { c.stroke_width(2) } else { c.filled() };
                    Circle::new(p, if h { 4 } else { 3 }, style)
                });
                chart.draw_series(marks).map_err(|e| err(&e))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
            root.present().map_err(|e| err(&e))?;
        }
        Ok(svg.into_bytes())
    }
}

/// The method the plots show, and how to name it: the default method if it was measured,
/// else the first method measured.
fn plotted_method(report: &Report) -> (String, String) {
    let engine = || report.rows.iter().filter(|r| r.solver == Solver::Engine);
    let measured = |m: &str| engine().any(|r| r.method == m);
    let default = &report.default_method;
    if measured(default) {
        return (default.clone(), format!("{default}, the default method"));
    }
    let methods = report.settings.methods.iter().map(|m| m.to_string());
    let first = methods
        .chain(engine().map(|r| r.method.clone()))
        .find(|m| measured(m));
    let first = first.unwrap_or_else(|| "–".into());
    let label = format!("{first} (the default method, {default}, was not measured)");
    (first, label)
}

/// The fastest engine row of every (N, threads), among the rows of `method` if given.
fn best_engine_rows<'a>(
    report: &'a Report,
    method: Option<&str>,
) -> BTreeMap<(u32, usize), &'a Row> {
    let mut best: BTreeMap<(u32, usize), &Row> = BTreeMap::new();
    let rows = report.rows.iter().filter(|r| r.solver == Solver::Engine);
    for r in rows.filter(|r| method.is_none_or(|m| r.method == m)) {
        let slot = best.entry((r.n, r.threads)).or_insert(r);
        if r.median_s < slot.median_s {
            *slot = r;
        }
    }
    best
}

fn color(i: usize) -> RGBColor {
    // A colour-blind-friendly cycle (Okabe and Ito, "Color Universal Design", 2002).
    const C: [RGBColor; 8] = [
        RGBColor(0, 114, 178),
        RGBColor(230, 159, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(86, 180, 233),
        RGBColor(213, 94, 0),
        RGBColor(240, 228, 66),
        RGBColor(0, 0, 0),
    ];
    C[i % C.len()]
}

/// A time axis label: the shortest decimal of `y` to six significant digits ("0.05", "20").
fn seconds_label(y: f64) -> String {
    let rounded: f64 = format!("{y:.5e}").parse().unwrap_or(y);
    format!("{rounded}")
}

impl Exporter for ScalingPlot {
    fn file_name(&self) -> &'static str {
        "scaling.svg"
    }

    fn render(&self, report: &Report) -> Result<Vec<u8>, BenchError> {
        // Parallel scaling, like for like: each engine row against the 1-thread run of its own
        // method and kernel (the `scaling` column), for the default method.
        let (method, method_label) = plotted_method(report);
        let best = best_engine_rows(report, Some(&method));
        // Per N: the points, and whether each is from a run too short to judge scaling.
        let mut lines: BTreeMap<u32, Line<f64, f64>> = BTreeMap::new();
        for (&(n, t), r) in &best {
            if let Some(s) = r.scaling.filter(|&s| positive(s)) {
                let line = lines.entry(n).or_default();
                line.1.push((t as f64, s));
                line.2.push(r.short_for_scaling);
            }
        }
        let max_t = best.keys().map(|&(_, t)| t).max().unwrap_or(1).max(2) as f64;
        let scalings = || lines.values().flat_map(|l| l.1.iter().map(|p| p.1));
        let (min_s, max_s) = (
            scalings().fold(1.0, f64::min),
            scalings().fold(max_t, f64::max),
        );
        let kernel = report
            .rows
            .iter()
            .find(|r| r.solver == Solver::Engine && r.method == method);
        let kernel =
            kernel.map_or_else(|| report.settings.kernel.to_string(), |r| r.kernel.clone());
        let lines = lines.into_iter().map(|(n, (_, pts, hollow))| {
            // Noise where one of its runs, or the 1-thread run they are scaled against, was too
            // short to time.
            let noisy = report.rows.iter().any(|r| {
                (r.n, r.solver, &r.method, r.too_short) == (n, Solver::Engine, &method, true)
            });
            let when = |on: bool, text: &'static str| if on { text } else { "" };
            let short = when(noisy, " (too short to time: noise)");
            let hollows = hollow.contains(&true);
            let start_up = when(hollows, " (hollow: under 1 s, too short to judge scaling)");
            (format!("N = {n}{short}{start_up}"), pts, hollow)
        });
        let ideal = (
            "ideal (scaling = threads)".into(),
            vec![(1.0, 1.0), (max_t, max_t)],
            vec![],
        );
        Chart {
            file: "scaling.svg",
            caption: format!(
                "Parallel scaling of the engine: {method_label}, {kernel} kernel ({})",
                report.machine.host
            ),
            axes: (
                (1.0..max_t * 1.15).log_scale(),
                (min_s * 0.8..max_s * 1.15).log_scale(),
            ),
            desc: [
                "threads (log scale)",
                "scaling = 1-thread time ÷ time (log scale)",
            ],
            y_label_area: 60,
            x_labels: 10,
            x_label: &|x| format!("{x:.0}"),
            y_label: &|y| format!("{y:.2}"),
        }
        .draw(Some(ideal), lines.collect())
    }
}

impl Exporter for TimePlot {
    fn file_name(&self) -> &'static str {
        "time.svg"
    }

    fn render(&self, report: &Report) -> Result<Vec<u8>, BenchError> {
        // Keyed by (0 serial / 1 engine, threads): a label and its (N, seconds) points.
        let mut lines: BTreeMap<(u8, usize), Line<u32, f64>> = BTreeMap::new();
        for r in report.rows.iter().filter(|r| r.solver == Solver::Serial) {
            let label = || format!("serial solver ({}, {})", r.method, r.kernel);
            lines
                .entry((0, 1))
                .or_insert_with(|| (label(), vec![], vec![]))
                .1
                .push((r.n, r.median_s));
        }
        let (method, method_label) = plotted_method(report);
        for (&(n, t), r) in &best_engine_rows(report, Some(&method)) {
            let s = if t == 1 { "" } else { "s" };
            let label = || format!("engine ({}, {}), {t} thread{s}", r.method, r.kernel);
            lines
                .entry((1, t))
                .or_insert_with(|| (label(), vec![], vec![]))
                .1
                .push((n, r.median_s));
        }
        let times = || {
            lines
                .values()
                .flat_map(|l| l.1.iter().map(|p| p.1))
                .filter(|&t| positive(t))
        };
        let (lo, hi) = (
            times().fold(f64::INFINITY, f64::min),
            times().fold(0.0, f64::max),
        );
        let (lo, hi) = if lo.is_finite() && hi > 0.0 {
            (lo / 1.5, hi * 1.5)
        } else {
            (1e-3, 1.0)
        };
        // The N measured (an open range ends before its settings' largest N; a stopped one may
        // have measured none).
        let measured = |f: fn(u32, u32) -> u32| report.rows.iter().map(|r| r.n).reduce(f);
        let n_min = measured(u32::min).unwrap_or(report.settings.n_min);
        let n_max = measured(u32::max)
            .unwrap_or(report.settings.n_max)
            .max(n_min + 1);
        Chart {
            file: "time.svg",
            caption: format!(
                "Wall time of a whole count ({}); engine: {method_label}",
                report.machine.host
            ),
            axes: (n_min..n_max, (lo..hi).log_scale()),
            desc: ["N (board size)", "median wall time (s, log scale)"],
            y_label_area: 70,
            x_labels: (n_max - n_min + 1) as usize,
            x_label: &|n| n.to_string(),
            y_label: &|y| seconds_label(*y),
        }
        .draw(None, lines.into_values().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;

    #[test]
    fn plots_are_svg_with_text_labels() {
        let report = sample();
        let scaling = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(scaling.starts_with("<svg"));
        assert!(scaling.contains("<text") && scaling.contains("N = 10"));
        assert!(scaling.contains("N = 11") && scaling.contains("ideal"));
        let time = String::from_utf8(TimePlot.render(&report).unwrap()).unwrap();
        assert!(time.starts_with("<svg"));
        assert!(time.contains("serial solver (mirror, dfs)"));
        assert!(time.contains("engine (mirror, avx2), 2 threads"));
    }

    /// [`sample`] with d4 measured too, faster than mirror.
    fn with_d4() -> Report {
        let mut report = sample();
        let mut d4: Vec<Row> = report
            .rows
            .iter()
            .filter(|r| r.solver == Solver::Engine)
            .cloned()
            .collect();
        for r in &mut d4 {
            r.method = "d4".into();
            r.median_s /= 4.0;
            r.scaling = r.scaling.map(|x| x * 0.9);
        }
        report.rows.extend(d4);
        report
    }

    #[test]
    fn the_plots_show_the_default_method_and_say_so() {
        let report = with_d4();
        assert_eq!(report.default_method, "d4");
        let scaling = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(scaling.contains("engine: d4, the default method, avx2 kernel"));
        let time = String::from_utf8(TimePlot.render(&report).unwrap()).unwrap();
        assert!(time.contains("engine: d4, the default method"));
        assert!(time.contains("engine (d4, avx2), 1 thread"));
        assert!(time.contains("engine (d4, avx2), 2 threads"));
        assert!(!time.contains("engine (mirror"));
        // The default is the report's, not a name written into the plots: another default
        // (a method added later) is plotted in the same way.
        let mut other = with_d4();
        other.default_method = "mirror".into();
        let time = String::from_utf8(TimePlot.render(&other).unwrap()).unwrap();
        assert!(time.contains("engine: mirror, the default method"));
        assert!(time.contains("engine (mirror, avx2), 2 threads") && !time.contains("engine (d4"));
        // A default method that was not measured: the first measured, and the plot says so.
        let mut missing = sample();
        missing.default_method = "edge".into();
        let scaling = String::from_utf8(ScalingPlot.render(&missing).unwrap()).unwrap();
        assert!(scaling.contains("engine: mirror (the default method, edge, was not measured)"));
    }

    #[test]
    fn the_log_axes_are_labelled() {
        let report = with_d4();
        let scaling = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(scaling.contains("threads (log scale)"));
        assert!(scaling.contains("scaling = 1-thread time ÷ time (log scale)"));
        let time = String::from_utf8(TimePlot.render(&report).unwrap()).unwrap();
        assert!(time.contains("median wall time (s, log scale)"));
    }

    #[test]
    fn a_line_from_runs_too_short_to_time_says_so() {
        let mut report = with_d4();
        let plain = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(!plain.contains("too short"));
        // N = 10's d4 1-thread run was too short: its line says so, N = 11's does not.
        let r = report
            .rows
            .iter_mut()
            .find(|r| (r.n, r.method.as_str(), r.threads) == (10, "d4", 1))
            .unwrap();
        r.too_short = true;
        let svg = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(svg.contains("N = 10 (too short to time: noise)"));
        assert!(svg.contains("N = 11") && !svg.contains("N = 11 (too short"));
    }

    #[test]
    fn points_too_short_to_judge_scaling_are_hollow_and_said_so() {
        let mut report = sample();
        let plain = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(!plain.contains("hollow"));
        let filled = plain.matches("<circle").count();
        // N = 10 on 2 threads ran under a second.
        report.rows[2].short_for_scaling = true;
        let svg = String::from_utf8(ScalingPlot.render(&report).unwrap()).unwrap();
        assert!(svg.contains("N = 10 (hollow: under 1 s, too short to judge scaling)"));
        assert!(!svg.contains("N = 11 (hollow"));
        // One point fewer filled: plotters writes a filled circle with fill-opacity 1, a
        // hollow one with fill="none".
        assert_eq!(svg.matches("<circle").count(), filled);
        assert_eq!(
            svg.matches("fill=\"none\"").count(),
            plain.matches("fill=\"none\"").count() + 1,
            "{svg}"
        );
    }

    #[test]
    fn the_time_axis_spans_the_n_measured() {
        // An open range up to 27 that measured N = 10 and 11: the axis ends at 11.
        let mut report = sample();
        report.settings.n_max = 27;
        report.settings.budget_s = Some(600);
        let time = String::from_utf8(TimePlot.render(&report).unwrap()).unwrap();
        // plotters writes each label's text on a line of its own.
        let labels = |svg: &str, n: u32| svg.contains(&format!(">\n{n}\n</text>"));
        assert!(labels(&time, 10) && labels(&time, 11), "{time}");
        assert!(!labels(&time, 12) && !labels(&time, 27));
        // No row at all (stopped at once): still a plot.
        report.rows.clear();
        assert!(TimePlot.render(&report).is_ok() && ScalingPlot.render(&report).is_ok());
    }

    #[test]
    fn time_labels_are_short_decimals() {
        assert_eq!(seconds_label(0.09999999999), "0.1");
        assert_eq!(seconds_label(20.000000001), "20");
        assert_eq!(seconds_label(0.0005), "0.0005");
    }

    #[test]
    fn the_fastest_depth_is_plotted() {
        let mut report = sample();
        let mut slower = report.rows[2].clone();
        slower.split_depth = Some(3);
        slower.median_s *= 2.0;
        report.rows.push(slower);
        let best = best_engine_rows(&report, None);
        assert_eq!(best[&(10, 2)].split_depth, Some(2));
    }
}
