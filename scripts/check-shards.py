#!/usr/bin/env python3
"""Checks nqueens shard result files (and checkpoints) without nqueens: Python 3 only.

    scripts/check-shards.py FILE...            # checksum and sums of each file
    scripts/check-shards.py --table FILE...    # then the per-unit table as CSV on stdout

For every file: the SHA-256 of its JSON with "checksum" set to "" (serialized compactly, fields
in the order nqueens writes them whatever their order in the file, non-ASCII as UTF-8) must
equal "checksum" (a file pretty-printed, reordered or with a byte-order mark by an editor passes
as nqueens reads it); a shard file of
format version 2 must list one count per unit in "unit_totals" (and "unit_uniques" when the job
counts them) adding up to "total" (and "unique"). Version 1 files keep only the sums. With
--table, the files must be of one job; the units of all of them are printed, ascending, as
"unit,total" or "unit,total,unique" lines, each once: replicas of a unit must agree.
Exit code 0 when every file passes, 1 otherwise, 2 for bad usage. The layout is described in
docs/CLUSTER.md.
"""
import hashlib
import json
import signal
import sys


# The fields of each kind of file in the order nqueens writes them (docs/CLUSTER.md); a field
# that is absent is left out, as nqueens leaves out what a file does not have.
IDENTITY = ["n", "method", "plan_method", "split_depth", "placed", "unique", "units",
            "units_version", "program_version"]
ORDER = {
    "nqueens-shard": ["format", "format_version", "identity", "shard", "units", "unit_totals",
                      "unit_uniques", "total", "unique", "elapsed_ms", "host", "run_id",
                      "estimated_imbalance_bp", "checksum"],
    "nqueens-checkpoint": ["format", "format_version", "identity", "shard", "elapsed_ms", "done",
                           "checksum"],
}


def ordered(doc, fields):
    """`doc` with its fields in the order `fields`, any other field last (and so refused)."""
    out = {k: doc[k] for k in fields if k in doc}
    out.update({k: v for k, v in doc.items() if k not in out})
    return out


def checksum(doc):
    """The checksum nqueens stores: SHA-256 of the compact JSON, in its order, with "checksum"
    empty."""
    body = ordered(doc, ORDER.get(doc.get("format"), []))
    if isinstance(body.get("identity"), dict):
        body["identity"] = ordered(body["identity"], IDENTITY)
    body["checksum"] = ""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def check(path):
    """(description, {unit: (total, unique)}, identity) of a file; raises ValueError if bad."""
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"unreadable: {e}") from None
    if not isinstance(doc, dict) or "checksum" not in doc:
        raise ValueError("not an nqueens file (no checksum)")
    if checksum(doc) != doc["checksum"]:
        raise ValueError("checksum mismatch")
    ident = doc.get("identity", {})
    if doc.get("format") == "nqueens-checkpoint":
        units = {i: (t, u) for i, t, u in doc["done"]}
        return f"checkpoint of N = {ident['n']}, {len(units)} units done", units, ident
    if doc.get("format") != "nqueens-shard":
        raise ValueError(f"format {doc.get('format')!r}")
    units = doc["units"]
    if doc["format_version"] == 1:
        return f"shard {doc['shard']} (version 1: sums only)", None, ident
    totals = doc["unit_totals"]
    uniques = doc.get("unit_uniques")
    if len(totals) != len(units) or sum(totals) != doc["total"]:
        raise ValueError(f"unit_totals ({len(totals)} of them, sum {sum(totals)}) "
                         f"do not make up total {doc['total']} over {len(units)} units")
    if ident["unique"]:
        if uniques is None or len(uniques) != len(units) or sum(uniques) != doc["unique"]:
            raise ValueError(f"unit_uniques do not make up unique {doc.get('unique')}")
    else:
        uniques = [0] * len(units)
    desc = f"shard {doc['shard']} of N = {ident['n']}, {len(units)} units, total {doc['total']}"
    return desc, dict(zip(units, zip(totals, uniques))), ident


def main(argv):
    table = "--table" in argv
    paths = [a for a in argv if a != "--table"]
    if not paths or any(p.startswith("--") for p in paths):
        print("\n".join(__doc__.strip().splitlines()[2:4]), file=sys.stderr)
        return 2
    ok = True
    rows, job = {}, None
    # Per-file lines on stdout, unless stdout carries the table.
    say = sys.stderr if table else sys.stdout
    for path in paths:
        try:
            desc, units, ident = check(path)
        except (ValueError, KeyError, TypeError) as e:
            print(f"{path}: BAD: {e}", file=sys.stderr)
            ok = False
            continue
        print(f"{path}: ok: {desc}", file=say)
        if not table:
            continue
        if units is None:
            print(f"{path}: BAD: no per-unit records for --table", file=sys.stderr)
            ok = False
            continue
        if job is not None and ident != job:
            print(f"{path}: BAD: another job than {paths[0]}", file=sys.stderr)
            ok = False
            continue
        job = ident
        for unit, counts in units.items():
            if rows.setdefault(unit, counts) != counts:
                print(f"{path}: BAD: unit {unit} is {counts}, another file says {rows[unit]}",
                      file=sys.stderr)
                ok = False
    if table and ok and job is not None and len(rows) != job["units"]:
        print(f"note: the table holds {len(rows)} of the job's {job['units']} units",
              file=sys.stderr)
    if table and ok:
        unique = job is not None and job["unique"]
        print("unit,total,unique" if unique else "unit,total")
        for unit in sorted(rows):
            total, uniq = rows[unit]
            print(f"{unit},{total},{uniq}" if unique else f"{unit},{total}")
    return 0 if ok else 1


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
