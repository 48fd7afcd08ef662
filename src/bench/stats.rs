//! The statistics of a benchmark: medians, ratios, parallel efficiency and rounding.

/// The median of `xs` (the mean of the two middle values for an even count); `None` when empty.
/// NaNs are ordered last, so they never panic the sort.
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    match v.len() {
        0 => None,
        len if len % 2 == 1 => Some(v[mid]),
        _ => Some((v[mid - 1] + v[mid]) / 2.0),
    }
}

/// `amount ÷ seconds` (a speed-up: a baseline's time over a time; a rate: solutions over a
/// time); `None` when `seconds` is not positive (a run too short for the clock) or `amount`
/// is not finite.
pub fn ratio(amount: f64, seconds: f64) -> Option<f64> {
    (seconds > 0.0 && amount.is_finite()).then(|| amount / seconds)
}

/// Parallel efficiency: the scaling over the same search's 1-thread run per thread, 1.0 for
/// perfect scaling, capped at 1 (a scaling above the thread count is timing noise or a cache
/// effect, never more than perfect use of the threads). Never pass the speed-up over a
/// different solver: that counts the method's and the kernel's gain too.
pub fn efficiency(scaling: f64, threads: usize) -> f64 {
    (scaling / threads.max(1) as f64).min(1.0)
}

/// `x` rounded to `digits` significant digits (1 to 17), so that it prints as a short decimal
/// (`0.000229` for `0.0002289999999999996`); non-finite values and 0 unchanged.
pub fn round_sig(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let digits = digits.clamp(1, 17);
    format!("{x:.*e}", digits - 1).parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.5]), Some(7.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn ratios_and_efficiency() {
        assert_eq!(ratio(10.0, 2.5), Some(4.0));
        assert_eq!(ratio(10.0, 0.0), None);
        assert_eq!(ratio(f64::NAN, 1.0), None);
        assert_eq!(efficiency(4.0, 8), 0.5);
        assert_eq!(efficiency(1.9, 2), 0.95);
        // Above perfect: capped.
        assert_eq!(efficiency(3.48, 2), 1.0);
    }

    #[test]
    fn rounding_to_significant_digits() {
        assert_eq!(round_sig(0.0002289999999999996, 6), 0.000229);
        assert_eq!(round_sig(182_335_129.586_861_7, 6), 182_335_000.0);
        assert_eq!(round_sig(1.2706393301510288, 6), 1.27064);
        assert_eq!(round_sig(-7.000000000000062e-6, 6), -7e-6);
        assert_eq!(round_sig(0.0, 6), 0.0);
        assert!(round_sig(f64::NAN, 6).is_nan());
        assert_eq!(round_sig(123.456, 2), 120.0);
    }
}
