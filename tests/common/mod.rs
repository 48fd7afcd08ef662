//! An independent reference: the textbook array backtracking solver, with no bit tricks and no
//! symmetry, written only for the tests.
#![allow(dead_code)]

/// Calls `f` with every solution (column of the queen in each row, 0-based), in lexicographic
/// order, placing one queen per row and checking each earlier queen by hand.
pub fn naive_solutions(n: usize, mut f: impl FnMut(&[usize])) {
    fn safe(cols: &[usize], col: usize) -> bool {
        let row = cols.len();
        cols.iter()
            .enumerate()
            .all(|(r, &c)| c != col && row - r != c.abs_diff(col))
    }
    fn go(n: usize, cols: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
        if cols.len() == n {
            f(cols);
            return;
        }
        for col in 0..n {
            if safe(cols, col) {
                cols.push(col);
                go(n, cols, f);
                cols.pop();
            }
        }
    }
    go(n, &mut Vec::new(), &mut f);
}

/// The number of solutions, by the naive solver.
pub fn naive_count(n: usize) -> u128 {
    let mut k = 0;
    naive_solutions(n, |_| k += 1);
    k
}

/// A map of the board's squares, (row, col) to (row, col).
type SquareMap<'a> = dyn Fn((usize, usize)) -> (usize, usize) + 'a;

/// The number of classes under the 8 symmetries, by building every image explicitly.
pub fn naive_unique(n: usize) -> u128 {
    let mut all = Vec::new();
    naive_solutions(n, |s| all.push(s.to_vec()));
    let mut classes = std::collections::BTreeSet::new();
    for s in &all {
        // Board as a set of (row, col); apply rotations and reflections as coordinate maps.
        let pts: Vec<(usize, usize)> = s.iter().enumerate().map(|(r, &c)| (r, c)).collect();
        let m = n - 1;
        let maps: [&SquareMap<'_>; 8] = [
            &|(r, c)| (r, c),
            &|(r, c)| (c, m - r),
            &|(r, c)| (m - r, m - c),
            &|(r, c)| (m - c, r),
            &|(r, c)| (r, m - c),
            &|(r, c)| (m - r, c),
            &|(r, c)| (c, r),
            &|(r, c)| (m - c, m - r),
        ];
        let images = maps.iter().map(|g| {
            let mut v = vec![0; n];
            for &p in &pts {
                let (r, c) = g(p);
                v[r] = c;
            }
            v
        });
        classes.insert(images.min().unwrap());
    }
    classes.len() as u128
}
