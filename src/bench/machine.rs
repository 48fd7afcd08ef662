//! A description of the machine and build a benchmark ran on, so that a result file says where
//! its numbers come from.

use serde::Serialize;
use std::process::Command;

/// The machine, the build and the command of a benchmark run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// The host name.
    pub host: String,
    /// The CPU model, as the operating system names it (`model name` in `/proc/cpuinfo`).
    pub cpu_model: String,
    /// Logical cores this process may use (hardware threads; respects CPU affinity).
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Total memory in bytes, when the operating system tells (`MemTotal` in `/proc/meminfo`).
    pub memory_bytes: Option<u64>,
    /// Operating system: distribution name, kernel release and architecture.
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
        Machine {
            host: host_name(),
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            logical_cores: num_cpus::get(),
            physical_cores: num_cpus::get_physical(),
            memory_bytes: memory_bytes(),
            os: os_description(),
            rustc: env!("NQUEENS_RUSTC_VERSION").to_string(),
            git_commit: git_commit().unwrap_or_else(|| "unknown".into()),
            command_line,
        }
    }
}

/// The host name, or `unknown`.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .or_else(|| run("hostname", &[]))
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok();
    info.as_deref()
        .and_then(|text| field(text, &["model name", "Model", "cpu model", "Processor"]))
        .or_else(|| run("sysctl", &["-n", "machdep.cpu.brand_string"]))
}

fn memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = field(&text, &["MemTotal"])?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

fn os_description() -> String {
    let distro = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| format!(", kernel {}", s.trim()))
        .unwrap_or_default();
    format!("{distro}{kernel}, {}", std::env::consts::ARCH)
}

fn git_commit() -> Option<String> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let commit = run("git", &["-C", dir, "rev-parse", "HEAD"])?;
    let dirty = run(
        "git",
        &["-C", dir, "status", "--porcelain", "--untracked-files=no"],
    )
    .is_some_and(|s| !s.is_empty());
    Some(if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    })
}

/// The value of the first `key: value` line whose key is one of `keys`.
fn field(text: &str, keys: &[&str]) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        keys.contains(&k.trim())
            .then(|| v.trim().to_string())
            .filter(|v| !v.is_empty())
    })
}

/// The trimmed standard output of a command that succeeded.
fn run(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_key() {
        let text = "processor\t: 0\nmodel name\t: Some CPU @ 3.00GHz\nMemTotal:  1024 kB\n";
        assert_eq!(
            field(text, &["model name"]).as_deref(),
            Some("Some CPU @ 3.00GHz")
        );
        assert_eq!(field(text, &["MemTotal"]).as_deref(), Some("1024 kB"));
        assert_eq!(field(text, &["nothing"]), None);
    }

    #[test]
    fn detect_fills_every_field() {
        let m = Machine::detect("nqueens bench".into());
        assert!(m.logical_cores >= 1 && m.physical_cores >= 1);
        assert!(!m.rustc.is_empty() && !m.host.is_empty() && !m.os.is_empty());
        assert!(m.rustc.starts_with("rustc ") || m.rustc == "unknown");
        assert_eq!(m.command_line, "nqueens bench");
    }
}
