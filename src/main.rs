//! The `nqueens` command: a thin shell over the library. Errors are printed once, on one line;
//! usage errors exit with 2, failures with 1, and a closed pipe (`| head`) counts as success.

#[macro_use]
mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) makes a write fail with EFBIG, which is reported like a
    // full disk (a finished result then goes to standard output), instead of killing the
    // process with SIGXFSZ and losing it.
    #[cfg(unix)]
    // SAFETY: called before any other thread exists; SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    match cli::run() {
        Ok(exit) => exit.into(),
        // A stream of output cut short by its reader (`| head`): done.
        Err(err) if err.is_broken_pipe() => ExitCode::SUCCESS,
        Err(err) => {
            note!("nqueens: error: {}", cli::one_line(&err));
            err.exit()
        }
    }
}
