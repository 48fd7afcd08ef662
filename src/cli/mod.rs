//! Command-line parsing and dispatch.

/// `eprintln!` that ignores a failed write: a message must never cost what it reports. After a
/// hang-up (SIGHUP) every write to the closed terminal fails with EIO, and a log piped into a
/// program that died fails with EPIPE; `eprintln!` panics on both.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod args;
mod audit;
#[cfg(feature = "bench")]
mod bench;
mod count;
mod devices;
mod error;
mod generate;
mod list;
mod longrun;
mod merge;
mod progress;
mod report;
mod solve;
mod status;
mod uva750;
mod verify;

#[cfg(feature = "bench")]
pub use args::positive;
pub use args::{parse_n, parse_threads, whole};
pub use error::{Exit, Failure, Result, Undelivered, UsageError};

use clap::{Parser, Subcommand};

/// Exact N-Queens counts, fast: a bitmask search split into work units over every core.
///
/// With no subcommand, reads N from standard input and prints the number of solutions
/// (the form of the BOJ 9663 judge problem): `echo 8 | nqueens` prints 92.
// An option given twice takes its last value (`-t 1 -t 2` runs 2 threads), as most tools do;
// list options (`--place`, `--threads 1,2`) still collect every value. The setting is global:
// clap passes it on to every subcommand.
#[derive(Parser, Debug)]
#[command(
    name = "nqueens",
    version,
    about,
    long_about,
    args_override_self = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    Count(count::CountArgs),
    Verify(verify::VerifyArgs),
    Solve(solve::SolveArgs),
    List(list::ListArgs),
    Uva750(uva750::Uva750Args),
    Merge(merge::MergeArgs),
    Audit(audit::AuditArgs),
    Status(status::StatusArgs),
    #[cfg(feature = "bench")]
    Bench(bench::BenchArgs),
    Devices(devices::DevicesArgs),
    Generate(generate::GenerateArgs),
}

/// Parses the command line and runs it.
pub fn run() -> Result<Exit> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand
                && std::env::args()
                    .nth(1)
                    .is_some_and(|a| a.trim().parse::<u64>().is_ok()) =>
        {
            // A number (the test above), so short enough to quote whole.
            let n = std::env::args().nth(1).unwrap_or_default();
            let n = n.trim();
            return Err(UsageError(format!(
                "'{n}' is not a subcommand; to count, run `nqueens count {n}` or `echo {n} | nqueens` \
                 (see nqueens --help)"
            ))
            .into());
        }
        Err(e) if e.use_stderr() => {
            // One line, not clap's usage block: the first line of its message names the problem.
            let mut text = e.to_string();
            let args: Vec<String> = std::env::args().collect();
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand && !text.contains("tip:") {
                if let Some(name) = args.get(1).and_then(|typed| similar_subcommand(typed)) {
                    text.push_str(&format!(
                        "\n\n  tip: a similar subcommand exists: '{name}'\n"
                    ));
                }
            }
            return Err(UsageError(clap_line(&text, &args)).into());
        }
        Err(e) => {
            // --help and --version.
            e.print()?;
            return Ok(Exit::Done);
        }
    };
    match cli.command {
        None => count::from_stdin(),
        Some(Command::Count(args)) => count::run(&args),
        Some(Command::Verify(args)) => verify::run(&args),
        Some(Command::Solve(args)) => solve::run(&args),
        Some(Command::List(args)) => list::run(&args),
        Some(Command::Uva750(args)) => uva750::run(&args),
        Some(Command::Merge(args)) => merge::run(&args),
        Some(Command::Audit(args)) => audit::run(&args),
        Some(Command::Status(args)) => status::run(&args),
        #[cfg(feature = "bench")]
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Devices(args)) => devices::run(&args),
        Some(Command::Generate(args)) => generate::run(&args),
    }
}

/// Clap's error message `text` on one line: its first paragraph (which may list several missing
/// arguments), then its tips ("a similar argument exists: '--threads'"). A negative number where
/// an option expects a value is said to be negative rather than an unknown argument.
fn clap_line(text: &str, args: &[String]) -> String {
    let help = help_hint(args);
    let mut paragraphs = text.split("\n\n");
    let first = paragraphs.next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let mut line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    let negative = args.iter().enumerate().skip(1).find(|(_, a)| {
        a.len() > 1
            && a.starts_with('-')
            && a[1..].parse::<f64>().is_ok()
            && first.starts_with(&format!("unexpected argument '{a}'"))
    });
    if let Some((i, value)) = negative {
        let option = args.get(i - 1).filter(|o| o.starts_with("--"));
        return match option {
            Some(option) => {
                format!("{option} cannot be negative, got {value} ({help})")
            }
            None => format!("unexpected negative number {value} ({help})"),
        };
    }
    for tip in paragraphs
        .flat_map(str::lines)
        .map(str::trim)
        .filter(|l| l.starts_with("tip:"))
    {
        line.push_str("; ");
        line.push_str(tip);
    }
    line.push_str(&format!(" ({help})"));
    line
}

/// The subcommand `typed` most likely meant where clap finds none close enough (`cnt` for
/// `count`): one whose name holds the letters typed in order, or is within two edits of it.
fn similar_subcommand(typed: &str) -> Option<String> {
    use clap::CommandFactory;
    let typed = typed.to_ascii_lowercase();
    let in_order = |name: &str| {
        let mut rest = name.chars();
        typed.chars().all(|c| rest.any(|n| n == c))
    };
    Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .filter(|name| typed.len() >= 2 && (in_order(name) || edits(&typed, name) <= 2))
        .min_by_key(|name| edits(&typed, name))
}

/// The edit (Levenshtein) distance between `a` and `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Where to read more about a usage error: the help of the subcommand the arguments name
/// (`see nqueens count --help`), or the tool's.
fn help_hint(args: &[String]) -> String {
    use clap::CommandFactory;
    let command = Cli::command();
    let sub = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| command.find_subcommand(a.as_str()).is_some());
    match sub {
        Some(sub) => format!("see nqueens {sub} --help"),
        None => "see nqueens --help".into(),
    }
}

/// The error and its causes on one line, each cause once: typed errors often show their source
/// in their own message already, and a repeat says nothing new.
pub fn one_line(err: &Failure) -> String {
    let mut line = String::new();
    let mut cause: Option<&dyn std::error::Error> = Some(err.error());
    while let Some(e) = cause {
        cause = e.source();
        let text = e.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    // Escaped first, so that a newline in a name shows as `\n` rather than as a space; runs
    // of spaces then shrink to one.
    let line = escape(&line)
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    // One line, of a length a terminal can show: a message quoting a huge file is cut.
    const MAX: usize = 2000;
    match line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}… (message cut at {MAX} characters)", &line[..end]),
        None => line,
    }
}

/// `s` with its control characters escaped as Rust writes them (`\u{1b}`, `\0`, `\n`), so that
/// input quoted in a message cannot drive the terminal (`\x1b[2J` clears it) or hide a part
/// of itself (a NUL byte); the marks that reorder text on screen (bidirectional embeddings,
/// overrides and isolates) too.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        // Marks that reorder text, and characters that show as nothing at all (zero-width
        // spaces and joiners, the word joiner, the byte-order mark).
        let hidden = matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        );
        if c.is_control() {
            out.extend(c.escape_debug());
        } else if hidden {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Standard output, whose write errors name it: "cannot write to standard output: No space
/// left on device" rather than the system's reason alone. The kind of error is kept (a closed
/// pipe is still one: [`Failure::is_broken_pipe`]). Each write takes the stream's lock, so the
/// handle may move to the thread that writes (a listing writes from its workers).
pub fn stdout() -> Stdout {
    Stdout(std::io::stdout())
}

/// See [`stdout`].
pub struct Stdout(std::io::Stdout);

impl Stdout {
    fn named(e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(Stdout::named)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(Stdout::named)
    }
}

/// `s` as quoted in an error message: its first 40 characters, so that a long input does not
/// flood the one line, with control characters escaped ([`escape`]).
pub fn shown(s: &str) -> String {
    const MAX: usize = 40;
    match s.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", escape(&s[..end])),
        None => escape(s),
    }
}

/// Reads standard input whole as UTF-8 text. More than `max` bytes, or bytes that are not
/// UTF-8, are a usage error: such input is not `what`.
pub fn read_stdin(max: u64, what: &str) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            std::io::Error::new(e.kind(), format!("could not read standard input: {e}"))
        })?;
    if bytes.len() as u64 > max {
        return Err(UsageError(format!(
            "standard input is larger than {} KiB; this is not {what}",
            max >> 10
        ))
        .into());
    }
    // A byte-order mark (as Windows editors begin a text file) is not part of the text.
    if bytes.starts_with("\u{feff}".as_bytes()) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes)
        .map_err(|_| {
            UsageError(format!(
                "standard input is not UTF-8 text; this is not {what}"
            ))
        })
        .map_err(Into::into)
}

/// The default thread count: every logical core.
pub fn default_threads() -> usize {
    num_cpus::get()
}
