//! Times every unit of a count on one thread, beside its cost estimate: the data behind the
//! ETA's time model (`docs/ETA.md`).
//!
//! `cargo run --release --example unit_times -- N [DEPTH]` prints one tab-separated line per
//! unit: index, class (`plan::cost::class`), whether its edge frame has a corner queen (0 for
//! other methods' units), the estimate (`plan::cost::estimate`) and the seconds it took. Default
//! split depth: the one a one-thread count uses. `examples/eta_replay.rs` replays the output
//! through the ETA estimator.

use nqueens::plan::cost::{class, estimate};
use nqueens::plan::evaluate;
use nqueens::{Job, Method, Plan};
use std::time::Instant;

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: unit_times N [DEPTH]"))
        .collect();
    let n = args[0];
    let job = Job::new(n).unwrap();
    let job = match args.get(1) {
        Some(&d) => job.with_split_depth(d).unwrap(),
        None => job.with_default_split_depth(1),
    };
    let plan = Plan::new(job);
    let est = estimate(&plan);
    println!("index\tclass\tcorner\testimate\tseconds");
    for (u, e) in plan.units().iter().zip(est) {
        let t = Instant::now();
        std::hint::black_box(evaluate(&plan, u));
        let s = t.elapsed().as_secs_f64();
        let m = (n - 1) as u8;
        let [top, bottom, left, right] = u.frame;
        let corner = plan.method() == Method::Edge
            && ((top == 0 && left == 0)
                || (top == m && right == 0)
                || (bottom == 0 && left == m)
                || (bottom == m && right == m));
        println!(
            "{}\t{}\t{}\t{e}\t{s:.6}",
            u.index,
            class(&plan, u),
            u8::from(corner)
        );
    }
}
