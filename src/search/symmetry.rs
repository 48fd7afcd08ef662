//! The 8 symmetries of the square (the dihedral group D4) acting on solutions.
//!
//! A solution is its column sequence: `s[r]` is the column of the queen in row `r` (0-based).
//! Every symmetry maps a solution to a solution. The class of a solution is its orbit; the
//! class's canonical member is its lexicographically smallest column sequence.

use crate::search::dfs::MAX_N;

/// One of the 8 symmetries of the square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// Leaves the board as it is.
    Identity,
    /// Rotation by 90° clockwise.
    Rot90,
    /// Rotation by 180°.
    Rot180,
    /// Rotation by 270° clockwise.
    Rot270,
    /// Reflection in the vertical middle line (columns reversed).
    FlipColumns,
    /// Reflection in the horizontal middle line (rows reversed).
    FlipRows,
    /// Reflection in the main diagonal (rows and columns exchanged).
    Transpose,
    /// Reflection in the anti-diagonal.
    AntiTranspose,
}

impl Symmetry {
    /// All eight, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rot90,
        Symmetry::Rot180,
        Symmetry::Rot270,
        Symmetry::FlipColumns,
        Symmetry::FlipRows,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// Where the square (row, col) of an `n`×`n` board goes.
    #[inline]
    pub fn map_square(self, n: usize, row: usize, col: usize) -> (usize, usize) {
        let m = n - 1;
        match self {
            Symmetry::Identity => (row, col),
            Symmetry::Rot90 => (col, m - row),
            Symmetry::Rot180 => (m - row, m - col),
            Symmetry::Rot270 => (m - col, row),
            Symmetry::FlipColumns => (row, m - col),
            Symmetry::FlipRows => (m - row, col),
            Symmetry::Transpose => (col, row),
            Symmetry::AntiTranspose => (m - col, m - row),
        }
    }

    /// Writes the image of the solution `s` into `out[..s.len()]`.
    #[inline]
    pub fn apply(self, s: &[u8], out: &mut [u8]) {
        let n = s.len();
        for (row, &col) in s.iter().enumerate() {
            let (r, c) = self.map_square(n, row, col as usize);
            out[r] = c as u8;
        }
    }
}

/// Compares the image of `s` under `sym` with `s`, lexicographically, without building it.
fn cmp_image(sym: Symmetry, s: &[u8], inv: &[u8]) -> core::cmp::Ordering {
    let n = s.len();
    let m = n - 1;
    for r in 0..n {
        let image = match sym {
            Symmetry::Identity => s[r],
            Symmetry::FlipColumns => (m - s[r] as usize) as u8,
            Symmetry::FlipRows => s[m - r],
            Symmetry::Rot180 => (m - s[m - r] as usize) as u8,
            // Image row r holds the queen that came from column r (transpose) ...
            Symmetry::Transpose => inv[r],
            Symmetry::Rot90 => (m - inv[r] as usize) as u8,
            Symmetry::Rot270 => inv[m - r],
            Symmetry::AntiTranspose => (m - inv[m - r] as usize) as u8,
        };
        match image.cmp(&s[r]) {
            core::cmp::Ordering::Equal => continue,
            other => return other,
        }
    }
    core::cmp::Ordering::Equal
}

/// What the symmetry group says about one solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orbit {
    /// Whether the solution is the lexicographically smallest member of its class.
    pub canonical: bool,
    /// The number of distinct solutions in its class: 1, 2, 4 or 8.
    pub size: u8,
}

/// Classifies the solution `s` (a permutation of `0..s.len()`): is it canonical, and how large
/// is its class. No allocation.
pub fn orbit(s: &[u8]) -> Orbit {
    let n = s.len();
    debug_assert!(n <= MAX_N as usize);
    let mut inv = [0u8; MAX_N as usize];
    for (r, &c) in s.iter().enumerate() {
        inv[c as usize] = r as u8;
    }
    let inv = &inv[..n];
    let mut canonical = true;
    let mut fixed = 0u8;
    for sym in Symmetry::ALL {
        match cmp_image(sym, s, inv) {
            core::cmp::Ordering::Less => canonical = false,
            core::cmp::Ordering::Equal => fixed += 1,
            core::cmp::Ordering::Greater => {}
        }
    }
    // Orbit–stabiliser: the class has 8 / |stabiliser| members.
    Orbit {
        canonical,
        size: 8 / fixed,
    }
}

/// Whether `s` is the lexicographically smallest member of its class.
pub fn is_canonical(s: &[u8]) -> bool {
    orbit(s).canonical
}

/// The canonical (lexicographically smallest) member of the class of `s`, written into `out`.
pub fn canonical(s: &[u8], out: &mut [u8]) {
    let n = s.len();
    out[..n].copy_from_slice(s);
    let mut img = [0u8; MAX_N as usize];
    for sym in &Symmetry::ALL[1..] {
        sym.apply(s, &mut img[..n]);
        if img[..n] < out[..n] {
            out[..n].copy_from_slice(&img[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(sym: Symmetry, s: &[u8]) -> Vec<u8> {
        let mut out = vec![0; s.len()];
        sym.apply(s, &mut out);
        out
    }

    #[test]
    fn images_agree_with_the_fast_comparison() {
        let s = [1u8, 3, 0, 2]; // the 4-queens solution ".Q..", "...Q", "Q...", "..Q."
        let mut inv = [0u8; 4];
        for (r, &c) in s.iter().enumerate() {
            inv[c as usize] = r as u8;
        }
        for sym in Symmetry::ALL {
            let img = image(sym, &s);
            assert_eq!(
                cmp_image(sym, &s, &inv),
                img.as_slice().cmp(&s[..]),
                "{sym:?}"
            );
        }
    }

    #[test]
    fn group_laws() {
        let s = [0u8, 4, 7, 5, 2, 6, 1, 3];
        // Rot90 four times is the identity; Rot90 twice is Rot180.
        let mut t = s.to_vec();
        for _ in 0..4 {
            t = image(Symmetry::Rot90, &t);
        }
        assert_eq!(t, s);
        assert_eq!(
            image(Symmetry::Rot90, &image(Symmetry::Rot90, &s)),
            image(Symmetry::Rot180, &s)
        );
        assert_eq!(image(Symmetry::Rot270, &image(Symmetry::Rot90, &s)), s);
        // All 8 images of an asymmetric solution are distinct solutions.
        let mut all: Vec<Vec<u8>> = Symmetry::ALL.iter().map(|&g| image(g, &s)).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 8);
    }

    #[test]
    fn orbit_sizes() {
        // The unique 6-queens class is symmetric under 180° rotation: 4 members.
        assert_eq!(
            orbit(&[1, 3, 5, 0, 2, 4]),
            Orbit {
                canonical: true,
                size: 4
            }
        );
        assert!(!orbit(&[4, 2, 0, 5, 3, 1]).canonical);
        // The 4-queens class has 2 members, both invariant under 90° rotation.
        assert_eq!(
            orbit(&[1, 3, 0, 2]),
            Orbit {
                canonical: true,
                size: 2
            }
        );
        assert_eq!(
            orbit(&[2, 0, 3, 1]),
            Orbit {
                canonical: false,
                size: 2
            }
        );
        assert_eq!(
            orbit(&[0]),
            Orbit {
                canonical: true,
                size: 1
            }
        );
    }

    #[test]
    fn canonical_is_the_minimum() {
        let s = [4u8, 2, 0, 5, 3, 1];
        let mut out = [0u8; 6];
        canonical(&s, &mut out);
        assert_eq!(out, [1, 3, 5, 0, 2, 4]);
    }
}
