s=open('Cargo.toml').read()
a=s.index('# Not used directly:'); b=s.index('[dev-dependencies]')
block='''# The binary's build lines up with the test build: these name the features that the test and
# benchmark crates turn on in crates the library uses too, so that `cargo test --release` after
# `cargo run --release` (the README's two commands) reuses the build instead of compiling them
# again with other features. Behind `cli`, so the library alone (`default-features = false`)
# does not get them (results/2026-12-03-feature-lineup/NOTE.md).
serde_core = { version = "1", optional = true }
either = { version = "1", features = ["use_std"], optional = true }
getrandom = { version = "0.4", features = ["std", "sys_rng"], optional = true }

'''
s=s[:a]+block+s[b:]
old='cli = ["dep:clap", "dep:clap_complete", "dep:clap_mangen", "dep:indicatif", "dep:signal-hook"]'
assert old in s
s=s.replace(old,'cli = [\n    "dep:clap", "dep:clap_complete", "dep:clap_mangen", "dep:indicatif", "dep:signal-hook",\n    "dep:serde_core", "dep:either", "dep:getrandom",\n]')
open('Cargo.toml','w').write(s)
