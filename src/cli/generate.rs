//! `nqueens generate`: shell completions and man pages, generated from the clap definitions of
//! the command line so that they cannot drift from it (as ripgrep and hyperfine ship theirs).

use super::{Cli, UsageError};
use super::{Exit, Result};
use clap::{Args, CommandFactory, Subcommand};
use clap_complete::Shell;
use std::io::Write;

/// Print a shell completion script or a man page (roff) to standard output.
///
/// For example `nqueens generate completions bash > /etc/bash_completion.d/nqueens`,
/// `nqueens generate man > nqueens.1` or `nqueens generate man count > nqueens-count.1`.
#[derive(Args, Debug)]
// Without a subcommand: clap's one-line error, not the help text on stderr.
#[command(arg_required_else_help = false)]
pub struct GenerateArgs {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// Print the completion script of SHELL.
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page of nqueens, or of SUBCOMMAND (`man count`: nqueens-count(1)).
    ///
    /// The main page lists each subcommand as its own page (section 1), as clap_mangen names
    /// them: `nqueens generate man count > nqueens-count.1`.
    Man {
        /// The subcommand, or a path of nested ones (`generate completions`).
        subcommand: Vec<String>,
    },
}

pub fn run(args: &GenerateArgs) -> Result<Exit> {
    let mut cmd = Cli::command();
    // Rendered whole first: clap_complete panics when its writer fails (a closed pipe).
    let mut text = Vec::new();
    match &args.what {
        What::Completions { shell } => {
            clap_complete::generate(*shell, &mut cmd, "nqueens", &mut text);
        }
        What::Man { subcommand } => {
            // `help` is clap's subcommand, with no page of its own (as in `clap_mangen::generate_to`);
            // building names each subcommand for its page: `nqueens-count`.
            cmd = cmd.disable_help_subcommand(true);
            cmd.build();
            let mut page = &cmd;
            for name in subcommand {
                page = page.find_subcommand(name).ok_or_else(|| {
                    let known: Vec<&str> = page.get_subcommands().map(|s| s.get_name()).collect();
                    let of = page.get_display_name().unwrap_or("nqueens");
                    let name = super::shown(name);
                    UsageError(if known.is_empty() {
                        format!(
                            "'{name}': {of} has no subcommands (see nqueens generate man --help)"
                        )
                    } else {
                        format!(
                            "'{name}' is not a subcommand of {of}; one of: {} \
                             (see nqueens generate man --help)",
                            known.join(", ")
                        )
                    })
                })?;
            }
            // A subcommand has no version of its own: name the program's on every page.
            let mut roff = Vec::new();
            clap_mangen::Man::new(page.clone())
                .source(format!("nqueens {}", env!("CARGO_PKG_VERSION")))
                .render(&mut roff)?;
            let roff = String::from_utf8_lossy(&roff);
            text.extend_from_slice(synopsis_values(&roff, page).as_bytes());
        }
    }
    let mut out = super::stdout();
    out.write_all(&text)?;
    out.flush()?;
    Ok(Exit::Done)
}

/// The man page `roff` with the value of each option in its SYNOPSIS (`[-t|--threads THREADS]`),
/// which clap_mangen leaves out there (its OPTIONS section has them).
fn synopsis_values(roff: &str, page: &clap::Command) -> String {
    let Some(start) = roff.find(".SH SYNOPSIS\n") else {
        return roff.to_string();
    };
    let end = roff[start + 1..]
        .find("\n.SH ")
        .map_or(roff.len(), |e| start + 1 + e);
    let mut synopsis = roff[start..end].to_string();
    for arg in page.get_arguments() {
        let (Some(long), true) = (arg.get_long(), arg.get_action().takes_values()) else {
            continue;
        };
        let value = arg
            .get_value_names()
            .and_then(|v| v.first())
            .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string);
        let named = format!("\\fB\\-\\-{}\\fR]", long.replace('-', "\\-"));
        let with_value = format!(
            "\\fB\\-\\-{}\\fR \\fI{}\\fR]",
            long.replace('-', "\\-"),
            value.replace('-', "\\-")
        );
        synopsis = synopsis.replacen(&named, &with_value, 1);
    }
    format!("{}{synopsis}{}", &roff[..start], &roff[end..])
}
