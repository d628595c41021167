"""A small OTLP/HTTP traces receiver for Relay's telemetry test.

It decodes what Relay exports with PyPI's `opentelemetry-proto` (the
OpenTelemetry project's generated protobuf classes, independent of Relay's
hand-written encoder) and keeps every span it received.

    python receiver.py            # prints "listening on <port>", then serves

- `POST /v1/traces` with `Content-Type: application/x-protobuf`: an
  `ExportTraceServiceRequest`; answers an empty `ExportTraceServiceResponse`
  (200). A body that does not decode, or another content type, is 400 and
  counted in `/spans`' `rejected`.
- `GET /spans`: JSON `{"spans": [...], "rejected": n}`, each span with hex
  ids, its attributes as a dict, its links, status, flags, kind and the
  resource's and scope's attributes.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

LOCK = threading.Lock()
SPANS = []
REJECTED = []


def any_value(v):
    kind = v.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, kind)


def attrs(kvs):
    out = {}
    for kv in kvs:
        if kv.key in out:
            raise ValueError(f"attribute {kv.key} twice")
        out[kv.key] = any_value(kv.value)
    return out


def decode(body):
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for rs in request.resource_spans:
        resource = attrs(rs.resource.attributes)
        for ss in rs.scope_spans:
            for s in ss.spans:
                spans.append(
                    {
                        "trace_id": s.trace_id.hex(),
                        "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(),
                        "name": s.name,
                        "kind": s.kind,
                        "start_time_unix_nano": s.start_time_unix_nano,
                        "end_time_unix_nano": s.end_time_unix_nano,
                        "attributes": attrs(s.attributes),
                        "links": [
                            {
                                "trace_id": l.trace_id.hex(),
                                "span_id": l.span_id.hex(),
                                "attributes": attrs(l.attributes),
                                "flags": l.flags,
                            }
                            for l in s.links
                        ],
                        "status": {"code": s.status.code, "message": s.status.message},
                        "flags": s.flags,
                        "resource": resource,
                        "scope": {"name": ss.scope.name, "version": ss.scope.version},
                    }
                )
    return spans


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path != "/v1/traces":
            self.answer(404, b"", "text/plain")
            return
        if self.headers.get("Content-Type") != "application/x-protobuf":
            with LOCK:
                REJECTED.append("content type " + str(self.headers.get("Content-Type")))
            self.answer(400, b"", "text/plain")
            return
        try:
            spans = decode(body)
        except (DecodeError, ValueError) as e:
            with LOCK:
                REJECTED.append(str(e))
            self.answer(400, b"", "text/plain")
            return
        with LOCK:
            SPANS.extend(spans)
        response = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.answer(200, response, "application/x-protobuf")

    def do_GET(self):
        if self.path != "/spans":
            self.answer(404, b"", "text/plain")
            return
        with LOCK:
            body = json.dumps({"spans": SPANS, "rejected": REJECTED}).encode()
        self.answer(200, body, "application/json")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    # Ends with the test: it closes our stdin (or kills us).
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
