//! A count that can be stopped and resumed: a checkpoint is saved as units finish and when the
//! run is stopped; running it again continues where it stopped. Here the run is stopped after
//! a second, as Ctrl-C would stop the command-line tool, then resumed:
//! `cargo run --release --example long_run -- 18 /tmp/n18.ckpt`.

use nqueens_count::longrun::{Finish, LogLines, Run};
use nqueens_count::{Cancel, Engine, Job};
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map_or(Ok(16), |a| a.parse())?;
    let ckpt = args.next().unwrap_or_else(|| format!("n{n}.ckpt"));
    let engine = Engine::with_all_cores()?;
    let job = Job::new(n)?.with_unique(true);
    loop {
        let stop = Cancel::new();
        let timer = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            timer.cancel();
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
        // A line of progress on stderr every half second, the library's own.
        let mut log = LogLines::new(Duration::from_millis(500));
        let finish = prepared.execute(&engine, &mut log)?;
        log.finish();
        match finish {
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
