#!/usr/bin/env python3
"""Judges one captured HTTP request as a CloudEvents 1.0 message.

Three checks that Relay's code takes no part in; each must pass:
  1. the official CloudEvents Python SDK (PyPI `cloudevents`, its `core` API)
     must parse the message (structured, batched or binary mode);
  2. structured events must satisfy the official CloudEvents 1.0.2 JSON
     Schema (testdata/cloudevents-v1.0.2.schema.json), formats included;
  3. the specification's normative rules that neither checks (the SDK fills
     in a missing id, time or specversion, so presence is checked here on the
     raw message): attribute names, required attributes, value types and
     ranges, control characters, RFC 3339 times, URI kinds, the binary
     mode's header encoding, and the distributed-tracing extension.

    ce_validate.py REQUEST            # {"headers": {...}, "body": "..."} or "body_b64"
    ce_validate.py --structured FILE  # a bare structured-mode event
    ce_validate.py --selftest

Prints {"ok", "mode", "errors", "warnings"}; exits 0 when there is no error
(warnings are SHOULDs), 1 otherwise, 2 on bad usage.
"""
from __future__ import annotations

import base64
import binascii
import json
import pathlib
import re
import sys
from urllib.parse import unquote_to_bytes

import jsonschema
from cloudevents.core.bindings.http import HTTPMessage, from_http
from cloudevents.core.formats.json import JSONFormat
from rfc3339_validator import validate_rfc3339
from rfc3986_validator import validate_rfc3986

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import traceparent_check  # noqa: E402  (the sibling judge)

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "testdata"
SCHEMA = json.loads((TESTDATA / "cloudevents-v1.0.2.schema.json").read_text(encoding="utf-8"))
REQUIRED = ("id", "source", "specversion", "type")
ATTRIBUTE_NAME = re.compile(r"[a-z0-9]+")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
INT32 = range(-(2**31), 2**31)
# A binary-mode header value: printable US-ASCII except space, '"' and '%',
# or a percent-encoded octet.
HEADER_VALUE = re.compile(r"(?:[\x21\x23-\x24\x26-\x7e]|%[0-9A-Fa-f]{2})*")
TRACESTATE_MEMBER = re.compile(r"[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]")


class Verdict:
    def __init__(self) -> None:
        self.mode = "unknown"
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, text: str) -> None:
        self.errors.append(text)

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def as_dict(self) -> dict:
        return {"ok": not self.errors, "mode": self.mode, "errors": self.errors, "warnings": self.warnings}


def check_attributes(attrs: dict, v: Verdict) -> None:
    """The context attributes (not data) of one event, by the spec's rules."""
    for name, value in attrs.items():
        if not ATTRIBUTE_NAME.fullmatch(name):
            v.error(f"attribute name {name!r}: only lower-case letters and digits are allowed")
        elif len(name) > 20:
            v.warn(f"attribute name {name!r}: longer than 20 characters")
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            if value not in INT32:
                v.error(f"{name}: {value} is outside the Integer type's signed 32-bit range")
        elif isinstance(value, float):
            v.error(f"{name}: {value} is not an Integer (CloudEvents has no fractional numbers)")
        elif isinstance(value, str):
            if CONTROL.search(value):
                v.error(f"{name}: a String must not contain control characters ({value!r})")
        else:
            v.error(f"{name}: a {type(value).__name__} is not a CloudEvents attribute type")
    for name in REQUIRED:
        value = attrs.get(name)
        if value is None:
            v.error(f"required attribute {name!r} is missing")
        elif not isinstance(value, str) or not value:
            v.error(f"required attribute {name!r} must be a non-empty String")
    if attrs.get("specversion") not in (None, "1.0"):
        v.error(f"specversion {attrs['specversion']!r}: a 1.0 producer must send '1.0'")
    source = attrs.get("source")
    if isinstance(source, str) and source and not validate_rfc3986(source, rule="URI_reference"):
        v.error(f"source {source!r} is not a URI-reference")
    for name in ("subject", "datacontenttype", "dataschema", "time"):
        if name in attrs and (not isinstance(attrs[name], str) or not attrs[name]):
            v.error(f"{name}, when present, must be a non-empty String")
    schema = attrs.get("dataschema")
    if isinstance(schema, str) and schema and not validate_rfc3986(schema, rule="URI"):
        v.error(f"dataschema {schema!r} is not an absolute URI")
    when = attrs.get("time")
    if isinstance(when, str) and when and not validate_rfc3339(when):
        v.error(f"time {when!r} is not an RFC 3339 timestamp")
    # The distributed-tracing extension.
    if "traceparent" in attrs:
        tp = attrs["traceparent"]
        judged = traceparent_check.judge(tp) if isinstance(tp, str) else {"ok": False}
        if not judged["ok"]:
            v.error(f"traceparent {tp!r} is not a valid W3C traceparent: {judged}")
    if "tracestate" in attrs:
        members = [m.strip() for m in str(attrs["tracestate"]).split(",") if m.strip()]
        if len(members) > 32:
            v.error("tracestate has more than 32 members")
        for m in members:
            if not TRACESTATE_MEMBER.fullmatch(m):
                v.error(f"tracestate member {m!r} is malformed")
        if "traceparent" not in attrs:
            v.error("tracestate without traceparent")


def check_structured(body: bytes, v: Verdict) -> bytes | None:
    """Checks a structured-mode body; returns the body the SDK should parse."""
    try:
        event = json.loads(body)
    except (UnicodeDecodeError, ValueError) as e:
        v.error(f"the body is not JSON: {e}")
        return None
    if not isinstance(event, dict):
        v.error("a structured-mode event is a JSON object")
        return None
    return check_event_object(event, v)


def check_event_object(event: dict, v: Verdict) -> bytes:
    if "data" in event and "data_base64" in event:
        v.error("data and data_base64 are mutually exclusive")
    if event.get("data_base64") is not None:
        try:
            base64.b64decode(event["data_base64"], validate=True)
        except (binascii.Error, TypeError):
            v.error("data_base64 is not base64")
    # The JSON format: a null attribute is the same as an absent one.
    attrs = {k: x for k, x in event.items() if k not in ("data", "data_base64") and x is not None}
    check_attributes(attrs, v)
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    for e in validator.iter_errors(event):
        where = "/".join(str(p) for p in e.absolute_path) or "(the event)"
        v.error(f"CloudEvents JSON Schema: {where}: {e.message}")
    return json.dumps({k: x for k, x in event.items() if x is not None or k == "data"}).encode()


def check_binary(headers: dict, v: Verdict) -> None:
    attrs: dict = {}
    for name, raw in headers.items():
        lname = name.lower()
        if not lname.startswith("ce-"):
            continue
        attr = lname[3:]
        if attr == "datacontenttype":
            v.error("binary mode carries datacontenttype in Content-Type, never as ce-datacontenttype")
        value = raw.strip(" \t")
        if not HEADER_VALUE.fullmatch(value):
            v.error(f"{name}: {raw!r}: space, '\"', '%' and non-ASCII or unprintable characters must be percent-encoded")
        try:
            attrs[attr] = unquote_to_bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            v.error(f"{name}: the percent-decoded value is not UTF-8")
    content_type = lower(headers).get("content-type")
    if content_type is not None:
        attrs["datacontenttype"] = content_type
    check_attributes(attrs, v)


def lower(headers: dict) -> dict:
    return {k.lower(): x for k, x in headers.items()}


def judge(headers: dict, body: bytes) -> dict:
    v = Verdict()
    content_type = lower(headers).get("content-type", "").lower()
    sdk_body: bytes | None = body
    sdk_headers = dict(headers)
    if content_type.startswith("application/cloudevents-batch+json"):
        v.mode = "batched"
        try:
            events = json.loads(body)
        except ValueError as e:
            v.error(f"a batch is a JSON array: {e}")
            return v.as_dict()
        if not isinstance(events, list):
            v.error("a batch is a JSON array")
            return v.as_dict()
        for n, event in enumerate(events):
            one = judge({"content-type": "application/cloudevents+json"}, json.dumps(event).encode())
            v.errors += [f"[{n}] {e}" for e in one["errors"]]
            v.warnings += [f"[{n}] {w}" for w in one["warnings"]]
        return v.as_dict()
    if content_type.startswith("application/cloudevents"):
        v.mode = "structured"
        if not content_type.startswith("application/cloudevents+json"):
            v.error(f"structured mode in a format this judge does not read: {content_type!r}")
            return v.as_dict()
        sdk_body = check_structured(body, v)
        # The body is the event: ce- headers beside it are not read.
        sdk_headers = {k: x for k, x in headers.items() if not k.lower().startswith("ce-")}
    elif any(k.lower().startswith("ce-") for k in headers):
        v.mode = "binary"
        check_binary(headers, v)
    else:
        v.error("neither a structured-mode Content-Type nor ce- headers: not a CloudEvents message")
        return v.as_dict()
    if sdk_body is not None:
        try:
            from_http(HTTPMessage(headers=sdk_headers, body=sdk_body), JSONFormat())
        except Exception as e:  # noqa: BLE001 (any refusal of the SDK is the verdict)
            v.error(f"the CloudEvents SDK refuses the message: {type(e).__name__}: {e}")
    return v.as_dict()


def selftest() -> int:
    structured = {"content-type": "application/cloudevents+json; charset=utf-8"}
    relay_like = {
        "specversion": "1.0",
        "id": "evt_01JF3Z6Q5X",
        "source": "https://relay.test/consumers/acme",
        "type": "com.example.invoice.paid",
        "subject": "inv_123",
        "time": "2026-01-02T03:04:05.678Z",
        "datacontenttype": "application/json",
        "dataschema": "https://relay.test/schemas/com.example.invoice.paid/1",
        "seq": 42,
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "environment": "live",
        "data": {"id": "inv_123", "amount": 100},
    }
    binary = {
        "ce-specversion": "1.0",
        "ce-id": "A-1",
        "ce-source": "/orders",
        "ce-type": "com.example.order.shipped",
        "ce-time": "2026-01-02T03:04:05Z",
        "content-type": "application/json",
    }
    without = lambda d, k: {x: y for x, y in d.items() if x != k}  # noqa: E731
    cases = [
        ("a Relay-shaped structured event", structured, relay_like, True),
        ("a relative source and no optional attributes", structured,
         {"specversion": "1.0", "id": "1", "source": "/x", "type": "t"}, True),
        ("data_base64 instead of data", structured,
         {**without(relay_like, "data"), "datacontenttype": "application/octet-stream", "data_base64": "AAEC"}, True),
        ("a null subject is an absent one", structured, {**relay_like, "subject": None}, True),
        ("a batch of two", {"content-type": "application/cloudevents-batch+json"}, [relay_like, relay_like], True),
        ("binary mode", binary, b'{"a":1}', True),
        ("binary mode, percent-encoded UTF-8 subject", {**binary, "ce-subject": "caf%C3%A9%20au%20lait"}, b"{}", True),
        ("a long extension name warns only", structured, {**relay_like, "averyveryverylongname": "x"}, True),
        ("NEG no id", structured, without(relay_like, "id"), False),
        ("NEG no source", structured, without(relay_like, "source"), False),
        ("NEG specversion 0.3", structured, {**relay_like, "specversion": "0.3"}, False),
        ("NEG an empty type", structured, {**relay_like, "type": ""}, False),
        ("NEG an upper-case attribute name", structured, {**relay_like, "tenantId": "x"}, False),
        ("NEG data and data_base64", structured, {**relay_like, "data_base64": "AAEC"}, False),
        ("NEG a time that is not RFC 3339", structured, {**relay_like, "time": "2026-01-02 03:04"}, False),
        ("NEG a relative dataschema", structured, {**relay_like, "dataschema": "/schemas/1"}, False),
        ("NEG a source that is no URI-reference", structured, {**relay_like, "source": "a b"}, False),
        ("NEG a control character in subject", structured, {**relay_like, "subject": "inv\n123"}, False),
        ("NEG an object as an extension value", structured, {**relay_like, "ext": {"a": 1}}, False),
        ("NEG an integer past 32 bits", structured, {**relay_like, "seq": 2**31}, False),
        ("NEG a fractional number", structured, {**relay_like, "seq": 1.5}, False),
        ("NEG an upper-case traceparent", structured,
         {**relay_like, "traceparent": relay_like["traceparent"].upper()}, False),
        ("NEG tracestate without traceparent", structured,
         {**without(relay_like, "traceparent"), "tracestate": "a=1"}, False),
        ("NEG a body that is not JSON", structured, b"{not json", False),
        ("NEG a batch that is no array", {"content-type": "application/cloudevents-batch+json"}, relay_like, False),
        ("NEG binary mode without ce-id", without(binary, "ce-id"), b"{}", False),
        ("NEG binary mode with ce-datacontenttype", {**binary, "ce-datacontenttype": "application/json"}, b"{}", False),
        ("NEG binary mode, an unencoded space", {**binary, "ce-subject": "a b"}, b"{}", False),
        ("NEG binary mode, encoded bytes that are not UTF-8", {**binary, "ce-subject": "%C0%AF"}, b"{}", False),
        ("NEG plain JSON, no CloudEvents at all", {"content-type": "application/json"}, b"{}", False),
    ]
    failed = 0
    for name, headers, body, expected in cases:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        verdict = judge(headers, raw)
        good = verdict["ok"] == expected
        failed += not good
        detail = (verdict["errors"] or verdict["warnings"] or [""])[0]
        print(f"{'ok  ' if good else 'FAIL'} {name}" + (f" ({detail[:100]})" if detail else ""))
    print(f"ce_validate: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv == ["--selftest"]:
        return selftest()
    if len(argv) == 2 and argv[0] == "--structured":
        verdict = judge({"content-type": "application/cloudevents+json"}, pathlib.Path(argv[1]).read_bytes())
    elif len(argv) == 1:
        text = sys.stdin.read() if argv[0] == "-" else pathlib.Path(argv[0]).read_text(encoding="utf-8")
        request = json.loads(text)
        if "body_b64" in request:
            body = base64.b64decode(request["body_b64"], validate=True)
        else:
            body = request.get("body", "").encode("utf-8")
        verdict = judge(request["headers"], body)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(verdict, indent=1, ensure_ascii=False))
    return 0 if verdict["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
