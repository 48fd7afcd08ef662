//! Replays measured unit times (`examples/unit_times.rs` output) through the ETA estimator on
//! one thread, in index order and in the long run's scrambled order, and prints the error of the
//! predicted time left at every tenth of the run.
//!
//! `cargo run --release --example unit_times -- 18 > t.tsv && cargo run --release --example
//! eta_replay -- t.tsv`

use nqueens::plan::eta::{scrambled, Eta, Planned};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: eta_replay TIMES.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    // index, class, corner, estimate, seconds
    let units: Vec<(u32, u32, f64, f64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    for (name, key) in [
        (
            "index",
            Box::new(|i: u32| u64::from(i)) as Box<dyn Fn(u32) -> u64>,
        ),
        ("scrambled", Box::new(scrambled)),
    ] {
        let mut order = units.clone();
        order.sort_by_key(|u| key(u.0));
        let planned: Vec<Planned> = order
            .iter()
            .map(|u| Planned {
                id: u.0,
                cost: u.2,
                class: u.1,
            })
            .collect();
        let total: f64 = order.iter().map(|u| u.3).sum();
        let mut eta = Eta::new(1, planned);
        let mut t = 0.0;
        let mut next = 0.1;
        print!("{name}:");
        for u in &order {
            eta.finished(u.0, 0, t, u.3);
            t += u.3;
            if t >= next * total && t < total {
                let predicted = eta.remaining(t).unwrap();
                let real = total - t;
                print!(
                    " {:.0}%:{:+.0}%",
                    100.0 * t / total,
                    100.0 * (predicted - real) / real
                );
                next += 0.1;
            }
        }
        println!();
    }
}
