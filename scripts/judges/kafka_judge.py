#!/usr/bin/env python3
"""Reads a Kafka topic with an independent client and judges every record.

The client is `kafka-python`, a pure-Python implementation of the Kafka
protocol (no librdkafka, which Relay's producer is built on). Every
partition of TOPIC is read from its beginning until COUNT records have
arrived (or TIMEOUT seconds have passed); each record's Standard Webhooks
signature (the `webhook-*` headers over the record's value) is judged by
`swh_judge.judge`, which hands it to the `standardwebhooks` library.

    kafka_judge.py --bootstrap HOST:PORT[,…] --topic TOPIC --count N
                   --secret KEY [--secret KEY …] [--now UNIX] [--timeout S]
    kafka_judge.py --selftest

Prints one JSON document: `{"records": [{"partition", "offset", "key",
"headers": {name: text}, "value_b64", "verified", "why"}], "ok": …}`.
Exits 0 when COUNT records arrived and every one verifies with every key,
1 otherwise, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
import time

from swh_judge import LIBRARY_TOLERANCE, judge


def judged(record: dict, keys: list[str], now: int) -> dict:
    headers = {k: v for k, v in record["headers"].items() if k.startswith("webhook-")}
    value = base64.b64decode(record["value_b64"])
    verdicts = judge(keys, headers, value, now, LIBRARY_TOLERANCE)
    record["verified"] = all(j.ok for j in verdicts)
    record["why"] = "; ".join(j.why for j in verdicts)
    return record


def read(bootstrap: str, topic: str, count: int, timeout: float) -> list[dict]:
    import logging
    import os

    from kafka import KafkaConsumer, TopicPartition

    if os.environ.get("KAFKA_JUDGE_DEBUG"):
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap.split(","),
        group_id=None,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        client_id="kafka-judge",
        # Start the version negotiation at Kafka 2.0's ApiVersions (v2):
        # kafka-python 3.0 opens with v4 and cannot read the v0-shaped
        # UNSUPPORTED_VERSION answer of a broker that only has v0 to v2
        # (librdkafka's mock cluster); the broker's own answer then lowers
        # every other request's version as usual.
        api_version=(2, 0),
    )
    try:
        deadline = time.monotonic() + timeout
        partitions = None
        while partitions is None and time.monotonic() < deadline:
            partitions = consumer.partitions_for_topic(topic)
        if not partitions:
            return []
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        out: list[dict] = []
        while len(out) < count and time.monotonic() < deadline:
            for tp, batch in consumer.poll(timeout_ms=200).items():
                for m in batch:
                    out.append({
                        "partition": m.partition,
                        "offset": m.offset,
                        "key": None if m.key is None else m.key.decode("utf-8", "replace"),
                        "headers": {k: (v or b"").decode("utf-8", "replace") for k, v in m.headers},
                        "value_b64": base64.b64encode(m.value or b"").decode(),
                    })
        return out
    finally:
        consumer.close()


def selftest() -> int:
    """A record signed with a known vector verifies; tampered, it does not."""
    import pathlib

    doc = json.loads((pathlib.Path(__file__).resolve().parents[2] / "testdata" / "standard-webhooks.json").read_text())
    case = doc["v1"][0]
    good = {
        "partition": 0, "offset": 0, "key": None,
        "headers": {"webhook-id": case["id"], "webhook-timestamp": str(case["timestamp"]),
                    "webhook-signature": case["signature"], "content-type": "application/json"},
        "value_b64": base64.b64encode(case["body"].encode()).decode(),
    }
    bad = dict(good, value_b64=base64.b64encode(case["body"].encode() + b" ").decode())
    checks = [
        ("a signed record verifies", judged(dict(good), [case["secret"]], case["timestamp"])["verified"]),
        ("a changed value is refused", not judged(bad, [case["secret"]], case["timestamp"])["verified"]),
    ]
    failed = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(f"{'ok' if ok else 'FAILED'}: {name}")
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--selftest", action="store_true")
    p.add_argument("--bootstrap")
    p.add_argument("--topic")
    p.add_argument("--count", type=int)
    p.add_argument("--secret", action="append", default=[])
    p.add_argument("--now", type=int, default=None)
    p.add_argument("--timeout", type=float, default=30.0)
    a = p.parse_args()
    if a.selftest:
        return selftest()
    if not (a.bootstrap and a.topic and a.count is not None and a.secret):
        p.print_usage(sys.stderr)
        return 2
    now = a.now if a.now is not None else int(time.time())
    records = [judged(r, a.secret, now) for r in read(a.bootstrap, a.topic, a.count, a.timeout)]
    ok = len(records) >= a.count and all(r["verified"] for r in records)
    print(json.dumps({"records": records, "ok": ok, "wanted": a.count}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
