#!/usr/bin/env python3
"""Azure Service Bus's REST send, judged: no Service Bus emulator runs
here, so this HTTPS server implements the documented contract of
`POST https://{namespace}/{entity}/messages` and judges what Relay sends
(Relay's tests run against it, not against the service):

    servicebus_judge.py --port P --cert CERT --key KEY --config CONFIG.json \
        --state STATE.json --messages MESSAGES.jsonl
    servicebus_judge.py --selftest

- Authorization `SharedAccessSignature sr=…&sig=…&se=…&skn=…`: the rule
  `skn` must be a known one; the signature is recomputed from its key
  (HMAC-SHA256 over the token's `sr` as sent, a newline and `se`, base64:
  Microsoft's documented scheme) and compared; `se` must be in the future
  by this machine's clock; the resource `sr` names must cover the request's
  URL. Anything else is `401`.
- Authorization `Bearer <token>` (Entra ID), when CONFIG allows bearer
  tokens: any token not revoked in STATE is taken (the test checks it is
  one its token endpoint issued); a revoked one is `401`.
- The entity must exist (CONFIG's `entities`, less STATE's `deleted`):
  else `404` with Service Bus's XML error.
- `BrokerProperties` is a JSON object of the documented broker properties
  only; `MessageId` and `SessionId` at most 128 characters; a `SessionId`
  on an entity without sessions, or none on one with them, is `400`.
- The message (body, broker properties and user properties) larger than the
  entity's `max_message_bytes` is `413`.
- STATE's `mode`: `accept` (201, the message appended to MESSAGES as one
  JSON line before the answer), `busy` (503 ServerBusy, with `Retry-After`
  when STATE has `retry_after`).
- Every header that is not HTTP's or Service Bus's own is a user property;
  its value is read as Service Bus answers them: a JSON string when quoted.

CONFIG: {"keys": {"<rule>": "<key>"}, "bearer": true|false,
"entities": {"<name>": {"sessions": bool, "max_message_bytes": n}}}.
STATE (read at every request; the test replaces it whole): {"mode":
"accept"|"busy", "deleted": [...], "revoked": [...], "retry_after": n}.

The self-test signs tokens with the official Python SDK's generator
(PyPI `azure-servicebus`, `azure.servicebus._pyamqp.utils.generate_sas_token`)
and checks the judge accepts them and refuses forged, expired, foreign and
unknown-rule ones.
"""
import argparse
import base64
import hashlib
import hmac
import json
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BROKER_PROPERTIES = {
    "CorrelationId", "ForcePersistence", "Label", "MessageId", "PartitionKey", "ReplyTo",
    "ReplyToSessionId", "ScheduledEnqueueTimeUtc", "SessionId", "TimeToLive", "To",
    "ViaPartitionKey",
}
# Headers that are HTTP's or the send's own, not user properties.
NOT_PROPERTIES = {
    "host", "content-length", "content-type", "authorization", "brokerproperties", "connection",
    "accept", "accept-encoding", "user-agent", "transfer-encoding", "te", "expect",
}


def judge_sas(authorization, keys, url, now=None):
    """The rule's name when `authorization` is a valid SAS token for `url`,
    else raises ValueError saying why."""
    prefix = "SharedAccessSignature "
    if not authorization.startswith(prefix):
        raise ValueError("not a SAS token")
    raw = {}
    for part in authorization[len(prefix):].split("&"):
        name, sep, value = part.partition("=")
        if not sep or name in raw:
            raise ValueError("a malformed token")
        raw[name] = value
    if set(raw) != {"sr", "sig", "se", "skn"}:
        raise ValueError("a token has sr, sig, se and skn")
    rule = urllib.parse.unquote_plus(raw["skn"])
    if rule not in keys:
        raise ValueError("an unknown rule")
    expected = base64.b64encode(hmac.new(
        keys[rule].encode("utf-8"), (raw["sr"] + "\n" + raw["se"]).encode("utf-8"),
        hashlib.sha256).digest()).decode()
    if not hmac.compare_digest(expected, urllib.parse.unquote_plus(raw["sig"])):
        raise ValueError("the signature is not the key's")
    if int(raw["se"]) <= (time.time() if now is None else now):
        raise ValueError("the token expired")
    resource = urllib.parse.unquote_plus(raw["sr"]).lower().rstrip("/")
    target = url.lower()
    if not (target == resource or target.startswith(resource + "/")):
        raise ValueError("the token is for another resource")
    return rule


def error(code, detail):
    body = f"<Error><Code>{code}</Code><Detail>{detail}</Detail></Error>".encode()
    return code, body


def property_value(raw):
    if len(raw) >= 2 and raw.startswith('"') and raw.endswith('"'):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


class Judge:
    def __init__(self, config, state_file, messages_file):
        self.config = config
        self.state_file = state_file
        self.messages_file = messages_file
        self.lock = threading.Lock()

    def state(self):
        try:
            with open(self.state_file) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def send(self, path, headers, body):
        """(status, extra headers, body) for one send."""
        state = self.state()
        parsed = urllib.parse.urlsplit(path)
        if not parsed.path.endswith("/messages"):
            return 405, {}, b""
        entity = urllib.parse.unquote(parsed.path[1:-len("/messages")])
        url = f"https://{headers.get('host', '')}/{entity}"
        authorization = headers.get("authorization", "")
        auth = {"kind": None, "bearer": None, "rule": None}
        if authorization.startswith("Bearer ") and self.config.get("bearer"):
            token = authorization[len("Bearer "):]
            if token in state.get("revoked", []):
                status, b = error(401, "ExpiredToken: the token is revoked. TrackingId:judge")
                return status, {}, b
            auth.update(kind="entra", bearer=token)
        else:
            try:
                auth.update(kind="sas", rule=judge_sas(authorization, self.config.get("keys", {}), url))
            except ValueError as e:
                status, b = error(401, f"InvalidSignature: {e}. TrackingId:judge")
                return status, {}, b
        entities = self.config.get("entities", {})
        if entity not in entities or entity in state.get("deleted", []):
            status, b = error(404, f"The messaging entity '{url}' could not be found. TrackingId:judge")
            return status, {}, b
        spec = entities[entity]
        try:
            broker = json.loads(headers.get("brokerproperties") or "{}")
        except ValueError:
            broker = None
        if not isinstance(broker, dict) or set(broker) - BROKER_PROPERTIES:
            status, b = error(400, "BrokerProperties is a JSON object of broker properties.")
            return status, {}, b
        for name in ("MessageId", "SessionId"):
            v = broker.get(name)
            if v is not None and (not isinstance(v, str) or not v or len(v) > 128):
                status, b = error(400, f"{name} is 1 to 128 characters.")
                return status, {}, b
        if spec.get("sessions") and "SessionId" not in broker:
            status, b = error(400, "The SessionId was not set on a message, and it cannot be sent to the entity. Entities that have session support enabled can only receive messages that have the SessionId set.")
            return status, {}, b
        if not spec.get("sessions") and "SessionId" in broker:
            status, b = error(400, "A SessionId was set on a message, but the entity does not support sessions.")
            return status, {}, b
        if "content-type" not in headers:
            status, b = error(400, "Content-Type is required.")
            return status, {}, b
        properties = {k: property_value(v) for k, v in headers.items()
                      if k.lower() not in NOT_PROPERTIES and not k.lower().startswith("x-ms-")}
        size = len(body) + len(headers.get("brokerproperties") or "") + sum(
            len(k) + len(v) for k, v in headers.items() if k in properties)
        if size > spec.get("max_message_bytes", 262144):
            status, b = error(413, f"The received message (size:{size} bytes) exceeds the limit currently allowed on the entity.")
            return status, {}, b
        if state.get("mode") == "busy":
            status, b = error(503, "ServerBusy: the request was terminated because the entity is being throttled. Please wait and try again.")
            extra = {"Retry-After": str(state["retry_after"])} if "retry_after" in state else {}
            return status, extra, b
        message = {
            "entity": entity,
            "broker_properties": broker,
            "content_type": headers.get("content-type"),
            "properties": properties,
            "body_b64": base64.b64encode(body).decode(),
            "auth": auth["kind"],
            "rule": auth["rule"],
            "bearer": auth["bearer"],
        }
        with self.lock:
            with open(self.messages_file, "a") as f:
                f.write(json.dumps(message) + "\n")
        return 201, {}, b""

    def handler(self):
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                headers = {}
                for k, v in self.headers.items():
                    headers[k.lower() if k.lower() in NOT_PROPERTIES else k] = v
                status, extra, data = judge.send(self.path, headers, body)
                self.send_response(status)
                self.send_header("content-type", "application/xml; charset=utf-8")
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def serve(args):
    with open(args.config) as f:
        config = json.load(f)
    judge = Judge(config, args.state, args.messages)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), judge.handler())
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("listening", flush=True)
    server.serve_forever()


def selftest():
    """The SDK's own tokens accepted; forged, expired, foreign ones refused."""
    from azure.servicebus._pyamqp.utils import generate_sas_token

    keys = {"RootManageSharedAccessKey": "c2VjcmV0LWtleS1mb3ItdGVzdHM9PQ==", "send": "other"}
    url = "https://127.0.0.1:8443/orders"
    now = int(time.time())

    def sdk(uri=url, rule="RootManageSharedAccessKey", key=keys["RootManageSharedAccessKey"], se=now + 3600):
        return generate_sas_token(uri, rule, key, se)

    good = sdk()
    forged = good.replace("&se=", "&se=1")  # another expiry than the one signed
    cases = [
        ("the SDK's token for the entity", good, url, True),
        ("the SDK's token for the namespace", sdk(uri="https://127.0.0.1:8443"), url, True),
        ("the SDK's token of another rule", sdk(rule="send", key="other"), url, True),
        ("a token for the entity, sent to a subpath", good, url + "/subscriptions/x", True),
        ("signed with another key", sdk(key="wrong"), url, False),
        ("an unknown rule", sdk(rule="nobody", key="x"), url, False),
        ("expired", sdk(se=now - 1), url, False),
        ("its expiry changed", forged, url, False),
        ("for another entity", sdk(uri="https://127.0.0.1:8443/other"), url, False),
        ("for a prefix of the entity's name", sdk(uri="https://127.0.0.1:8443/ord"), url, False),
        ("not a SAS token", "Bearer x", url, False),
        ("a field missing", good.split("&skn=")[0], url, False),
    ]
    passed = failed = 0
    for name, token, target, ok in cases:
        try:
            judge_sas(token, keys, target)
            verdict = True
        except ValueError:
            verdict = False
        if verdict == ok:
            passed += 1
        else:
            failed += 1
            print(f"wrong verdict: {name}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--selftest", action="store_true")
    p.add_argument("--port", type=int)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--config")
    p.add_argument("--state")
    p.add_argument("--messages")
    args = p.parse_args()
    if args.selftest:
        sys.exit(selftest())
    serve(args)


if __name__ == "__main__":
    main()
