//! The `nqueens` command: a thin shell over the library. Errors are printed once, on one line;
//! usage errors exit with 2, failures with 1. A closed pipe (`| head`) ends output that may be
//! cut short (a listing, a solution, help) as a success, but a count that reached nowhere is a
//! failure, the count quoted on stderr (README's exit codes).

#[macro_use]
mod cli;

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;

/// The system's allocator, except that memory the system refuses (a limit such as `ulimit -v`)
/// ends the process with one line and exit code 1 rather than an abort (SIGABRT, exit code
/// 134). Files are written atomically, so an end at any instant leaves them whole: a
/// checkpointed run resumes from its last save. The library's own probes of memory go around
/// it (`nqueens_count::longrun::durable::memory_available`), so that they still end in an error
/// message of their own.
struct Allocator;

// SAFETY: every call is passed to the system allocator unchanged; only a null result (a
// refusal) is turned into the end of the process.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_ends(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_ends(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_ends(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Under a limit of address space (`ulimit -v`), every thread allocates from the one main
/// arena of the GNU C library: a new thread's own arena reserves 64 MB of address space
/// (`HEAP_MAX_SIZE`), which such a limit refuses, and the library then aborts in its own
/// allocations ("failed to register TLS destructor") where no error can be reported. Without a
/// limit nothing changes.
fn one_arena_under_a_memory_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct of ours it is given; mallopt sets an
        // option of the allocator before any thread but this one exists.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0
                && limit.rlim_cur != libc::RLIM_INFINITY
            {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
        }
    }
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// `ptr`, or, when it is null (the system refused `size` bytes), the end of the process: one
/// line on stderr, written without allocating, and exit code 1.
fn refused_ends(ptr: *mut u8, size: usize) -> *mut u8 {
    if !ptr.is_null() {
        return ptr;
    }
    let mut digits = itoa::Buffer::new();
    let parts: [&[u8]; 3] = [
        b"nqueens: error: out of memory: the system refused ",
        digits.format(size).as_bytes(),
        b" bytes (a memory limit such as ulimit -v?); the files written are whole, and a \
checkpointed run resumes from its last save\n",
    ];
    for part in parts {
        // SAFETY: writes a buffer of ours to standard error; a failure is ignored.
        let _ = unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: ends the process at once, running nothing that could allocate.
    unsafe { libc::_exit(1) }
}

fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) makes a write fail with EFBIG, which is reported like a
    // full disk (a finished result then goes to standard output), instead of killing the
    // process with SIGXFSZ and losing it.
    #[cfg(unix)]
    // SAFETY: called before any other thread exists; SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    one_arena_under_a_memory_limit();
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
