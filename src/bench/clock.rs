//! Wall-clock dates for benchmark reports.

use jiff::Timestamp;

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds).
pub fn utc_now_iso8601() -> String {
    iso8601(Timestamp::now())
}

/// `time`, UTC, as `YYYY-MM-DDTHH:MM:SSZ`, the fraction of a second dropped.
fn iso8601(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_iso8601_in_whole_seconds() {
        let at = |s: i64, ns: i32| iso8601(Timestamp::new(s, ns).unwrap());
        assert_eq!(at(0, 0), "1970-01-01T00:00:00Z");
        // A leap day, and the fraction of a second dropped.
        assert_eq!(at(951_782_400 + 3_723, 999_999_999), "2000-02-29T01:02:03Z");
        assert_eq!(at(1_798_761_599, 0), "2026-12-31T23:59:59Z");
        assert_eq!(at(-1, 0), "1969-12-31T23:59:59Z");
        let now = utc_now_iso8601();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'), "{now}");
    }
}
