//! Runs the single-threaded reference solver: `cargo run --release --example serial -- 16`.
fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(12);
    match nqueens_count::bench::serial_count(n) {
        Ok(total) => println!("{total}"),
        Err(e) => {
            eprintln!("serial: {e}");
            std::process::exit(2);
        }
    }
}
