//! The plots, drawn with plotters' SVG backend: text goes out as SVG `<text>` elements sized by
//! plotters' built-in estimate, so no system font is read. Both plots are one [`chart`] with
//! their own horizontal axis, over a vertical log scale.
//!
//! Both show the engine with the library's default method ([`Results::default_method`]), or,
//! where it was not measured, the first method measured, and say which; where several split
//! depths were measured for one N and thread count, they show the fastest (the CSV has them
//! all).

use crate::bench::{stats, BenchError, Results, Row, Solver};
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// One line of a plot: its label and its points (x, y, and whether the point is hollow).
type Line = (String, Vec<(f64, f64, bool)>);

/// A colour-blind-friendly cycle (Okabe and Ito, "Color Universal Design", 2002).
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The plot `file` as SVG: the `ideal` line in grey, if any, then each of `lines` in a colour
/// of its own with a marker on each point, and the legend; the horizontal axis `x` with about
/// `x_labels` labels, the vertical one a log scale over the points. A point off a log scale
/// (at or below zero: a run too short for the clock) is left out.
fn chart<X>(
    file: &str,
    caption: &str,
    (x, x_labels): (X, usize),
    desc: [&str; 2],
    ideal: Option<Line>,
    lines: Vec<Line>,
) -> Result<Vec<u8>, BenchError>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Display| super::render_error(file, e);
    let on_scale = |p: &&(f64, f64, bool)| p.1.is_finite() && p.1 > 0.0;
    let ys = || (ideal.iter().chain(&lines)).flat_map(|l| l.1.iter().filter(on_scale));
    let (lo, hi) = ys().fold((f64::INFINITY, 0.0f64), |(l, h), p| {
        (l.min(p.1), h.max(p.1))
    });
    // No point on the scale (a stopped benchmark): a scale all the same.
    let (lo, hi) = if hi > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (1e-3, 1.0)
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 22))
            .margin(20)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x, (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)))
            .map_err(|e| err(&e))?;
        (chart.configure_mesh())
            .x_desc(desc[0])
            .y_desc(desc[1])
            .x_labels(x_labels)
            .x_label_formatter(&label)
            .y_label_formatter(&label)
            .draw()
            .map_err(|e| err(&e))?;
        let grey = RGBColor(120, 120, 120).stroke_width(1);
        // The ideal line without markers, then the measured ones with them.
        let ideal = ideal.map(|l| (l, grey, false)).into_iter();
        let colour = |i: usize| COLOURS[i % COLOURS.len()].stroke_width(2);
        let measured = (lines.into_iter().enumerate()).map(|(i, l)| (l, colour(i), true));
        for ((label, points), style, marked) in ideal.chain(measured) {
            let points: Vec<_> = points.iter().filter(on_scale).copied().collect();
            let path = LineSeries::new(points.iter().map(|p| (p.0, p.1)), style);
            let drawn = chart.draw_series(path).map_err(|e| err(&e))?;
            let legend = move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style);
            drawn.label(label).legend(legend);
            let marker = |&(x, y, hollow): &(f64, f64, bool)| match hollow {
                true => Circle::new((x, y), 4, style),
                false => Circle::new((x, y), 3, style.color.filled()),
            };
            let markers = points.iter().filter(|_| marked).map(marker);
            chart.draw_series(markers).map_err(|e| err(&e))?;
        }
        (chart.configure_series_labels())
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg.into_bytes())
}

/// The labelled values of a log axis from `lo` to `hi`: 1, 2 and 5 times the powers of ten
/// within it, and every whole multiple of them where those are fewer than four, so that every
/// point has a label near it across the whole range (plotters' own choice labelled 1, 2 and 3
/// only, where a point stood at 0.39).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |steps: &[f64]| -> Vec<f64> {
        let mut ticks = Vec::new();
        let mut decade = 10f64.powi(lo.log10().floor() as i32);
        while decade <= hi {
            for &s in steps {
                let v = decade * s;
                if (lo..=hi).contains(&v) {
                    ticks.push(v);
                }
            }
            decade *= 10.0;
        }
        ticks
    };
    let ticks = within(&[1.0, 2.0, 5.0]);
    if ticks.len() >= 4 {
        return ticks;
    }
    let ticks = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if ticks.len() >= 2 {
        return ticks;
    }
    // Within one step of the finest: the ends themselves.
    vec![lo, hi]
}

/// An axis label: `v` to three significant digits, as short as it goes ("0.05", "20").
fn label(v: &f64) -> String {
    stats::round_sig(*v, 3).to_string()
}

/// The method the plots show, and how the caption names it with its kernel: the default
/// method if it was measured, else the first method measured.
fn plotted(report: &Results) -> (String, String) {
    let default = &report.default_method;
    let mut engine = report.rows.iter().filter(|r| r.solver == Solver::Engine);
    let shown = engine
        .clone()
        .find(|r| r.method == *default)
        .or_else(|| engine.next());
    let (method, kernel) = shown.map_or(("–", ""), |r| (r.method.as_str(), r.kernel.as_str()));
    let what = match method == default {
        true => "the default method".into(),
        false => format!("the default method, {default}, was not measured"),
    };
    (method.into(), format!("{method} ({what}), {kernel} kernel"))
}

/// The fastest engine row of `method` at every (N, threads).
fn fastest<'a>(report: &'a Results, method: &str) -> BTreeMap<(u32, usize), &'a Row> {
    let engine = |r: &&Row| r.solver == Solver::Engine && r.method == method;
    let mut rows: Vec<&Row> = report.rows.iter().filter(engine).collect();
    // The slowest first: the fastest of each (N, threads) is the last one kept.
    rows.sort_by(|a, b| b.median_s.total_cmp(&a.median_s));
    rows.into_iter().map(|r| ((r.n, r.threads), r)).collect()
}

/// The lines of a plot: each of `rows` is a point (`point`: x, y, hollow) of the line of its
/// `key`, named after its first row (`label`), the lines in the order of their keys.
fn lines<'a, K: Ord>(
    rows: impl Iterator<Item = &'a Row>,
    key: impl Fn(&Row) -> K,
    label: impl Fn(&Row) -> String,
    point: impl Fn(&Row) -> Option<(f64, f64, bool)>,
) -> Vec<Line> {
    let mut lines: BTreeMap<K, Line> = BTreeMap::new();
    for r in rows {
        let line = lines
            .entry(key(r))
            .or_insert_with(|| (label(r), Vec::new()));
        line.1.extend(point(r));
    }
    lines.into_values().collect()
}

/// The start of the caption of `scaling.svg`.
const SCALING_CAPTION: &str = "Parallel scaling of the engine";
/// The start of the caption of `time.svg`.
const TIME_CAPTION: &str = "Wall time of a whole count";

/// Whether `bytes` are an SVG image holding the text `caption`: a plot of a benchmark.
fn is_plot(bytes: &[u8], caption: &str) -> bool {
    let text = caption.as_bytes();
    bytes.starts_with(b"<svg") && bytes.windows(text.len()).any(|w| w == text)
}

/// The starts of the captions `scaling.svg` had before e113715 (2026-11-29; the benchmarks under
/// `results/` of that day bear them).
const EARLIER_SCALING_CAPTIONS: [&str; 2] = ["Speed-up of the engine", "Scaling of the engine"];

/// Whether `bytes` are a `scaling.svg` of a benchmark, of this version or an earlier one.
pub fn is_scaling(bytes: &[u8]) -> bool {
    let mut captions = std::iter::once(SCALING_CAPTION).chain(EARLIER_SCALING_CAPTIONS);
    captions.any(|caption| is_plot(bytes, caption))
}

/// Whether `bytes` are a `time.svg` of a benchmark.
pub fn is_time(bytes: &[u8]) -> bool {
    is_plot(bytes, TIME_CAPTION)
}

/// `scaling.svg`: the engine's scaling (its 1-thread time over its time: the `scaling` column)
/// against threads, one line per N, and the ideal line, both axes on log scales. A point of a
/// run too short to time, or to judge scaling by, is hollow.
pub fn scaling(report: &Results) -> Result<Vec<u8>, BenchError> {
    let (method, what) = plotted(report);
    let best = fastest(report, &method);
    let hollow = |r: &Row| r.too_short || r.short_for_scaling;
    let point = |r: &Row| Some((r.threads as f64, r.scaling?, hollow(r)));
    let lines = lines(
        best.values().copied(),
        |r| r.n,
        |r| format!("N = {}", r.n),
        point,
    );
    let most = best.keys().map(|k| k.1).max().unwrap_or(1).max(2) as f64;
    let ideal = (
        "ideal (scaling = threads)".into(),
        vec![(1.0, 1.0, false), (most, most, false)],
    );
    let host = &report.machine.host;
    let caption = format!("{SCALING_CAPTION}: {what} ({host})");
    let desc = [
        "threads (log scale); hollow: a run too short to time, or under 1 s, too short to judge \
         scaling",
        "scaling = 1-thread time ÷ time (log scale)",
    ];
    let x = ((1.0..most * 1.15).log_scale(), 10);
    chart("scaling.svg", &caption, x, desc, Some(ideal), lines)
}

/// `time.svg`: median wall time against N, on a log scale: the serial solver and the engine at
/// each thread count; every line names its method and kernel. A point of a run too short to
/// time is hollow.
pub fn time(report: &Results) -> Result<Vec<u8>, BenchError> {
    let (method, what) = plotted(report);
    let serial = report.rows.iter().filter(|r| r.solver == Solver::Serial);
    let rows = serial.chain(fastest(report, &method).into_values());
    let label = |r: &Row| match r.solver {
        Solver::Serial => format!("serial solver ({}, {})", r.method, r.kernel),
        Solver::Engine => {
            let threads = crate::bench::report::plural(r.threads, "thread");
            format!("engine ({}, {}), {threads}", r.method, r.kernel)
        }
    };
    let point = |r: &Row| Some((f64::from(r.n), r.median_s, r.too_short));
    let lines = lines(rows, |r| (r.solver, r.threads), label, point);
    // The N measured (an open range ends before its settings' largest N; a stopped one may
    // have measured none).
    let measured = |f: fn(u32, u32) -> u32| report.rows.iter().map(|r| r.n).reduce(f);
    let n_min = measured(u32::min).unwrap_or(report.settings.n_min);
    let n_max = measured(u32::max).unwrap_or(n_min).max(n_min + 1);
    let host = &report.machine.host;
    let caption = format!("{TIME_CAPTION} ({host}); engine: {what}");
    let desc = [
        "N (board size); hollow: a run too short to time",
        "median wall time (s, log scale)",
    ];
    let x = (
        f64::from(n_min)..f64::from(n_max),
        1 + (n_max - n_min) as usize,
    );
    chart("time.svg", &caption, x, desc, None, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::export::tests::sample;

    /// Issue 36, item 4: a log axis is labelled across its range, whatever it spans.
    #[test]
    fn log_axes_are_labelled_across_their_range() {
        // The range of a plot with a point at 0.39 and one at 3: labels below 1 too.
        let t = log_ticks(0.39 / 1.5, 3.0 * 1.5);
        assert!(t.iter().any(|&v| v < 0.39), "{t:?}");
        assert!(t.iter().any(|&v| v > 3.0), "{t:?}");
        assert!(t.len() >= 4, "{t:?}");
        assert_eq!(log_ticks(0.001, 100.0).len(), 16);
        assert_eq!(log_ticks(0.001, 100.0)[..3], [0.001, 0.002, 0.005]);
        // A narrow range: every whole multiple.
        assert_eq!(log_ticks(1.2, 4.5), vec![2.0, 3.0, 4.0]);
        assert_eq!(log_ticks(1.05, 1.9), vec![1.05, 1.9]);
    }

    #[test]
    fn plots_are_svg_with_text_labels() {
        let report = sample();
        let scaling = String::from_utf8(super::scaling(&report).unwrap()).unwrap();
        assert!(scaling.starts_with("<svg"));
        assert!(scaling.contains("<text") && scaling.contains("N = 10"));
        assert!(scaling.contains("N = 11") && scaling.contains("ideal"));
        let time = String::from_utf8(super::time(&report).unwrap()).unwrap();
        assert!(time.starts_with("<svg"));
        assert!(time.contains("serial solver (mirror, dfs)"));
        assert!(time.contains("engine (mirror, avx2), 2 threads"));
    }

    /// [`sample`] with d4 measured too, faster than mirror.
    fn with_d4() -> Results {
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
        let scaling = String::from_utf8(super::scaling(&report).unwrap()).unwrap();
        assert!(scaling.contains("engine: d4 (the default method), avx2 kernel"));
        let time = String::from_utf8(super::time(&report).unwrap()).unwrap();
        assert!(time.contains("engine: d4 (the default method)"));
        assert!(time.contains("engine (d4, avx2), 1 thread"));
        assert!(time.contains("engine (d4, avx2), 2 threads"));
        assert!(!time.contains("engine (mirror"));
        // The default is the report's, not a name written into the plots: another default
        // (a method added later) is plotted in the same way.
        let mut other = with_d4();
        other.default_method = "mirror".into();
        let time = String::from_utf8(super::time(&other).unwrap()).unwrap();
        assert!(time.contains("engine: mirror (the default method)"));
        assert!(time.contains("engine (mirror, avx2), 2 threads") && !time.contains("engine (d4"));
        // A default method that was not measured: the first measured, and the plot says so.
        let mut missing = sample();
        missing.default_method = "edge".into();
        let scaling = String::from_utf8(super::scaling(&missing).unwrap()).unwrap();
        assert!(scaling.contains("engine: mirror (the default method, edge, was not measured)"));
    }

    #[test]
    fn the_log_axes_are_labelled() {
        let report = with_d4();
        let scaling = String::from_utf8(super::scaling(&report).unwrap()).unwrap();
        assert!(scaling.contains("threads (log scale)"));
        assert!(scaling.contains("scaling = 1-thread time ÷ time (log scale)"));
        let time = String::from_utf8(super::time(&report).unwrap()).unwrap();
        assert!(time.contains("median wall time (s, log scale)"));
    }

    /// The hollow markers of a plot: plotters writes a filled circle with fill-opacity 1, a
    /// hollow one with fill="none" (as the legend's box is too).
    fn hollow(svg: &str) -> usize {
        let circles = svg.split("<circle").skip(1);
        circles
            .filter(|c| c[..c.find("/>").unwrap()].contains("fill=\"none\""))
            .count()
    }

    #[test]
    fn points_too_short_to_time_or_to_judge_scaling_are_hollow() {
        let mut report = sample();
        let plain = String::from_utf8(super::scaling(&report).unwrap()).unwrap();
        assert_eq!(hollow(&plain), 0);
        assert!(plain.contains("hollow: a run too short to time, or under 1 s"));
        let filled = plain.matches("<circle").count();
        // N = 10 on 2 threads ran under a second, N = 11 on 1 thread was too short to time.
        report.rows[2].short_for_scaling = true;
        report.rows[4].too_short = true;
        let svg = String::from_utf8(super::scaling(&report).unwrap()).unwrap();
        assert_eq!((svg.matches("<circle").count(), hollow(&svg)), (filled, 2));
        // The time plot: only the run too short to time.
        let time = String::from_utf8(super::time(&report).unwrap()).unwrap();
        assert_eq!(hollow(&time), 1);
    }

    #[test]
    fn the_time_axis_spans_the_n_measured() {
        // An open range up to 27 that measured N = 10 and 11: the axis ends at 11.
        let mut report = sample();
        report.settings.n_max = 27;
        report.settings.budget_s = Some(600);
        let time = String::from_utf8(super::time(&report).unwrap()).unwrap();
        // plotters writes each label's text on a line of its own.
        let labels = |svg: &str, n: u32| svg.contains(&format!(">\n{n}\n</text>"));
        assert!(labels(&time, 10) && labels(&time, 11), "{time}");
        assert!(!labels(&time, 12) && !labels(&time, 27));
        // No row at all (stopped at once): still a plot.
        report.rows.clear();
        assert!(super::time(&report).is_ok() && super::scaling(&report).is_ok());
    }

    #[test]
    fn time_labels_are_short_decimals() {
        assert_eq!(label(&0.09999999999), "0.1");
        assert_eq!(label(&20.000000001), "20");
        assert_eq!(label(&0.0005), "0.0005");
    }

    #[test]
    fn the_fastest_depth_is_plotted() {
        let mut report = sample();
        let mut slower = report.rows[2].clone();
        slower.split_depth = Some(3);
        slower.median_s *= 2.0;
        report.rows.push(slower);
        let best = fastest(&report, "mirror");
        assert_eq!(best[&(10, 2)].split_depth, Some(2));
    }
}
