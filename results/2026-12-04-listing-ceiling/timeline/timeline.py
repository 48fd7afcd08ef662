#!/usr/bin/env python3
"""The two-thread listing's timeline from inside the process (issue 35).

Runs a build of main with timeline.patch applied: `list 14 -t T >/dev/null` with NQ_TRACE set,
in four modes interleaved (one thread; two; two with the handshake NQ_HS; two with the nudge
NQ_NUDGE), REPS times, and writes raw.tsv (one line per run) and summary.md (medians). MODE
arguments choose other modes, among them the same into `wc -c` (`t1-pipe`, `t2-pipe`).

    python3 timeline.py BIN REPS OUT_DIR [MODE...]
"""
import os, statistics, subprocess, sys, time

bin_, reps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
every = {"t1": ("1", {}), "t2": ("2", {}), "t2-handshake": ("2", {"NQ_HS": "1"}),
         "t2-nudge": ("2", {"NQ_NUDGE": "1"}), "t1-pipe": ("1", {}), "t2-pipe": ("2", {})}
chosen = sys.argv[4:] or ["t1", "t2", "t2-handshake", "t2-nudge"]
modes = {m: every[m] for m in chosen}


def listed(t, env, pipe):
    """Runs the listing (into `wc -c` when `pipe`); its standard error."""
    cmd = [bin_, "list", "14", "-t", t]
    if not pipe:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                              check=True).stderr
    lister = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wc = subprocess.Popen(["wc", "-c"], stdin=lister.stdout, stdout=subprocess.DEVNULL)
    lister.stdout.close()
    err = lister.stderr.read()
    lister.wait(), wc.wait()
    return err


cols = ["wall_ms", "main_to_spawn_ms", "spawn_to_second_ms", "workers_ms", "end_gap_ms",
        "cpu_ms", "run_delay_ms", "run_delay_first_ms", "run_delay_second_ms"]
rows = []
for rep in range(reps):
    for mode, (t, extra) in modes.items():
        env = dict(os.environ, NQ_TRACE="1", **extra)
        t0 = time.perf_counter()
        err = listed(t, env, mode.endswith("-pipe"))
        wall = (time.perf_counter() - t0) * 1e3
        lines = [l.split() for l in err.decode().splitlines()]
        m = next(float(l[1]) for l in lines if l[0] == "M")
        s = next((float(l[1]) for l in lines if l[0] == "S"), None)
        if s is None:
            # One thread: the serial path, which the patch does not trace.
            rows.append([rep, mode, wall] + [None] * (len(cols) - 1))
            continue
        w = sorted((l for l in lines if l[0] == "W"), key=lambda l: float(l[1]))
        start, end = [float(x[1]) for x in w], [float(x[2]) for x in w]
        cpu, delay = [int(x[4]) / 1e6 for x in w], [int(x[5]) / 1e6 for x in w]
        rows.append([rep, mode, wall, (s - m) / 1e3, (start[-1] - s) / 1e3 if len(w) > 1 else 0,
                     (max(end) - start[0]) / 1e3, (max(end) - min(end)) / 1e3, sum(cpu),
                     sum(delay), delay[0], delay[-1] if len(w) > 1 else 0])
with open(os.path.join(out, "raw.tsv"), "w") as f:
    f.write("rep\tmode\t" + "\t".join(cols) + "\n")
    for r in rows:
        f.write("\t".join([str(r[0]), r[1]] + ["" if x is None else f"{x:.3f}" for x in r[2:]])
                + "\n")
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write(f"# `list 14 -t T >/dev/null` (`-pipe`: `\\| wc -c`), with the trace patch, {reps} "
            "interleaved repetitions\n\n")
    f.write("Medians (ms; – where one thread takes the serial path, which the patch does not trace); the first worker is the calling thread, its CPU time and run-queue "
            "wait count from `exec`.\n\n| mode | " + " | ".join(cols) + " |\n|---|"
            + "---:|" * len(cols) + "\n")
    for mode in modes:
        sel = [r for r in rows if r[1] == mode]
        meds = [statistics.median(r[i] for r in sel) if sel[0][i] is not None else None
                for i in range(2, 2 + len(cols))]
        f.write(f"| {mode} | " + " | ".join("–" if x is None else f"{x:.2f}" for x in meds)
                + " |\n")
    f.write("\nWall quartiles (ms):\n\n")
    for mode in modes:
        q = statistics.quantiles([r[2] for r in rows if r[1] == mode], n=4)
        f.write(f"- {mode}: {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}\n")
print(open(os.path.join(out, "summary.md")).read())
