#!/usr/bin/env python3
"""Judges A2A push notifications as the A2A protocol (v1.0) defines them.

Relay's code does not take part: every body is parsed with the types of the
PyPI `a2a-sdk` package (its generated protobuf `StreamResponse`), through
protobuf's own JSON parser with unknown fields refused, then checked with
the SDK's own check of the fields the spec marks REQUIRED. Beside the body,
what the A2A TCK checks of a push delivery (a2aproject/a2a-tck,
PUSH-DELIVER-001..003 and the notification token test), and what Relay adds
to every delivery:

- the body is a `StreamResponse` with exactly one payload, a `statusUpdate`
  or an `artifactUpdate` (the updates Relay sends), of the expected task;
- `content-type` is `application/a2a+json`;
- `Authorization` is exactly `{scheme} {credentials}` of the push config,
  and absent when it has none (PUSH-DELIVER-001);
- `X-A2A-Notification-Token` is exactly the config's token, absent when it
  has none;
- the Standard Webhooks signature verifies with the endpoint's key
  (`swh_judge.py`'s verification);
- with `--ordered`, across the requests in arrival order (retries
  included), each task's updates never go back: the `seq` member of each
  update's `metadata`, which the test numbers in publish order, never
  decreases within a task (an update is not sent before the one before it
  was acknowledged).

    a2a_judge.py --key KEY [--token T] [--authorization V] [--task ID]
                 [--ordered] [--now UNIX] REQUEST [REQUEST ...]
    a2a_judge.py --selftest

REQUEST is a captured request file (`scripts/judges/README.md`). Prints its
verdict as one JSON object (one entry per request, and one for the order);
exits 0 only when all accept, 1 otherwise, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
import time

from google.protobuf import json_format

from a2a.types import StreamResponse
from a2a.utils.proto_utils import validate_proto_required_fields

import swh_judge

CONTENT_TYPE = "application/a2a+json"
TOKEN_HEADER = "x-a2a-notification-token"
UPDATES = ("status_update", "artifact_update")


def parse(body: bytes):
    """The body as the SDK's `StreamResponse`, or why it is not one."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None, "the body is not UTF-8"
    try:
        message = json_format.Parse(text, StreamResponse(), ignore_unknown_fields=False)
    except json_format.ParseError as e:
        return None, f"a2a-sdk's StreamResponse refuses it: {e}"
    try:
        validate_proto_required_fields(message)
    except Exception as e:  # the SDK's InvalidParamsError, with the details
        details = getattr(e, "data", None) or str(e)
        return None, f"a2a-sdk: REQUIRED fields missing or empty: {details}"
    which = message.WhichOneof("payload")
    if which not in UPDATES:
        return None, f"the payload is {which!r}, not a statusUpdate or an artifactUpdate"
    return getattr(message, which), None


def judge_one(headers: dict, body: bytes, args) -> dict:
    h = {k.lower(): v for k, v in headers.items()}
    problems: list[str] = []
    if h.get("content-type") != CONTENT_TYPE:
        problems.append(f"content-type is {h.get('content-type')!r}, not {CONTENT_TYPE}")
    if h.get("authorization") != args.authorization:
        problems.append(
            "Authorization is "
            + ("absent" if "authorization" not in h else "not the config's scheme and credentials")
            + ("" if args.authorization else " (the config has none: it must be absent)")
        )
    if h.get(TOKEN_HEADER) != args.token:
        problems.append(
            "X-A2A-Notification-Token is "
            + ("absent" if TOKEN_HEADER not in h else "not the config's token")
        )
    signature = swh_judge.judge([args.key], headers, body, args.now, swh_judge.LIBRARY_TOLERANCE)[0]
    if not signature.ok:
        problems.append(f"signature: {signature.why}")
    update, why = parse(body)
    verdict = {"webhook_id": h.get("webhook-id"), "ok": False}
    if why:
        problems.append(why)
    else:
        verdict["task_id"] = update.task_id
        verdict["kind"] = "statusUpdate" if update.DESCRIPTOR.name == "TaskStatusUpdateEvent" else "artifactUpdate"
        if args.task is not None and update.task_id != args.task:
            problems.append(f"the update is of task {update.task_id!r}, not {args.task!r}")
        if update.HasField("metadata") and "seq" in update.metadata:
            verdict["seq"] = update.metadata["seq"]
        elif args.ordered:
            problems.append("--ordered: the update has no metadata.seq")
    verdict["ok"] = not problems
    verdict["problems"] = problems
    return verdict


def order_problems(verdicts: list[dict]) -> list[str]:
    """Within each task, `seq` never decreases in arrival order."""
    last: dict[str, float] = {}
    problems = []
    for n, v in enumerate(verdicts):
        if "seq" not in v or "task_id" not in v:
            continue
        task, seq = v["task_id"], v["seq"]
        if task in last and seq < last[task]:
            problems.append(f"request {n}: task {task!r} update {seq} arrived after update {last[task]}")
        last[task] = max(seq, last.get(task, seq))
    return problems


def read(path: str) -> tuple[dict, bytes]:
    request = json.loads(open(path, encoding="utf-8").read())
    if "body_b64" in request:
        return request["headers"], base64.b64decode(request["body_b64"], validate=True)
    return request["headers"], request.get("body", "").encode("utf-8")


def judge_all(requests: list[tuple[dict, bytes]], args) -> tuple[bool, list[dict]]:
    verdicts = [judge_one(h, b, args) for h, b in requests]
    out = list(verdicts)
    ok = all(v["ok"] for v in verdicts) and bool(verdicts)
    if args.ordered:
        problems = order_problems(verdicts)
        out.append({"order": "per task, in arrival order", "ok": not problems, "problems": problems})
        ok = ok and not problems
    return ok, out


# --- self-test -------------------------------------------------------------

SECRET = "whsec_" + base64.b64encode(b"a2a-judge-selftest-key-32-bytes!").decode()
OTHER = "whsec_" + base64.b64encode(b"another-key-of-thirty-two-bytes!").decode()


def status(task="task-1", seq=1, state="TASK_STATE_WORKING", **extra) -> dict:
    update = {"taskId": task, "contextId": "ctx-1", "status": {"state": state}, "metadata": {"seq": seq}}
    update.update(extra)
    return {"statusUpdate": update}


def request(payload, *, key=SECRET, token="tok", authorization="Bearer cred",
            content_type=CONTENT_TYPE, tamper=False, msg_id="evt_1", now=1_800_000_000):
    body = payload if isinstance(payload, str) else json.dumps(payload)
    wh = swh_judge.swh.Webhook(key)
    signed = wh.sign(msg_id, swh_judge.datetime.fromtimestamp(now, tz=swh_judge.timezone.utc), body)
    headers = {"content-type": content_type, "webhook-id": msg_id,
               "webhook-timestamp": str(now), "webhook-signature": signed}
    if token is not None:
        headers["X-A2A-Notification-Token"] = token
    if authorization is not None:
        headers["Authorization"] = authorization
    return headers, (body + (" " if tamper else "")).encode()


def selftest() -> int:
    args = argparse.Namespace(key=SECRET, token="tok", authorization="Bearer cred", task="task-1",
                              ordered=True, now=1_800_000_000)
    artifact = {"artifactUpdate": {"taskId": "task-1", "contextId": "ctx-1", "lastChunk": True,
                                   "artifact": {"artifactId": "a", "parts": [{"text": "hi"}]},
                                   "metadata": {"seq": 2}}}
    good = [
        ("a status update", [request(status())]),
        ("an artifact update", [request(artifact)]),
        ("a retried update, then the next", [request(status(seq=1)), request(status(seq=1)), request(status(seq=2))]),
    ]
    bad = [
        ("the v0.3 `kind` member", [request(status(kind="status-update"))]),
        ("a v0.3 state name", [request(status(state="working"))]),
        ("no contextId (REQUIRED)", [request({"statusUpdate": {"taskId": "task-1", "status": {"state": "TASK_STATE_WORKING"}, "metadata": {"seq": 1}}})]),
        ("no status (REQUIRED)", [request({"statusUpdate": {"taskId": "task-1", "contextId": "c", "metadata": {"seq": 1}}})]),
        ("two payloads", [request({**status(), **artifact})]),
        ("a Task payload", [request({"task": {"id": "task-1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})]),
        ("not JSON", [request("{not json")]),
        ("another task", [request(status(task="task-2"))]),
        ("content-type application/json", [request(status(), content_type="application/json")]),
        ("no token header", [request(status(), token=None)]),
        ("another token", [request(status(), token="tok2")]),
        ("no Authorization", [request(status(), authorization=None)]),
        ("Authorization of another scheme", [request(status(), authorization="Basic cred")]),
        ("a tampered body", [request(status(), tamper=True)]),
        ("signed with another key", [request(status(), key=OTHER)]),
        ("an update going back", [request(status(seq=1)), request(status(seq=2)), request(status(seq=1))]),
        ("no request at all", []),
    ]
    passed = failed = 0
    for name, reqs in good + bad:
        ok, out = judge_all(reqs, args)
        want = (name, reqs) in good
        if ok == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {name}: judged {'ok' if ok else 'bad'}: {json.dumps(out)}")
    # Without a token or Authorization in the config, their headers must be absent.
    bare = argparse.Namespace(key=SECRET, token=None, authorization=None, task=None, ordered=False,
                              now=1_800_000_000)
    for name, reqs, want in [
        ("no token, no Authorization: none sent", [request(status(), token=None, authorization=None)], True),
        ("no token configured but one sent", [request(status(), authorization=None)], False),
    ]:
        ok, out = judge_all(reqs, bare)
        if ok == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {name}: judged {'ok' if ok else 'bad'}: {json.dumps(out)}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main() -> int:
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--key", required=True, help="the endpoint's whsec_ or whpk_ key")
    p.add_argument("--token", help="the push config's token (absent: no header expected)")
    p.add_argument("--authorization", help="the expected Authorization value (absent: none expected)")
    p.add_argument("--task", help="the task every update must be of")
    p.add_argument("--ordered", action="store_true", help="check each task's order (metadata.seq)")
    p.add_argument("--now", type=int, default=int(time.time()))
    p.add_argument("requests", nargs="+")
    args = p.parse_args()
    ok, out = judge_all([read(r) for r in args.requests], args)
    print(json.dumps({"ok": ok, "verdicts": out}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
