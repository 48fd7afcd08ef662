//! The `nqueens` command: a thin shell over the library. Errors are printed once, on one line;
//! usage errors exit with 2, failures with 1, and a closed pipe (`| head`) counts as success.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if cli::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("nqueens: error: {}", cli::one_line(&err));
            ExitCode::from(cli::exit_code(&err))
        }
    }
}
