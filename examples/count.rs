//! Count the solutions of one board, total and up to symmetry, on every core, with a progress
//! line every second on standard error, stopped after a time limit if one is given:
//! `cargo run --release --example count -- 16 [SECONDS]`.
//!
//! The one way to count with progress and a cancel: [`nqueens_count::Engine::count_with`], a
//! [`nqueens_count::longrun::Watch`] (here the ready [`nqueens_count::longrun::LogLines`]) and a
//! [`nqueens_count::Cancel`] (here cancelled by a timer thread; a signal handler can set it too).

use nqueens_count::longrun::LogLines;
use nqueens_count::{Cancel, Engine, Error, Job};
use std::time::Duration;

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let n: u32 = args
        .next()
        .map_or(Ok(12), |a| a.parse())
        .expect("usage: count [N [SECONDS]]");
    let limit: Option<f64> = args.next().map(|a| a.parse().expect("SECONDS: a number"));
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let job = Job::new(n)?.with_unique(true);
    let cancel = Cancel::new();
    if let Some(secs) = limit {
        let timer = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs_f64(secs));
            timer.cancel();
        });
    }
    let mut log = LogLines::new(Duration::from_secs(1)).prefixed("count: ");
    match Engine::new(threads)?.count_with(&job, &mut log, &cancel) {
        Ok(report) => println!(
            "N = {n}: {} solutions, {} distinct up to symmetry ({} method, {} kernel, {:.3} s)",
            report.counts.total,
            report.counts.unique,
            report.method,
            report.kernel,
            report.elapsed.as_secs_f64()
        ),
        Err(Error::Cancelled { done, of }) => {
            println!("N = {n}: stopped after {done} of {of} units: no count")
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
