//! Count the solutions of one board, total and up to symmetry, on every core:
//! `cargo run --release --example count -- 14`.

use nqueens::Job;

fn main() -> Result<(), nqueens::Error> {
    let n: u32 = std::env::args()
        .nth(1)
        .map_or(Ok(12), |a| a.parse())
        .expect("usage: count [N]");
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let job = Job::new(n)?.with_unique(true);
    let report = nqueens::count(&job, threads)?;
    println!(
        "N = {n}: {} solutions, {} distinct up to symmetry ({} method, {} kernel, {:.3} s)",
        report.counts.total,
        report.counts.unique,
        report.method,
        report.kernel,
        report.elapsed.as_secs_f64()
    );
    Ok(())
}
