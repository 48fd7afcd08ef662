//! A description of the machine and build a benchmark ran on, so that a result file says where
//! its numbers come from, and when it started. The operating system is asked through
//! `sysinfo`, which knows Linux, macOS, Windows and the BSDs.

use jiff::Timestamp;
use serde::Serialize;
use std::process::Command;
use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind, System};

/// The machine, the build and the command of a benchmark run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// The host name.
    pub host: String,
    /// The CPU model, as the operating system names it (`model name` in Linux's
    /// `/proc/cpuinfo`); `unknown` when it does not tell.
    pub cpu_model: String,
    /// Logical cores this process may use (hardware threads; respects CPU affinity).
    pub logical_cores: usize,
    /// Physical cores (the logical cores when the operating system does not tell).
    pub physical_cores: usize,
    /// Total memory in bytes, when the operating system tells.
    pub memory_bytes: Option<u64>,
    /// Operating system (with its distribution on Linux), kernel release and architecture.
    pub os: String,
    /// `rustc --version` of the compiler that built this binary, recorded at build time.
    pub rustc: String,
    /// The git commit of the source tree the binary was built from, read when the benchmark
    /// starts, with `-dirty` when tracked files differ from it; `unknown` outside a git checkout.
    pub git_commit: String,
    /// The command line of the benchmark, as given.
    pub command_line: String,
}

impl Machine {
    /// Describes this machine; `command_line` is recorded as given.
    pub fn detect(command_line: String) -> Machine {
        let memory = MemoryRefreshKind::nothing().with_ram();
        let refresh = RefreshKind::nothing().with_cpu(CpuRefreshKind::nothing());
        let system = System::new_with_specifics(refresh.with_memory(memory));
        let logical_cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let host = System::host_name().filter(|h| !h.is_empty());
        let mut brands = system.cpus().iter().map(|c| c.brand().trim());
        let cpu_model = brands.find(|b| !b.is_empty()).unwrap_or("unknown");
        Machine {
            host: host.unwrap_or_else(|| "unknown".into()),
            cpu_model: cpu_model.into(),
            logical_cores,
            physical_cores: System::physical_core_count().unwrap_or(logical_cores),
            memory_bytes: Some(system.total_memory()).filter(|&b| b > 0),
            os: os_description(),
            rustc: env!("NQUEENS_RUSTC_VERSION").to_string(),
            git_commit: git_commit().unwrap_or_else(|| "unknown".into()),
            command_line,
        }
    }
}

/// For example `Linux (Ubuntu 24.04), kernel 6.8.0-48-generic, x86_64` or `macOS 15.1.1
/// Sequoia, kernel 24.1.0, aarch64`; the architecture is the one the binary was built for.
fn os_description() -> String {
    let os = System::long_os_version().unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = System::kernel_version().map_or(String::new(), |k| format!(", kernel {k}"));
    format!("{os}{kernel}, {}", std::env::consts::ARCH)
}

/// The commit of the source tree, from `git` (no crate reads a work tree's dirtiness as
/// simply), with `-dirty` when tracked files differ from it.
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "HEAD"])?;
    let status = git(&["status", "--porcelain", "--untracked-files=no"]);
    let dirty = status.is_some_and(|s| !s.is_empty());
    Some(commit + if dirty { "-dirty" } else { "" })
}

/// The trimmed standard output of `git` run with `args` in the source tree, if it succeeded.
fn git(args: &[&str]) -> Option<String> {
    let mut git = Command::new("git");
    let out = git
        .arg("-C")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .ok()?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    out.status.success().then_some(stdout)
}

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds).
pub(crate) fn utc_now() -> String {
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
        let now = utc_now();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'), "{now}");
    }

    #[test]
    fn detect_fills_every_field() {
        let m = Machine::detect("nqueens bench".into());
        assert!(m.logical_cores >= 1 && m.physical_cores >= 1);
        assert!(!m.rustc.is_empty() && !m.host.is_empty() && !m.os.is_empty());
        assert!(m.rustc.starts_with("rustc ") || m.rustc == "unknown");
        assert!(m.os.ends_with(&format!(", {}", std::env::consts::ARCH)));
        assert_ne!(m.cpu_model, "");
        assert_eq!(m.command_line, "nqueens bench");
    }

    /// On Linux the crate's answers agree with what the kernel says in `/proc`.
    #[cfg(target_os = "linux")]
    #[test]
    fn detect_agrees_with_proc_on_linux() {
        let m = Machine::detect(String::new());
        let read = |p: &str| std::fs::read_to_string(p).unwrap();
        assert_eq!(m.host, read("/proc/sys/kernel/hostname").trim());
        let kernel = read("/proc/sys/kernel/osrelease");
        assert!(
            m.os.contains(&format!(", kernel {}, ", kernel.trim())),
            "{}",
            m.os
        );
        assert!(m.os.starts_with("Linux"), "{}", m.os);
        let value = |text: &str, key: &str| {
            text.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.trim().to_string())
            })
        };
        let meminfo = read("/proc/meminfo");
        let kib: u64 = value(&meminfo, "MemTotal")
            .unwrap()
            .trim_end_matches(" kB")
            .parse()
            .unwrap();
        assert_eq!(m.memory_bytes, Some(kib * 1024));
        // x86 names its model in `model name`; other architectures may not.
        if let Some(model) = value(&read("/proc/cpuinfo"), "model name") {
            assert_eq!(m.cpu_model, model);
        }
    }
}
