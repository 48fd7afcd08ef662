//! The judge problem UVa 750, *8 Queens Chess Problem*: read datasets of one queen each, print
//! every 8-queens solution that contains it, in exactly the judge's format.
//!
//! The judge's view of a solution is per column: for columns 1..8, the row of the queen in that
//! column, and solutions come in lexicographic order of that sequence. That sequence is itself a
//! solution in this crate's row-to-column convention (the board transposed), so the judge's
//! solutions with a queen at row R, column C are this crate's solutions with a queen at row C,
//! column R, listed in their usual lexicographic order and printed as they are.

use super::{for_each_solution, Solution};
use crate::plan::{Job, Queen};
use std::io::{self, Write};
use std::ops::ControlFlow;

/// The board size of the problem.
pub(crate) const N: u32 = 8;

/// One dataset: the queen that every listed solution must contain (1-based, as in the input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dataset {
    /// Row of the queen, 1..=8.
    pub row: u8,
    /// Column of the queen, 1..=8.
    pub col: u8,
}

/// Input that does not follow the judge's format, with the 1-based line where it went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("input line {line}: {what}")]
pub struct InputError {
    /// The line, 1-based.
    pub line: usize,
    /// What is wrong there.
    pub what: String,
}

impl crate::Classify for InputError {
    fn class(&self) -> crate::Class {
        crate::Class::Request
    }
}

/// Parses the judge input: the number of datasets, then one line per dataset with the row and
/// column of a queen. Blank lines may appear anywhere; anything else is an error.
pub fn parse(input: &str) -> Result<Vec<Dataset>, InputError> {
    let mut lines = input
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let end_line = input.lines().count() + 1;
    let err = |line, what: String| InputError { line, what };

    let (line, text) = lines.next().ok_or_else(|| {
        err(
            end_line,
            "expected the number of datasets, got the end of the input".into(),
        )
    })?;
    let count: u64 = text.parse().map_err(|_| {
        err(
            line,
            format!("expected the number of datasets (a whole number), got '{text}'"),
        )
    })?;

    let mut datasets = Vec::new();
    for k in 0..count {
        let (line, text) = lines.next().ok_or_else(|| {
            err(
                end_line,
                format!("the input ends after {k} of the {count} datasets announced"),
            )
        })?;
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [r, c] = fields[..] else {
            return Err(err(
                line,
                format!(
                    "expected the row and column of a queen (two numbers 1 to 8), got '{text}'"
                ),
            ));
        };
        let coord = |name: &str, s: &str| -> Result<u8, InputError> {
            match s.parse::<u8>() {
                Ok(v) if (1..=N as u8).contains(&v) => Ok(v),
                _ => Err(err(
                    line,
                    format!("the {name} must be a number from 1 to 8, got '{s}'"),
                )),
            }
        };
        datasets.push(Dataset {
            row: coord("row", r)?,
            col: coord("column", c)?,
        });
    }
    if let Some((line, text)) = lines.next() {
        return Err(err(
            line,
            format!("unexpected input after the {count} datasets announced: '{text}'"),
        ));
    }
    Ok(datasets)
}

/// Calls `f` with every solution containing the dataset's queen in the judge's view, in the
/// judge's order: the judge lists the row of the queen in each column, so [`Solution::column`]
/// of column `c` reads the 1-based row of the queen in column `c` here.
pub fn for_each_judge_solution(d: Dataset, mut f: impl FnMut(Solution<'_>)) {
    let queen = Queen::from_zero_based(u32::from(d.col) - 1, u32::from(d.row) - 1);
    let job = Job::new(N)
        .and_then(|j| j.with_placed(&[queen]))
        .expect("a single queen on the 8x8 board is a valid job");
    let _ = for_each_solution(&job, |s| {
        f(s);
        ControlFlow::Continue(())
    })
    .expect("no unique listing is asked for");
}

/// Writes the judge output for `datasets`: for each, the two header lines, an empty line and the
/// numbered solutions; one empty line between datasets.
pub fn write<W: Write>(out: &mut W, datasets: &[Dataset]) -> io::Result<()> {
    for (i, &d) in datasets.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(b"SOLN       COLUMN\n #      1 2 3 4 5 6 7 8\n\n")?;
        let mut number = 0u32;
        let mut result = Ok(());
        for_each_judge_solution(d, |rows| {
            if result.is_err() {
                return;
            }
            number += 1;
            // The rows of columns 1..8, 1-based, separated by single spaces.
            let mut rows_text = [b' '; 2 * N as usize];
            for (k, r) in rows.columns().enumerate() {
                rows_text[2 * k] = b'0' + r as u8;
            }
            rows_text[2 * N as usize - 1] = b'\n';
            result = write!(out, "{number:>2}      ").and_then(|()| out.write_all(&rows_text));
        });
        result?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample() {
        let d = parse("1\n\n1 1\n").unwrap();
        assert_eq!(d, vec![Dataset { row: 1, col: 1 }]);
        let mut out = Vec::new();
        write(&mut out, &d).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "SOLN       COLUMN\n #      1 2 3 4 5 6 7 8\n\n \
             1      1 5 8 6 3 7 2 4\n \
             2      1 6 8 3 7 4 2 5\n \
             3      1 7 4 6 8 2 5 3\n \
             4      1 7 5 8 2 4 6 3\n"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = |s: &str| parse(s).unwrap_err();
        assert_eq!(e("").line, 1);
        assert_eq!(e("x\n").line, 1);
        assert_eq!(e("2\n1 1\n\n").line, 4);
        assert_eq!(e("1\n\n1 9\n").line, 3);
        assert_eq!(e("1\n1\n").line, 2);
        assert_eq!(e("1\n1 2 3\n").line, 2);
        assert_eq!(e("1\n0 2\n").line, 2);
        assert_eq!(e("1\n1 1\n2 2\n").line, 3);
        assert!(e("1\n1 9\n")
            .to_string()
            .contains("column must be a number from 1 to 8"));
        assert_eq!(parse("0\n").unwrap(), vec![]);
        assert_eq!(
            parse("\r\n 2 \r\n1 1\r\n\r\n 8  3\r\n\r\n").unwrap().len(),
            2
        );
    }
}
