#!/usr/bin/env python3
"""Judges W3C Trace Context `traceparent` values as a producer must emit them.

Two independent checks, both must accept:
  1. the version-00 grammar of the W3C Trace Context recommendation
     (lower-case hex, 32-digit trace-id and 16-digit parent-id, neither all
     zeros, 2-digit flags), written here;
  2. OpenTelemetry's W3C propagator (PyPI `opentelemetry-api`), which must
     extract a valid span context from it.

    traceparent_check.py VALUE [VALUE ...]   # exit 0 when every value passes
    traceparent_check.py --selftest

(A receiver may accept more, such as a future version with extra fields; a
producer such as Relay emits version 00 only.)
"""
from __future__ import annotations

import json
import re
import sys

from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

VERSION_00 = re.compile(r"00-(?!0{32}-)[0-9a-f]{32}-(?!0{16}-)[0-9a-f]{16}-[0-9a-f]{2}")


def grammar_ok(value: str) -> bool:
    return VERSION_00.fullmatch(value) is not None


def otel_ok(value: str) -> bool:
    context = TraceContextTextMapPropagator().extract({"traceparent": value})
    return trace.get_current_span(context).get_span_context().is_valid


def judge(value: str) -> dict:
    result = {"value": value, "grammar": grammar_ok(value), "opentelemetry": otel_ok(value)}
    result["ok"] = result["grammar"] and result["opentelemetry"]
    if result["grammar"]:
        flags = int(value[-2:], 16)
        result["sampled"] = bool(flags & 0x01)
    return result


# (value, a producer may emit it)
CASES = [
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", True),
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", True),
    ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03", True),
    ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", False),  # trace-id all zeros
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", False),  # parent-id all zeros
    ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", False),  # upper-case hex
    ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", False),  # version ff is invalid
    ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", False),  # not version 00
    ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", False),   # short trace-id
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01", False),   # short parent-id
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", False),   # short flags
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", False),  # extra field on 00
    (" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", False),  # leading space
    ("", False),
]


def selftest() -> int:
    failed = 0
    for value, expected in CASES:
        got = judge(value)["ok"]
        failed += got != expected
        print(f"{'ok  ' if got == expected else 'FAIL'} {value!r} -> {got} (expected {expected})")
    print(f"traceparent_check: {len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if argv == ["--selftest"]:
        return selftest()
    results = [judge(v) for v in argv]
    print(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
