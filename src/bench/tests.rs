//! The harness on small boards: rows, checks, statistics and projections.

use super::*;

fn small() -> Settings {
    Settings {
        n_min: 6,
        n_max: 8,
        budget_s: None,
        threads: vec![1, 2],
        repeat: 2,
        split_depths: vec![],
        methods: vec![Method::D4, Method::Mirror],
        kernel: Kernel::best(),
        devices: crate::engine::Devices::Cpu,
        // Short, to keep the tests quick: the counts here take microseconds.
        min_run_ms: 2,
    }
}

fn published(n: u32) -> Option<u128> {
    crate::known::published(n).map(|p| p.total)
}

#[test]
fn default_thread_lists() {
    assert_eq!(Settings::default_threads(1), vec![1]);
    assert_eq!(Settings::default_threads(2), vec![1, 2]);
    assert_eq!(Settings::default_threads(6), vec![1, 2, 4, 6]);
    assert_eq!(Settings::default_threads(16), vec![1, 2, 4, 8, 16]);
    assert_eq!(
        Settings::default_threads(256),
        vec![1, 2, 4, 8, 16, 32, 64, 128, 256]
    );
    assert_eq!(Settings::default_threads(0), vec![1]);
}

#[test]
fn the_default_method_is_the_library_s() {
    // The bench takes `Method::default()` as the default method: the one `Job::new` gives at
    // every N (and `nqueens count` runs without `--method`).
    for n in [1, 8, 17, 27] {
        assert_eq!(Method::default(), Job::new(n).unwrap().method());
    }
    let defaults = Settings::defaults(2);
    assert_eq!(defaults.methods[0], Method::default());
    assert!(defaults.methods.contains(&Method::Mirror));
}

#[test]
fn settings_are_validated() {
    assert!(small().validate().is_ok());
    let bad = [
        Settings {
            n_min: 9,
            n_max: 8,
            ..small()
        },
        Settings {
            n_min: 0,
            ..small()
        },
        Settings {
            threads: vec![1, 0],
            ..small()
        },
        Settings {
            threads: vec![],
            ..small()
        },
        Settings {
            repeat: 0,
            ..small()
        },
        Settings {
            n_max: 33,
            ..small()
        },
        // Depth 4 is deeper than a 3x3 board.
        Settings {
            n_min: 3,
            split_depths: vec![4],
            ..small()
        },
    ];
    for s in bad {
        assert!(matches!(s.validate(), Err(BenchError::Invalid(_))), "{s:?}");
    }
}

#[test]
fn a_small_benchmark_has_every_row_and_figure() {
    let report = run(
        &small(),
        Machine::detect("test".into()),
        &published,
        &mut (),
    )
    .unwrap();
    // Per N: serial, then the engine with d4 and with mirror, each on 1 and on 2 threads.
    assert_eq!(report.rows.len(), 3 * 5);
    let methods: Vec<&str> = report.rows[..5].iter().map(|r| r.method.as_str()).collect();
    assert_eq!(methods, ["mirror", "d4", "d4", "mirror", "mirror"]);
    for r in &report.rows {
        // Every row names its method and kernel: the serial solver's own depth-first search,
        // or the engine's kernel.
        let kernel = match r.solver {
            Solver::Serial => "dfs",
            Solver::Engine => Kernel::best().name(),
        };
        assert_eq!(r.kernel, kernel);
        assert_eq!(u128::from(r.solutions), published(r.n).unwrap());
        assert_eq!(r.repeats, 2);
        assert!(r.min_s <= r.median_s && r.min_s > 0.0);
        // Counts of microseconds, repeated until each run lasted 2 ms: never flagged.
        assert!(r.counts_per_run >= 1 && !r.too_short, "{r:?}");
        assert!(r.nodes.unwrap() > 0);
        match r.solver {
            Solver::Serial => {
                assert_eq!((r.threads, r.split_depth, r.units), (1, None, None));
                assert_eq!(r.unit_max_over_mean, None);
                assert_eq!(r.scaling, None);
            }
            Solver::Engine => {
                assert!(r.units.unwrap() > 0);
                // Against the same method's 1-thread row of the same N.
                let one = report
                    .rows
                    .iter()
                    .find(|o| {
                        (o.n, o.solver, &o.method, o.threads) == (r.n, Solver::Engine, &r.method, 1)
                    })
                    .unwrap();
                assert_eq!(r.scaling, Some(one.median_s / r.median_s));
                assert!(r.unit_max_over_mean.unwrap() >= 1.0);
                assert!((0.0..=1.0).contains(&r.tail_share.unwrap()));
            }
        }
        // Parallel efficiency: the engine's scaling per thread, never above 1; none for the
        // serial solver, whose speed-up over itself says nothing of threads.
        match r.solver {
            Solver::Serial => assert_eq!(r.efficiency, None),
            Solver::Engine => {
                let e = r.efficiency.unwrap();
                let want = (r.scaling.unwrap() / r.threads as f64).min(1.0);
                assert!((e - want).abs() < 1e-12 && e <= 1.0, "{r:?}");
            }
        }
    }
    // The serial solver's node counts against a textbook recount of its tree.
    for r in report.rows.iter().filter(|r| r.solver == Solver::Serial) {
        assert_eq!(r.nodes, Some(naive_serial_nodes(r.n)), "N = {}", r.n);
    }
    // The serial row is its own baseline.
    assert_eq!(report.rows[0].speedup, Some(1.0));
    assert_eq!(report.rows[0].solver, Solver::Serial);
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    assert_eq!(report.default_method, Method::default().to_string());
    // Runs this short are never taken as a sign of a busy machine.
    assert_eq!(report.busy_warning(), None);
    // Projections from the 1-thread runs: every N and method (one default depth each) at 8
    // thread counts.
    assert_eq!(report.projections.len(), 3 * 2 * PROJECTED_THREADS.len());
    for p in &report.projections {
        let one_thread = report
            .rows
            .iter()
            .find(|r| (r.n, r.solver, r.threads, &r.method) == (p.n, Solver::Engine, 1, &p.method));
        assert_eq!(one_thread.unwrap().kernel, p.kernel);
        assert!(p.efficiency_bound > 0.0 && p.efficiency_bound <= 1.0 + 1e-9);
        assert!((0.0..=1.0).contains(&p.tail_share));
    }
}

#[test]
fn short_counts_are_repeated_to_50_ms_or_flagged() {
    let settings = Settings {
        n_min: 6,
        n_max: 6,
        threads: vec![1],
        repeat: 1,
        methods: vec![Method::Mirror],
        min_run_ms: Settings::DEFAULT_MIN_RUN_MS,
        ..small()
    };
    let bench = |settings: &Settings| {
        run(
            settings,
            Machine::detect("test".into()),
            &published,
            &mut (),
        )
        .unwrap()
    };
    // N = 6 counts in microseconds: each run repeats its count until it has lasted 50 ms.
    let report = bench(&settings);
    assert_eq!(report.rows.len(), 2);
    for r in &report.rows {
        // Repeated (how often depends on the machine's load: 9 times under a parallel test run;
        // a machine loaded enough to take 50 ms for one count needs no repetition).
        assert!(r.counts_per_run > 1 || r.median_s >= 0.05, "{r:?}");
        assert!(
            r.median_s * r.counts_per_run as f64 >= 0.05 * (1.0 - 1e-9),
            "{r:?}"
        );
        assert!(!r.too_short);
    }
    assert_eq!(report.settings.min_run_ms, 50);
    // Repetition off: one count a run, flagged.
    let report = bench(&Settings {
        min_run_ms: 0,
        ..settings
    });
    for r in &report.rows {
        // Flagged when shorter than the threshold, which a microsecond count is unless the
        // machine is loaded enough to stretch it past 10 ms.
        let short = r.median_s < crate::bench::timing::SHORT_COUNT_S;
        assert_eq!((r.counts_per_run, r.too_short), (1, short), "{r:?}");
    }
}

/// The queens a mirror-halved search places below row 0 (first queen in the left half, or
/// the middle column), by plain recursion.
fn naive_serial_nodes(n: u32) -> u64 {
    fn below(n: usize, cols: &mut Vec<usize>) -> u64 {
        let row = cols.len();
        if row == n {
            return 0;
        }
        let mut nodes = 0;
        for c in 0..n {
            let safe = cols
                .iter()
                .enumerate()
                .all(|(r, &q)| q != c && q.abs_diff(c) != row - r);
            if safe {
                cols.push(c);
                nodes += 1 + below(n, cols);
                cols.pop();
            }
        }
        nodes
    }
    let n = n as usize;
    (0..n.div_ceil(2)).map(|c| below(n, &mut vec![c])).sum()
}

#[test]
fn a_method_that_falls_back_to_another_measured_one_has_no_row_of_its_own() {
    // At N = 1 d4 runs as mirror: one mirror row per thread count, each scaled against
    // the mirror 1-thread row.
    let settings = Settings {
        n_min: 1,
        n_max: 2,
        ..small()
    };
    let report = run(
        &settings,
        Machine::detect("test".into()),
        &published,
        &mut (),
    )
    .unwrap();
    let n1: Vec<(&str, usize)> = report
        .rows
        .iter()
        .filter(|r| r.n == 1)
        .map(|r| (r.method.as_str(), r.threads))
        .collect();
    assert_eq!(n1, [("mirror", 1), ("mirror", 1), ("mirror", 2)]);
    let n2: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| r.n == 2)
        .map(|r| r.method.as_str())
        .collect();
    assert_eq!(n2, ["mirror", "d4", "d4", "mirror", "mirror"]);
}

#[test]
fn a_count_mismatch_is_an_error() {
    // An expectation that is off by one for N = 7 only.
    let wrong = |n: u32| published(n).map(|t| if n == 7 { t + 1 } else { t });
    let err = run(&small(), Machine::detect("test".into()), &wrong, &mut ()).unwrap_err();
    // The rows of N = 6, measured before, come with the error, marked partial.
    let BenchError::Failed { error, report } = err else {
        panic!("expected a failure with the rows before it, got {err}");
    };
    match *error {
        BenchError::Mismatch {
            n, got, expected, ..
        } => assert_eq!((n, got, expected), (7, 40, 41)),
        other => panic!("expected a mismatch, got {other}"),
    }
    assert!(!report.rows.is_empty() && report.rows.iter().all(|r| r.n == 6));
    let partial = report.partial.as_deref().unwrap_or_default();
    assert!(partial.starts_with("failed during N = 7"), "{partial}");
    assert!(partial.contains("count mismatch"), "{partial}");
    assert_eq!(report.range_end, "failed during N = 7");
    // At the first N, nothing measured: the error alone.
    let first = |n: u32| published(n).map(|t| if n == 6 { t + 1 } else { t });
    let err = run(&small(), Machine::detect("test".into()), &first, &mut ()).unwrap_err();
    assert!(matches!(err, BenchError::Mismatch { n: 6, .. }), "{err}");
    // No published value at all: refused before any run.
    let none = |_: u32| None;
    assert!(matches!(
        run(&small(), Machine::detect("test".into()), &none, &mut ()),
        Err(BenchError::Invalid(_))
    ));
}

#[test]
fn a_busy_machine_is_reported() {
    let mut report = export::tests::sample();
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
