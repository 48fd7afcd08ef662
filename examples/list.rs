//! List solutions: the first few of a board as rows of `.Q..`, then every solution that has a
//! queen on a given square, as column lists, streamed without holding them in memory:
//! `cargo run --release --example list`.

use nqueens_count::format::Kind;
use nqueens_count::solutions::{for_each_solution, write_solutions, WriteOptions};
use nqueens_count::{Job, Queen};
use std::ops::ControlFlow;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The first two solutions of N = 8, drawn.
    let opts = WriteOptions {
        format: Kind::Board,
        limit: Some(2),
        threads: 1,
    };
    write_solutions(&Job::new(8)?, &opts, std::io::stdout())?;

    // Solutions of N = 10 with a queen in row 1, column 1 (1-based), one at a time.
    let corner = Queen::one_based(1, 1).expect("1-based");
    let job = Job::new(10)?.with_placed(&[corner])?;
    let mut found = 0;
    let _ = for_each_solution(&job, |s| {
        found += 1;
        if found <= 3 {
            // The 1-based column of each row's queen, top row first.
            println!("{:?}", s.columns().collect::<Vec<u32>>());
        }
        ControlFlow::Continue(())
    })?;
    println!("{found} solutions of N = 10 have a queen in the corner");
    Ok(())
}
