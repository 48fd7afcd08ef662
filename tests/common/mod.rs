//! What the tests share: the binary under test ([`nq`], [`bin`]), an independent reference (the
//! textbook array backtracking solver, with no bit tricks and no symmetry, written only for the
//! tests), and helpers for kernels, slow counts and signals.

/// The `nqueens` binary of this build, to run as a user would.
pub fn nq() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("nqueens").unwrap()
}

/// The path of the `nqueens` binary of this build, for `std::process::Command`.
pub fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("nqueens")
}

/// Calls `f` with every solution (column of the queen in each row, 0-based), in lexicographic
/// order, placing one queen per row and checking each earlier queen by hand.
pub fn naive_solutions(n: usize, mut f: impl FnMut(&[usize])) {
    fn safe(cols: &[usize], col: usize) -> bool {
        let row = cols.len();
        cols.iter()
            .enumerate()
            .all(|(r, &c)| c != col && row - r != c.abs_diff(col))
    }
    fn go(n: usize, cols: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if cols.len() == n {
            f(cols);
            return;
        }
        for col in 0..n {
            if safe(cols, col) {
                cols.push(col);
                go(n, cols, f);
                cols.pop();
            }
        }
    }
    go(n, &mut Vec::new(), &mut f);
}

/// The number of solutions, by the naive solver.
pub fn naive_count(n: usize) -> u128 {
    let mut k = 0;
    naive_solutions(n, |_| k += 1);
    k
}

/// A map of the squares of a board with largest index `m`: (m, row, col) to (row, col).
type SquareMap = fn(usize, usize, usize) -> (usize, usize);

/// The 8 images of a solution (its column in each row) under the symmetries of the square, the
/// solution itself first, each built from the solution's squares by a coordinate map: the
/// tests' own, apart from the library's `symmetry`.
pub fn images<T>(s: &[T]) -> Vec<Vec<T>>
where
    T: Copy + Into<usize> + TryFrom<usize, Error: std::fmt::Debug>,
{
    let n = s.len();
    let m = n.saturating_sub(1);
    let maps: [SquareMap; 8] = [
        |_, r, c| (r, c),
        |m, r, c| (c, m - r),
        |m, r, c| (m - r, m - c),
        |m, r, c| (m - c, r),
        |m, r, c| (r, m - c),
        |m, r, c| (m - r, c),
        |_, r, c| (c, r),
        |m, r, c| (m - c, m - r),
    ];
    maps.iter()
        .map(|g| {
            let mut img = s.to_vec();
            for (r, &c) in s.iter().enumerate() {
                let (r2, c2) = g(m, r, c.into());
                img[r2] = T::try_from(c2).unwrap();
            }
            img
        })
        .collect()
}

/// The number of classes under the 8 symmetries, by building every image explicitly.
pub fn naive_unique(n: usize) -> u128 {
    let mut classes = std::collections::BTreeSet::new();
    naive_solutions(n, |s| {
        classes.insert(images(s).into_iter().min().unwrap());
    });
    classes.len() as u128
}

/// Every search kernel this processor can run (the depth-first search always), after checking
/// that the processor's advertised features give the kernels they should: a kernel missing
/// where `/proc/cpuinfo` lists its features is a failure, not a silent fall-back to `dfs`.
pub fn kernels() -> Vec<nqueens_count::Kernel> {
    let have: Vec<nqueens_count::Kernel> = nqueens_count::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .collect();
    for k in expected_kernels() {
        assert!(
            have.contains(&k),
            "/proc/cpuinfo lists the features of the {k} kernel but it is not available"
        );
    }
    have
}

/// A checkpointed count of N = `n` slow enough to stop or kill mid-run: 2 threads, many small
/// units (plain at split depth 4, on the depth-first kernel: the lanes would finish too soon),
/// a checkpoint every 50 ms, no output but the count (N = 15: about a second here).
pub fn slow_count(n: u32, ckpt: impl AsRef<std::path::Path>) -> Vec<String> {
    let mut args: Vec<String> = [
        "count",
        &n.to_string(),
        "--threads",
        "2",
        "--method",
        "plain",
        "--kernel",
        "dfs",
        "--split-depth",
        "4",
        "--checkpoint-every",
        "0.05",
        "--quiet",
        "--checkpoint",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(ckpt.as_ref().to_str().unwrap().into());
    args
}

/// Whether a test that crosses split depths with kernels counts at `depth` on `kernel`, the
/// one at `index` in [`kernels`]: the fastest kernel at every depth, each other kernel at every
/// other depth (alternating with its index), so that every kernel meets two depths or more and
/// every depth two kernels or more, in about half the counts of the whole cross.
pub fn depth_on_kernel(index: usize, kernel: nqueens_count::Kernel, depth: u32) -> bool {
    kernel == nqueens_count::Kernel::best() || (depth as usize + index).is_multiple_of(2)
}

/// Starts `cmd`'s process with SIGINT, SIGTERM and SIGHUP at their default action, for a test
/// that sends them: a test runner started in the background by a shell without job control
/// ignores SIGINT, the process inherits that, and `nqueens` keeps a signal ignored at start
/// ignored (as `nohup` expects), so the signal would be lost and the test would judge nothing.
pub fn with_default_signals(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the child between fork and exec, calling only `signal`, which is
    // async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        })
    }
}

/// The vector kernels `/proc/cpuinfo` says this processor should run (Linux on x86-64; none
/// elsewhere): every feature a kernel is compiled for (`Kernel::available`) listed.
pub fn expected_kernels() -> Vec<nqueens_count::Kernel> {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return Vec::new();
    };
    let Some(flags) = info.lines().find(|l| l.starts_with("flags")) else {
        return Vec::new();
    };
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    // lzcnt is `abm` in /proc/cpuinfo.
    let scalar = has("popcnt") && has("bmi1") && has("abm");
    let mut out = Vec::new();
    if scalar && has("avx2") {
        out.push(nqueens_count::Kernel::Avx2);
    }
    if scalar && has("avx512f") {
        out.push(nqueens_count::Kernel::Avx512);
    }
    out
}

/// Asserts that a count on `kernel` searched on its lanes (a vector kernel) or only depth first
/// (`dfs`): the kernel the test names is the one that ran.
pub fn assert_ran_on(r: &nqueens_count::Report, kernel: nqueens_count::Kernel, what: &str) {
    assert_eq!(r.kernel, kernel, "{what}");
    assert_searched_on(r.searches, kernel, what);
}

/// Asserts that the searches of a run (`Report::searches`) ran on the
/// lanes of `kernel` (a vector kernel: at least one lane search) or only depth first (`dfs`).
fn assert_searched_on(
    searches: nqueens_count::Searches,
    kernel: nqueens_count::Kernel,
    what: &str,
) {
    if kernel == nqueens_count::Kernel::Dfs {
        assert_eq!(searches.lanes, 0, "{what}: dfs ran lane searches");
    } else {
        assert!(
            searches.lanes > 0,
            "{what}: no search ran on the {kernel} lanes ({searches:?})"
        );
    }
}

mod skip;
pub use skip::skip;

/// Starts the command `args(n)` (a checkpointed count) for each `n` of `sizes` in turn and kills
/// it with SIGKILL as soon as its checkpoint `ckpt` holds a finished unit; returns the first `n`
/// whose run was killed mid-run (some units saved, not all). A machine fast enough to finish a
/// size before the kill lands moves on to the next, larger one, so the test checks a resume on
/// any machine instead of passing or failing by the clock.
pub fn kill_mid_run(
    sizes: &[u32],
    ckpt: &std::path::Path,
    args: impl Fn(u32) -> Vec<String>,
) -> (u32, Vec<String>) {
    use nqueens_count::longrun::Checkpoint;
    use std::time::{Duration, Instant};
    for &n in sizes {
        let _ = std::fs::remove_file(ckpt);
        let a = args(n);
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(&a)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while Checkpoint::load(ckpt).map_or(true, |c| c.done.is_empty()) {
            assert!(t0.elapsed() < Duration::from_secs(120), "no checkpoint");
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL (no effect on a process that already ended)
        let status = child.wait().unwrap();
        Checkpoint::load(ckpt).expect("a whole checkpoint after kill -9");
        if !status.success() {
            return (n, a);
        }
        skip(
            "kill_mid_run",
            &format!("N = {n} finished before the kill; trying a larger N"),
        );
    }
    panic!("every size {sizes:?} finished before its kill");
}

/// The lock file of a checkpoint or result file: its name and `.lock` (for names short enough,
/// as every test's are; docs/CLUSTER.md).
pub fn lock_path(target: &std::path::Path) -> std::path::PathBuf {
    let mut name = target.file_name().unwrap().to_os_string();
    name.push(".lock");
    target.with_file_name(name)
}

/// Counts `job` on a new engine of `threads` workers.
pub fn count(
    job: &nqueens_count::Job,
    threads: usize,
) -> nqueens_count::Result<nqueens_count::Report> {
    nqueens_count::Engine::new(threads)?.count(job)
}
