//! The name of this machine, as result and lock files record it.

/// The name of this machine (`gethostname(2)`; on other systems the `COMPUTERNAME`
/// variable); empty when it cannot be told.
pub(crate) fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is ours and its length is passed; gethostname writes within it.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        if ok {
            String::from_utf8_lossy(&buf[..len]).into_owned()
        } else {
            String::new()
        }
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME").unwrap_or_default()
    }
}
