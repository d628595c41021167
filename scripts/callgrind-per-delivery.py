#!/usr/bin/env python3
"""Relay's instructions per delivery, counted by callgrind (repeatable where
a shared machine's deliveries/s are not).

    python3 scripts/callgrind-per-delivery.py $B [--small 1000 --large 3000]
        [--endpoints 2] [--out DIR] [-- extra bench flags, e.g. --database-url URL]

`$B` is a release build of `relay` (symbols on: the release profile keeps
line tables). It runs `$B bench throughput --events N --no-limit` under
`valgrind --tool=callgrind --separate-threads=yes` twice, with `--small`
and `--large` events, and divides the difference of the counts by the
difference of the deliveries: what startup, migrations and connections
cost is in both runs and cancels out. A thread that ran the bench's
receiver or publisher is the bench's and not counted; the SQLite writer's
thread (the one that ran `Writer::control`: its `BEGIN` and `COMMIT`) is
printed apart from the rest (the tokio workers, the read pool's threads,
the Syncer). Two runs of one binary differ by a few per cent, mostly the
writer's (their batches differ): compare binaries over two runs each.
callgrind counts user space only, each iteration of a `rep movs` as an
instruction, and hides SHA-NI (SHA-256 runs in software under valgrind).
This is how docs/benchmarks.md ("Issue 47: cost per delivery (session
28)") was measured.
"""

import argparse
import glob
import os
import re
import subprocess
import tempfile

BENCH_MARKS = ("relay_receiver", "relay_bench::publish")
WRITER_MARK = "sqlite::writer::Writer::control"


def threads(prefix):
    """(file, kind, instructions) of each thread's callgrind file."""
    out = []
    for path in sorted(glob.glob(prefix + "-*")):
        total, names = 0, []
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(("totals:", "summary:")):
                    total = int(line.split()[1])
                elif line.startswith(("fn=(", "cfn=(")):
                    m = re.match(r"c?fn=\(\d+\) (.*)", line)
                    if m:
                        names.append(m.group(1))
        text = "\n".join(names)
        if any(mark in text for mark in BENCH_MARKS):
            kind = "bench"
        elif WRITER_MARK in text:
            kind = "writer"
        else:
            kind = "workers"
        out.append((path, kind, total))
    return out


def run(binary, events, endpoints, extra, out_dir):
    prefix = os.path.join(out_dir, f"callgrind.{events}")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--separate-threads=yes",
         f"--callgrind-out-file={prefix}", binary, "bench", "throughput",
         "--events", str(events), "--endpoints", str(endpoints), "--no-limit", *extra],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "RELAY_LOG": "error"},
    )
    sums = {"bench": 0, "writer": 0, "workers": 0}
    for _, kind, total in threads(prefix):
        sums[kind] += total
    return sums


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("--small", type=int, default=1000)
    p.add_argument("--large", type=int, default=3000)
    p.add_argument("--endpoints", type=int, default=2)
    p.add_argument("--out", help="keep the callgrind files here")
    p.add_argument("extra", nargs="*", help="more `relay bench throughput` flags")
    a = p.parse_args()
    out_dir = a.out or tempfile.mkdtemp(prefix="relay-callgrind-")
    os.makedirs(out_dir, exist_ok=True)
    small = run(a.binary, a.small, a.endpoints, a.extra, out_dir)
    large = run(a.binary, a.large, a.endpoints, a.extra, out_dir)
    deliveries = (a.large - a.small) * a.endpoints
    per = {k: (large[k] - small[k]) / deliveries for k in large}
    print(f"instructions per delivery ({deliveries} deliveries apart; files in {out_dir}):")
    print(f"  Relay, all threads  {per['workers'] + per['writer']:>10,.0f}")
    print(f"  the other threads   {per['workers']:>10,.0f}")
    print(f"  SQLite writer       {per['writer']:>10,.0f}")
    print(f"  the bench (apart)   {per['bench']:>10,.0f}")


if __name__ == "__main__":
    main()
