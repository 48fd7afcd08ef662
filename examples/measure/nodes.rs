//! Search nodes per method (split depth 2), the table of `docs/ALGORITHM.md`:
//! `cargo run --release --example nodes -- 12 17` (N from, to). A node is a queen placed
//! below a unit's prefix (`plan::evaluate_nodes`); the edge method does not count the queens of
//! its frames, which it places without a search.

use nqueens_count::{Job, Method, Plan};

fn main() {
    let a: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (from, to) = match a[..] {
        [n] => (n, n),
        [from, to] => (from, to),
        _ => (12, 15),
    };
    println!("| N | plain | mirror | d4 | edge | edge / plain | edge / d4 | edge units |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for n in from..=to {
        let plan = |m: Method| {
            let job = Job::new(n).unwrap().with_method(m);
            Plan::new(job.with_split_depth(2.min(n)).unwrap())
        };
        let sum = |m: Method| {
            let p = plan(m);
            p.units().iter().map(|u| p.nodes(u)).sum::<u64>()
        };
        let (plain, mirror, d4, edge) = (
            sum(Method::Plain),
            sum(Method::Mirror),
            sum(Method::D4),
            sum(Method::Edge),
        );
        println!(
            "| {n} | {plain} | {mirror} | {d4} | {edge} | {:.3} | {:.3} | {} |",
            edge as f64 / plain as f64,
            edge as f64 / d4 as f64,
            plan(Method::Edge).units().len()
        );
    }
}
