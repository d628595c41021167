"""A local fake of Relay's API: answers a script of responses and records
every request (method, path, query, headers, JSON body)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeRelay:
    def __init__(self) -> None:
        self.responses: list[tuple[int, dict[str, str], Any]] = []
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": json.loads(raw) if raw else None,
                    }
                )
                status, headers, body = fake.responses.pop(0)
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                problem = status >= 400
                self.send_header(
                    "content-type", "application/problem+json" if problem else "application/json"
                )
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status: int, body: Any = None, **headers: str) -> None:
        self.responses.append((status, {k.replace("_", "-"): v for k, v in headers.items()}, body))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
