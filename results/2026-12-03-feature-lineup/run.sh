#!/usr/bin/env bash
# Feature line-up experiment: the README's two commands on a fresh clone, per Cargo.toml variant.
set -u
variant=$1
dir=/tmp/fl/$variant
rm -rf "$dir"
git clone -q /work/wt-api "$dir"
cd "$dir"
git checkout -q api-internals
case $variant in
  A) ;;  # as committed: the line-up crates in [dependencies]
  B) python3 - <<'PY'
s=open('Cargo.toml').read()
a=s.index('# Not used directly:'); b=s.index('[dev-dependencies]')
open('Cargo.toml','w').write(s[:a]+s[b:])
PY
  ;;
  C) python3 - <<'PY'
s=open('Cargo.toml').read()
a=s.index('# Not used directly:'); b=s.index('[dev-dependencies]')
s=s[:a]+s[b:]
s=s.replace('autotests = false\n','autotests = false\nresolver = "1"\n',1)
open('Cargo.toml','w').write(s)
PY
  ;;
  D) python3 /tmp/fl/d.py ;;
esac
git diff --stat
log=/tmp/fl/$variant.log
: > "$log"
t0=$(date +%s.%N)
/usr/bin/time -f "first wall %e user %U sys %S" -o /tmp/fl/$variant.t1 cargo run --release -- count 16 >> "$log" 2>&1
t1=$(date +%s.%N)
/usr/bin/time -f "second wall %e user %U sys %S" -o /tmp/fl/$variant.t2 cargo test --release --no-run > /tmp/fl/$variant.second.log 2>&1
t2=$(date +%s.%N)
cat /tmp/fl/$variant.t1 /tmp/fl/$variant.t2 | sed "s/^/$variant /" | tee -a /tmp/fl/results.txt
grep -c Compiling /tmp/fl/$variant.second.log | sed "s/^/$variant second compiled crates: /" | tee -a /tmp/fl/results.txt
grep Compiling /tmp/fl/$variant.second.log | awk '{print $2}' | tr '\n' ' ' >> /tmp/fl/results.txt; echo >> /tmp/fl/results.txt
