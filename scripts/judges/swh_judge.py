#!/usr/bin/env python3
"""Judges the Standard Webhooks signatures of one captured request.

Relay's signing code does not take part: `v1` (HMAC-SHA256) is verified by
the PyPI `standardwebhooks` library, the specification's own Python
implementation; `v1a` (Ed25519), which that library does not implement, by
`cryptography` over the specification's signed content
`{webhook-id}.{webhook-timestamp}.{raw body}`.

    swh_judge.py --secret KEY [--secret KEY ...] [--now UNIX] [--tolerance S] REQUEST
    swh_judge.py --selftest

KEY is `whsec_…` (v1), `whpk_…` or `whsk_…` (v1a). REQUEST is a file (or `-`
for stdin) holding a captured request as JSON:
`{"headers": {"webhook-id": …, "webhook-timestamp": …, "webhook-signature": …},
"body": "<UTF-8 text>"}`, or `"body_b64"` (standard base64) instead of `body`.
Prints one JSON result per key; exits 0 only when every key verifies, 1 when
one does not, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import json
import pathlib
import sys
import time
from datetime import datetime, timezone

import standardwebhooks.webhooks as swh
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# The library's tolerance, fixed at five minutes either side (inclusive).
LIBRARY_TOLERANCE = 300
TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "testdata"


class Judgement:
    def __init__(self, key: str, scheme: str, ok: bool, why: str):
        self.key, self.scheme, self.ok, self.why = key, scheme, ok, why

    def as_dict(self) -> dict:
        # Never the whole key: a judge's output lands in test logs.
        return {"key": self.key[:9] + "…", "scheme": self.scheme, "ok": self.ok, "why": self.why}


def lower(headers: dict) -> dict:
    return {k.lower(): v for k, v in headers.items()}


def b64_strict(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def timestamp_problem(value: str | None, now: int, tolerance: int) -> str | None:
    if value is None:
        return "no webhook-timestamp"
    if not value.isdigit():
        return f"webhook-timestamp {value!r} is not whole Unix seconds"
    age = now - int(value)
    if age > tolerance:
        return f"webhook-timestamp is {age} s old (tolerance {tolerance} s)"
    if -age > tolerance:
        return f"webhook-timestamp is {-age} s in the future (tolerance {tolerance} s)"
    return None


class _FrozenDatetime(datetime):
    """`datetime` whose `now` is the judge's `--now` (the library reads the clock itself)."""

    frozen: float = 0.0

    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return datetime.fromtimestamp(cls.frozen, tz=tz or timezone.utc)


def verify_v1(secret: str, headers: dict, body: bytes, now: int, tolerance: int) -> Judgement:
    h = lower(headers)
    problem = timestamp_problem(h.get("webhook-timestamp"), now, tolerance)
    if problem:
        return Judgement(secret, "v1", False, problem)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return Judgement(secret, "v1", False, "standardwebhooks verifies UTF-8 bodies only")
    # The library checks the timestamp against its own clock and its fixed
    # tolerance; the window was checked above with ours, so its clock is set
    # to the header's own time.
    _FrozenDatetime.frozen = float(h["webhook-timestamp"])
    real = swh.datetime
    swh.datetime = _FrozenDatetime
    try:
        swh.Webhook(secret).verify(text, headers, json_parse=False)
        return Judgement(secret, "v1", True, "standardwebhooks: verified")
    except swh.WebhookVerificationError as e:
        return Judgement(secret, "v1", False, f"standardwebhooks: {e}")
    except (ValueError, binascii.Error) as e:
        return Judgement(secret, "v1", False, f"standardwebhooks cannot read the header: {e}")
    finally:
        swh.datetime = real


def ed25519_public(key: str) -> bytes:
    """The raw public key of `whpk_<32 bytes>` or `whsk_<32-byte seed | 64-byte seed‖public>`."""
    prefix, raw = key[:5], b64_strict(key[5:])
    if prefix == "whpk_":
        if len(raw) != 32:
            raise ValueError(f"whpk_ holds {len(raw)} bytes, not 32")
        return raw
    if prefix == "whsk_":
        if len(raw) not in (32, 64):
            raise ValueError(f"whsk_ holds {len(raw)} bytes, not 32 or 64")
        public = Ed25519PrivateKey.from_private_bytes(raw[:32]).public_key()
        derived = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        if len(raw) == 64 and raw[32:] != derived:
            raise ValueError("whsk_ (64 bytes): its second half is not the seed's public key")
        return derived
    raise ValueError("not an Ed25519 key (whpk_ or whsk_)")


def verify_v1a(key: str, headers: dict, body: bytes, now: int, tolerance: int) -> Judgement:
    h = lower(headers)
    msg_id, ts, sigs = h.get("webhook-id"), h.get("webhook-timestamp"), h.get("webhook-signature")
    if not (msg_id and ts and sigs):
        return Judgement(key, "v1a", False, "webhook-id, webhook-timestamp or webhook-signature missing")
    problem = timestamp_problem(ts, now, tolerance)
    if problem:
        return Judgement(key, "v1a", False, problem)
    try:
        public = Ed25519PublicKey.from_public_bytes(ed25519_public(key))
    except (ValueError, binascii.Error) as e:
        return Judgement(key, "v1a", False, f"unusable key: {e}")
    content = f"{msg_id}.{ts}.".encode() + body
    for entry in sigs.split(" "):
        version, comma, value = entry.partition(",")
        if version != "v1a" or not comma:
            continue
        try:
            public.verify(b64_strict(value), content)
            return Judgement(key, "v1a", True, "cryptography (Ed25519): verified")
        except (InvalidSignature, binascii.Error, ValueError):
            continue
    return Judgement(key, "v1a", False, "no v1a entry verifies with this key")


def judge(keys: list[str], headers: dict, body: bytes, now: int, tolerance: int) -> list[Judgement]:
    out = []
    for key in keys:
        if key.startswith(("whpk_", "whsk_")):
            out.append(verify_v1a(key, headers, body, now, tolerance))
        else:
            out.append(verify_v1(key, headers, body, now, tolerance))
    return out


def read_request(source: str) -> tuple[dict, bytes]:
    text = sys.stdin.read() if source == "-" else pathlib.Path(source).read_text(encoding="utf-8")
    request = json.loads(text)
    if "body_b64" in request:
        body = b64_strict(request["body_b64"])
    else:
        body = request.get("body", "").encode("utf-8")
    return request["headers"], body


def selftest() -> int:
    """Every vector of testdata/standard-webhooks.json, each also tampered."""
    doc = json.loads((TESTDATA / "standard-webhooks.json").read_text(encoding="utf-8"))
    tolerance = doc["tolerance_seconds"]
    checks: list[tuple[str, bool]] = []
    for scheme, key_fields in (("v1", ("secret",)), ("v1a", ("public_key", "secret_key"))):
        for n, case in enumerate(doc[scheme]):
            headers = {
                "Webhook-Id": case["id"],
                "webhook-timestamp": str(case["timestamp"]),
                "webhook-signature": "v9,ignored " + case["signature"],
            }
            body = case["body"].encode()
            ts = case["timestamp"]
            for field in key_fields:
                name = f"{scheme}[{n}] {field}"
                key = case[field]
                checks.append((f"{name} verifies", judge([key], headers, body, ts, tolerance)[0].ok))
                checks.append((f"{name} at the edge of the tolerance", judge([key], headers, body, ts + tolerance, tolerance)[0].ok))
                checks.append((f"{name} refused past it", not judge([key], headers, body, ts + tolerance + 1, tolerance)[0].ok))
                checks.append((f"{name} refused when the body changes", not judge([key], headers, body + b" ", ts, tolerance)[0].ok))
                other = dict(headers, **{"Webhook-Id": case["id"] + "x"})
                checks.append((f"{name} refused under another id", not judge([key], other, body, ts, tolerance)[0].ok))
    v1, v1a = doc["v1"][0], doc["v1a"][0]
    both = {
        "webhook-id": v1["id"],
        "webhook-timestamp": str(v1["timestamp"]),
        "webhook-signature": f"{v1a['signature']} {v1['signature']}",
    }
    checks.append((
        "one header with both schemes, each key verifies",
        all(j.ok for j in judge([v1["secret"], v1a["public_key"]], both, v1["body"].encode(), v1["timestamp"], tolerance)),
    ))
    checks.append((
        "a key of the other scheme is refused",
        not judge([doc["v1a"][1]["public_key"]], both, v1["body"].encode(), v1["timestamp"], tolerance)[0].ok,
    ))
    failed = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    print(f"swh_judge: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("request", nargs="?", help="captured request JSON file, or - for stdin")
    parser.add_argument("--secret", action="append", default=[], help="whsec_, whpk_ or whsk_ key (repeatable)")
    parser.add_argument("--now", type=int, help="the time to judge at (Unix seconds; default: now)")
    parser.add_argument("--tolerance", type=int, default=LIBRARY_TOLERANCE, help="seconds either side (default 300)")
    parser.add_argument("--selftest", action="store_true", help="judge the testdata vectors")
    args = parser.parse_args(argv)
    if args.selftest:
        return selftest()
    if not args.request or not args.secret:
        parser.error("a request and at least one --secret are needed")
    headers, body = read_request(args.request)
    now = args.now if args.now is not None else int(time.time())
    results = judge(args.secret, headers, body, now, args.tolerance)
    print(json.dumps([r.as_dict() for r in results], indent=1, ensure_ascii=False))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
