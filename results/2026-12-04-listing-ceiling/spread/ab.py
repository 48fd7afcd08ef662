#!/usr/bin/env python3
"""Interleaved A/B of shell commands: wall (Python clock) and CPU (children's rusage) per run.

    python3 ab.py REPS OUT_DIR NAME=COMMAND...

Writes OUT_DIR/raw.tsv (rep, name, wall_ms, cpu_ms) and OUT_DIR/summary.md (quartiles of the
wall, median CPUs used, and the median of each repetition's ratio to the first command).
"""
import os, resource, statistics, subprocess, sys, time

reps, out = int(sys.argv[1]), sys.argv[2]
cmds = [a.split("=", 1) for a in sys.argv[3:]]
rows = []
for rep in range(reps):
    for name, cmd in cmds:
        r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(cmd, shell=True, check=True)
        wall = (time.perf_counter() - t0) * 1e3
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3
        rows.append((rep, name, wall, cpu))
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "raw.tsv"), "w") as f:
    f.write("rep\tname\twall_ms\tcpu_ms\n")
    f.writelines(f"{r}\t{n}\t{w:.3f}\t{c:.3f}\n" for r, n, w, c in rows)
first = {r: w for r, n, w, _ in rows if n == cmds[0][0]}
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write(f"# Interleaved, {reps} repetitions\n\n| name | command | wall p25 | median | p75 (ms) "
            f"| CPUs used (median) | median ratio to {cmds[0][0]} |\n|---|---|---:|---:|---:|---:|---:|\n")
    for name, cmd in cmds:
        sel = [x for x in rows if x[1] == name]
        q = statistics.quantiles([x[2] for x in sel], n=4)
        used = statistics.median(x[3] / x[2] for x in sel)
        ratio = statistics.median(x[2] / first[x[0]] for x in sel)
        f.write(f"| {name} | `{cmd.replace('|', chr(92) + '|')}` | {q[0]:.2f} | {q[1]:.2f} | "
                f"{q[2]:.2f} | {used:.2f} | {ratio:.3f} |\n")
print(open(os.path.join(out, "summary.md")).read())
