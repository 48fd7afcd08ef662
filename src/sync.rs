//! Locking shared by the threads of a count and of a listing.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// A mutex's data, even if a thread panicked while holding it. Every caller keeps its data
/// whole across a panic (its holders only push, count or move a value in one step) and stops
/// its work on a panic by other means, so the data are still right to read.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
