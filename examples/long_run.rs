//! A count that can be stopped and resumed: a checkpoint is saved as units finish and when the
//! run is stopped; running it again continues where it stopped. Here the run is stopped after
//! a second, as Ctrl-C would stop the command-line tool, then resumed:
//! `cargo run --release --example long_run -- 18 /tmp/n18.ckpt`.

use nqueens::longrun::{Finish, Progress, Run, Watch};
use nqueens::{Engine, Job};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Prints the progress once a second.
struct Log(Duration);

impl Watch for Log {
    fn progress(&mut self, p: &Progress) {
        if p.elapsed >= self.0 {
            self.0 += Duration::from_secs(1);
            let eta = p
                .remaining
                .map_or("?".into(), |d| format!("{:.1} s", d.as_secs_f64()));
            println!(
                "{:5.1}% of the work, {}/{} units, ETA {eta}",
                100.0 * p.fraction,
                p.units_done,
                p.units_total
            );
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map_or(Ok(16), |a| a.parse())?;
    let ckpt = args.next().unwrap_or_else(|| format!("n{n}.ckpt"));
    let engine = Engine::with_all_cores()?;
    let job = Job::new(n)?.with_unique(true);
    loop {
        let stop = Arc::new(AtomicBool::new(false));
        let timer = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            timer.store(true, Ordering::Relaxed);
        });
        let run = Run::new(job.clone())
            .checkpoint(&ckpt, Duration::from_secs(10))
            .cancel_on(stop);
        let prepared = run.prepare(&engine)?;
        println!(
            "{} of {} units already done",
            prepared.resumed(),
            prepared.units()
        );
        match prepared.execute(&engine, &mut Log(Duration::ZERO))? {
            Finish::Stopped { done, units, .. } => {
                println!("stopped: {done} of {units} units saved in {ckpt}; resuming");
            }
            Finish::Done(done) => {
                let c = done.report.counts;
                println!("N = {n}: {} solutions, {} distinct", c.total, c.unique);
                std::fs::remove_file(&ckpt)?;
                return Ok(());
            }
        }
    }
}
