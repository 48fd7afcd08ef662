//! One way to stop a count from elsewhere: a quick count ([`crate::Engine::count_with`]), a
//! long run ([`crate::longrun::Run::cancel_on`]) and a benchmark ([`crate::bench::run`]) all
//! take a [`Cancel`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A handle that stops a count when cancelled: no new unit is started; a quick count then
/// returns [`crate::Error::Cancelled`], a long run what it finished (kept in its checkpoint), a
/// benchmark the runs it made. Clones share one flag, so one clone can go to a signal handler,
/// a timer or another thread while the count holds another.
///
/// ```
/// let cancel = nqueens_count::Cancel::new();
/// let remote = cancel.clone();
/// remote.cancel();
/// assert!(cancel.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A handle not cancelled yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Stops the count (every clone sees it).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called, or the flag set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The flag itself, for code that can only set an `AtomicBool`: a signal handler
    /// registered with `signal_hook::flag::register`, say.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.0
    }
}
