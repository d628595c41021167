#!/usr/bin/env python3
"""Sorts a perf profile of `relay bench` into the parts of a delivery.

Record and print the samples first (a release build, `B` its binary):

    perf record -F 1499 --call-graph dwarf,16384 -o perf.data -- \
        $B bench throughput --events 30000 --no-limit
    perf script -i perf.data -F comm,tid,ip,sym --no-inline > perf.txt
    python3 scripts/perf-parts.py perf.txt [--cpu-seconds S --deliveries N]

Each sample goes to the first part in PARTS whose pattern matches a frame
of its stack (so the order matters: signing before the attempt that calls
it), or by its thread (the Syncer's, the writer's), or to "other: <thread>". With the run's whole-process CPU seconds and
its deliveries, it also prints microseconds of CPU per delivery. This is
how docs/benchmarks.md ("What 50 % of `limit` would take") was measured.
"""

import argparse
import collections
import re

PARTS = [
    ("the Syncer's flushes", None),  # by thread name, see below
    ("signing", r"ed25519|curve25519|sign_request|signature_header|sha512"),
    ("the attempt's HTTPS client", r"Attempter::attempt|relay_net::client"),
    ("writer: publish batches", r"txn::publish_batch"),
    ("writer: completion batches", r"txn::complete"),
    ("writer: claims", r"txn::claim|live_claim"),
    ("writer: BEGIN, COMMIT, savepoints", r"execute_batch|Writer::control"),
    ("writer: the rest", r"Writer::cycle|Writer::serve|relay_store::sqlite"),
    ("the bench's receiver", r"relay_receiver"),
    ("the bench's publisher", r"relay_bench::publish|relay_bench::http"),
    ("publish API and HTTP server", r"relay_api|hyper::server|hyper::proto::h1::role::Server|axum"),
    ("the engine's other work", r"relay_engine"),
    ("the store's other work", r"relay_store"),
    ("tokio parking", r"park|epoll_wait|Parker"),
]
SYNCER_THREAD = "relay-sqlite-sy"
WRITER_THREAD = "relay-sqlite-wr"


def samples(path):
    """Yields (thread name, frames leaf first) for each sample."""
    comm, frames = None, []
    with open(path) as f:
        for line in f:
            if not line.strip():
                if frames:
                    yield comm, frames
                comm, frames = None, []
            elif not line.startswith("\t"):
                comm, frames = line.split()[0], []
            else:
                parts = line.strip().split(None, 1)
                if len(parts) == 2:
                    frames.append(parts[1])
    if frames:
        yield comm, frames


def part_of(comm, frames, compiled):
    if comm.startswith(SYNCER_THREAD):
        return PARTS[0][0]
    for name, pattern in compiled:
        if any(pattern.search(f) for f in frames):
            return name
    if comm.startswith(WRITER_THREAD):
        return "writer: the rest"
    return "other: " + comm


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("perf_script_output")
    args.add_argument("--cpu-seconds", type=float, help="the run's whole-process CPU seconds")
    args.add_argument("--deliveries", type=int, help="the run's deliveries")
    a = args.parse_args()
    compiled = [(n, re.compile(p)) for n, p in PARTS if p]
    counts = collections.Counter()
    total = 0
    for comm, frames in samples(a.perf_script_output):
        counts[part_of(comm, frames, compiled)] += 1
        total += 1
    if not total:
        raise SystemExit("no samples")
    per = a.cpu_seconds * 1e6 / a.deliveries if a.cpu_seconds and a.deliveries else None
    for name, n in counts.most_common():
        share = n / total
        us = f"  {share * per:6.1f} µs/delivery" if per else ""
        print(f"{100 * share:6.2f} %{us}  {name}")
    print(f"{total} samples")


if __name__ == "__main__":
    main()
