//! How a test that passes without running says so: one line on the real standard error (which
//! the test harness does not capture, so every log shows it), `SKIPPED what: why`. The one
//! helper for it, for the integration tests (`tests/common`) and the unit tests (`src/lib.rs`
//! includes this file under `cfg(test)`).

/// Says that `what` (a test, or part of one) did not run, and why.
pub fn skip(what: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {what}: {why}");
}
