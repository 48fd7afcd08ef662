#!/usr/bin/env bash
# Mutation testing of the code that guards a count (issue 33): cargo-mutants plants one fault at
# a time in the guard modules (the identity comparison, the envelope, the unit records, the
# result and checkpoint files, the --out rule, the save path and the end of a run, merge, audit,
# the published-value check) and runs the fast tests that cover them: the library's unit tests
# of long runs and of the published table; then the binary's exit-code mapping against its own
# tests. A mutant the tests do not catch is a guard that could break unnoticed.
#
#   scripts/mutants.sh [OUT]      # OUT: results/DATE-mutants by default
#
# About 25 minutes on a 2-core machine (two mutants at a time, each an incremental debug build and
# a second of tests). Needs cargo-mutants (cargo install cargo-mutants --locked). Writes
# cargo-mutants' own output under OUT/lib and OUT/cli, and OUT/SUMMARY.md: the count of each
# outcome and every mutant missed or timed out, for the notes to explain or the tests to catch.
# Exit code 0 when no mutant was missed, 1 otherwise, 2 when cargo-mutants is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo-mutants >/dev/null; then
    echo "scripts/mutants.sh: cargo-mutants is not installed: cargo install cargo-mutants --locked" >&2
    exit 2
fi
out=${1:-results/$(date +%F)-mutants}
mkdir -p "$out"

guards=(
    src/longrun/identity.rs src/longrun/envelope.rs src/longrun/records.rs
    src/longrun/result.rs src/longrun/checkpoint.rs src/longrun/files.rs
    src/longrun/save.rs src/longrun/execute.rs src/longrun/merge.rs src/longrun/audit.rs
    src/known.rs
)
files=()
for f in "${guards[@]}"; do files+=(-f "$f"); done
# Not guards: the words of messages (Display impls and the functions that only build text),
# which the command-line tests check as output, not as guards of a count.
words='<impl (std::)?(fmt::)?Display for|disagreement_line|too_many_shards|saved_note|counts_words|found_words|published_words|shard_words|fn shown'

# `--cargo-arg` limits the build of each mutant, not only its tests, to the target tested (else
# every example, benchmark and integration test is rebuilt for every mutant). The tests skipped
# are not of guards (estimates, progress), or take 5 of the 6 seconds of the others in a debug
# build while checking the replanning `a_file_is_replanned_to_its_very_identity_or_refused`
# checks (a job of N = 32 planned twice). A mutant then takes about 3 seconds to build and test:
# results/2026-12-03-mutants/NOTE.md.
status=0
cargo mutants --jobs 2 --no-shuffle "${files[@]}" --exclude-re "$words" \
    --cargo-arg=--lib --output "$out/lib" -- -- longrun:: known:: \
    --skip longrun::estimate --skip longrun::progress \
    --skip longrun::identity::tests::a_whole_board_of_placed_queens_is_replanned || status=$?
cargo mutants --no-shuffle -f src/cli/error.rs --exclude-re "$words" \
    --cargo-arg=--bin=nqueens --output "$out/cli" -- -- cli::error || status=$?

{
    echo "# Mutation testing of the guards ($(date +%F), $(git rev-parse --short HEAD))"
    echo
    echo "| run | caught | missed | unviable | timeout |"
    echo "|---|---:|---:|---:|---:|"
    for run in lib cli; do
        d="$out/$run/mutants.out"
        count() { [ -f "$d/$1.txt" ] && wc -l < "$d/$1.txt" | tr -d ' ' || echo 0; }
        echo "| $run | $(count caught) | $(count missed) | $(count unviable) | $(count timeout) |"
    done
    for run in lib cli; do
        for what in missed timeout; do
            f="$out/$run/mutants.out/$what.txt"
            if [ -s "$f" ]; then
                echo
                echo "## $run: $what"
                echo
                sed 's/^/- /' "$f"
            fi
        done
    done
} > "$out/SUMMARY.md"
cat "$out/SUMMARY.md"
# cargo-mutants: 0 every mutant caught, 2 some missed, 3 timeouts only.
case $status in
    0 | 3) exit 0 ;;
    *) exit 1 ;;
esac
