//! `nqueens generate`: completion scripts and man pages, generated from the command's clap
//! definitions, that the shells and `man` accept and that name what the command has.

use crate::common;
use crate::common::nq;

use std::process::Stdio;

/// The standard output of a successful `nqueens ARGS`, with nothing on stderr.
fn generate(args: &[&str]) -> String {
    let out = nq().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// Every shell's script: its own form (the marker its shell loads it by), the subcommands, and
/// options down to a subcommand's (`checkpoint` of `count`; fish writes `-l checkpoint`).
#[test]
fn each_shell_gets_its_own_script_naming_subcommands_and_options() {
    let shells = [
        ("bash", "complete -F _nqueens"),
        ("zsh", "#compdef nqueens"),
        ("fish", "complete -c nqueens"),
        ("elvish", "edit:completion:arg-completer[nqueens]"),
        (
            "powershell",
            "Register-ArgumentCompleter -Native -CommandName 'nqueens'",
        ),
    ];
    for (shell, marker) in shells {
        let script = generate(&["generate", "completions", shell]);
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for (_, other) in shells.iter().filter(|(s, _)| *s != shell) {
            assert!(
                !script.contains(other),
                "{shell}: a script for another shell"
            );
        }
        for word in [
            "count",
            "verify",
            "list",
            "bench",
            "generate",
            "completions",
            "checkpoint",
            "threads",
        ] {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
    }
}

/// The bash script parses (`bash -n`) and completes for real: subcommand names, `count`'s
/// options, and the shells of `generate completions`.
#[test]
fn bash_completes_subcommands_options_and_shells() {
    let script = generate(&["generate", "completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nqueens.bash");
    std::fs::write(&file, &script).unwrap();
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .status()
        .expect("bash runs");
    assert!(status.success(), "bash -n refuses the script");

    // The function bash calls on TAB, with the words typed so far and the one under the cursor.
    let complete = |words: &[&str]| -> Vec<String> {
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let cword = words.len() - 1;
        let prev = if cword > 0 { words[cword - 1] } else { "" };
        let program = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; \
             _nqueens nqueens '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display(),
            quoted.join(" "),
            words[cword],
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &program])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{words:?}");
        let mut got: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        got.sort();
        got
    };
    assert_eq!(complete(&["nqueens", "gen"]), ["generate"]);
    assert_eq!(complete(&["nqueens", "ve"]), ["verify"]);
    assert_eq!(
        complete(&["nqueens", "count", "8", "--check"]),
        ["--checkpoint", "--checkpoint-every"]
    );
    assert_eq!(
        complete(&["nqueens", "generate", "completions", ""]),
        [
            "--help",
            "-h",
            "bash",
            "elvish",
            "fish",
            "powershell",
            "zsh"
        ]
    );
}

/// zsh and fish check their scripts' syntax where they are installed (optional).
#[test]
fn zsh_and_fish_parse_their_scripts_where_installed() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        if std::process::Command::new(shell)
            .args(["-c", "exit 0"])
            .output()
            .is_err()
        {
            common::skip(
                "zsh_and_fish_parse_their_scripts_where_installed",
                &format!("no {shell} on this machine"),
            );
            continue;
        }
        let file = dir.path().join(format!("nqueens.{shell}"));
        std::fs::write(&file, generate(&["generate", "completions", shell])).unwrap();
        let out = std::process::Command::new(shell)
            .arg(check)
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{shell} refuses its script: {err}");
        assert!(err.is_empty(), "{shell}: {err}");
    }
}

/// The main page is roff, section 1, lists every subcommand as its own page and the options;
/// a subcommand's page (one level or two down) has its own title and options.
#[test]
fn man_pages_are_roff_for_the_command_and_each_subcommand() {
    let main = generate(&["generate", "man"]);
    assert!(
        main.lines().any(|l| l.starts_with(".TH nqueens 1 ")),
        "{main}"
    );
    assert!(main.contains(".SH SUBCOMMANDS"));
    assert!(main.contains(".SH DESCRIPTION"));
    assert!(main.contains(&format!("nqueens {}", env!("CARGO_PKG_VERSION"))));
    for sub in [
        "count", "verify", "solve", "list", "uva750", "merge", "bench", "devices", "generate",
    ] {
        assert!(
            main.contains(&format!("\nnqueens\\-{sub}(1)\n")),
            "the main page lacks {sub}"
        );
    }
    // clap's own help subcommand has no page (as clap_mangen::generate_to does it).
    assert!(!main.contains("nqueens\\-help(1)"));

    let count = generate(&["generate", "man", "count"]);
    assert!(count.lines().any(|l| l.starts_with(".TH nqueens-count 1 ")));
    assert!(count.contains("\\fBnqueens count\\fR"), "{count}");
    assert!(count.contains("\\fB\\-\\-checkpoint\\fR"), "{count}");
    assert!(count.contains(&format!("nqueens {}", env!("CARGO_PKG_VERSION"))));
    assert!(!count.contains(".SH SUBCOMMANDS"));

    let nested = generate(&["generate", "man", "generate", "completions"]);
    assert!(nested
        .lines()
        .any(|l| l.starts_with(".TH nqueens-generate-completions 1 ")));
    assert!(nested.contains("powershell"));
}

/// `man -l` formats the pages without complaint, where `man` is installed (optional).
#[test]
fn man_renders_the_pages_where_installed() {
    if std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip(
            "man_renders_the_pages_where_installed",
            "no man on this machine",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (page, args, wanted) in [
        ("nqueens.1", &["generate", "man"][..], "nqueens-count(1)"),
        (
            "nqueens-count.1",
            &["generate", "man", "count"][..],
            "--checkpoint",
        ),
    ] {
        let file = dir.path().join(page);
        std::fs::write(&file, generate(args)).unwrap();
        let out = std::process::Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "man -l {page}: {err}");
        assert!(err.trim().is_empty(), "man -l {page} warns: {err}");
        // man may hyphenate or embolden with backspaces when not writing to a terminal.
        let plain: String = text.replace("\u{2010}", "-").replace("\u{2212}", "-");
        let plain = strip_overstrike(&plain);
        assert!(
            plain.contains(wanted),
            "man -l {page}: no {wanted:?} in {plain}"
        );
    }
}

/// Text without the `c\bc` bold and `_\bc` underline of nroff output.
fn strip_overstrike(text: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{8}' {
            out.pop();
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// A shell, page or argument that does not exist is one line on stderr and exit code 2.
#[test]
fn bad_input_is_one_line_and_exit_2() {
    for (args, needle) in [
        (
            &["generate", "completions", "tcsh"][..],
            "invalid value 'tcsh'",
        ),
        (&["generate", "completions"][..], "<SHELL>"),
        (&["generate"][..], "requires a subcommand"),
        (
            &["generate", "manual"][..],
            "unrecognized subcommand 'manual'",
        ),
        (
            &["generate", "man", "cout"][..],
            "'cout' is not a subcommand of nqueens; one of: count,",
        ),
        (
            &["generate", "man", "count", "extra"][..],
            "'extra': nqueens-count has no subcommands",
        ),
    ] {
        let out = nq().args(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let err = String::from_utf8(
        nq().args(["generate", "completions", "tcsh"])
            .output()
            .unwrap()
            .stderr,
    )
    .unwrap();
    assert!(err.contains("bash, elvish, fish, powershell, zsh"), "{err}");
}

/// A closed pipe (`| head -1`) ends the output quietly, with success, as for every subcommand.
#[test]
fn a_closed_pipe_is_not_an_error() {
    for args in [
        &["generate", "completions", "powershell"][..],
        &["generate", "man"][..],
    ] {
        let bin = assert_cmd::cargo::cargo_bin("nqueens");
        let mut child = std::process::Command::new(bin)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before anything is read.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
