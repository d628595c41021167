#!/usr/bin/env python3
"""AWS's link-local credential services, for the tests: EC2's instance
metadata service (IMDSv2 only, as an instance with `HttpTokens: required`
serves it) and the container credentials endpoint of ECS task roles and
EKS Pod Identity, on one loopback port, serving the credentials given.

    aws_metadata_judge.py --port P --credentials CREDS.json [--role NAME]
        [--container-path /v1/credentials] [--container-token-file FILE]
        [--log FILE]
    aws_metadata_judge.py --selftest

- `PUT /latest/api/token` needs `X-aws-ec2-metadata-token-ttl-seconds`
  between 1 and 21600 (else 400) and no `X-Forwarded-For` (else 403, as
  IMDS refuses requests that went through a proxy); it answers a fresh
  session token.
- `GET /latest/meta-data/iam/security-credentials/` and `…/<role>` need
  `X-aws-ec2-metadata-token` naming a token it issued (else 401: IMDSv1
  is off); they answer the role's name and the credentials document
  (`Code`, `LastUpdated`, `Type`, `AccessKeyId`, `SecretAccessKey`,
  `Token`, `Expiration`).
- `GET <container path>` needs `Authorization` equal to the contents of
  the token file, when one is given (else 401), and answers
  `AccessKeyId`, `SecretAccessKey`, `Token`, `Expiration`, `RoleArn`.
- Each request is appended to the log as a JSON line: method, path,
  whether it carried a session token or an authorization (never their
  values).

CREDS.json: {"AccessKeyId": ..., "SecretAccessKey": ..., "Token": ... or
null, "Expiration": RFC 3339}; read at every request, so a test can
rotate them.

`--selftest` starts the judge and fetches from it with botocore's own
fetchers (`InstanceMetadataFetcher`, `ContainerMetadataFetcher`): the
judge speaks the contract AWS's SDK speaks.
"""
import argparse
import json
import os
import secrets
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROLE = "relay-node"


class Judge:
    def __init__(self, credentials, role, container_path, token_file, log):
        self.credentials = credentials
        self.role = role
        self.container_path = container_path
        self.token_file = token_file
        self.log = log
        self.tokens = set()
        self.lock = threading.Lock()

    def record(self, entry):
        if self.log:
            with self.lock, open(self.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def document(self):
        with open(self.credentials) as f:
            return json.load(f)

    def handler(self):
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, code, body, content_type="text/plain"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(code)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def note(self):
                judge.record({
                    "method": self.command,
                    "path": self.path,
                    "session_token": "x-aws-ec2-metadata-token" in self.headers,
                    "authorization": "authorization" in self.headers,
                })

            def do_PUT(self):
                self.note()
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                if self.path != "/latest/api/token":
                    return self.answer(404, "Not Found")
                if "x-forwarded-for" in self.headers:
                    return self.answer(403, "Forbidden")
                ttl = self.headers.get("x-aws-ec2-metadata-token-ttl-seconds", "")
                if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                    return self.answer(400, "Bad Request")
                token = secrets.token_urlsafe(32)
                with judge.lock:
                    judge.tokens.add(token)
                self.answer(200, token)

            def do_GET(self):
                self.note()
                if self.path == judge.container_path:
                    return self.container()
                prefix = "/latest/meta-data/iam/security-credentials/"
                if not self.path.startswith(prefix):
                    return self.answer(404, "Not Found")
                with judge.lock:
                    known = self.headers.get("x-aws-ec2-metadata-token") in judge.tokens
                if not known:
                    return self.answer(401, "Unauthorized")
                name = self.path[len(prefix):]
                if name == "":
                    return self.answer(200, judge.role)
                if name != judge.role:
                    return self.answer(404, "Not Found")
                d = judge.document()
                body = {
                    "Code": "Success",
                    "LastUpdated": "2026-01-01T00:00:00Z",
                    "Type": "AWS-HMAC",
                    "AccessKeyId": d["AccessKeyId"],
                    "SecretAccessKey": d["SecretAccessKey"],
                    "Token": d.get("Token") or "",
                    "Expiration": d["Expiration"],
                }
                self.answer(200, json.dumps(body), "text/plain")

            def container(self):
                if judge.token_file:
                    with open(judge.token_file) as f:
                        expected = f.read().strip()
                    if self.headers.get("authorization") != expected:
                        return self.answer(401, json.dumps({"message": "unauthorized"}), "application/json")
                d = judge.document()
                body = {
                    "AccessKeyId": d["AccessKeyId"],
                    "SecretAccessKey": d["SecretAccessKey"],
                    "Token": d.get("Token"),
                    "Expiration": d["Expiration"],
                    "RoleArn": "arn:aws:iam::123456789012:role/relay-node",
                }
                self.answer(200, json.dumps(body), "application/json")

        return Handler


def start(args):
    judge = Judge(args.credentials, args.role, args.container_path,
                  args.container_token_file, args.log)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), judge.handler())
    server.daemon_threads = True
    return server


def selftest():
    from botocore.utils import ContainerMetadataFetcher, InstanceMetadataFetcher

    d = tempfile.mkdtemp()
    creds = os.path.join(d, "creds.json")
    token_file = os.path.join(d, "token")
    with open(creds, "w") as f:
        json.dump({"AccessKeyId": "AKIASELFTEST", "SecretAccessKey": "selftest-secret",
                   "Token": "selftest-session", "Expiration": "2099-01-01T00:00:00Z"}, f)
    with open(token_file, "w") as f:
        f.write("pod-identity-token\n")
    args = argparse.Namespace(port=0, credentials=creds, role=ROLE,
                              container_path="/v1/credentials",
                              container_token_file=token_file, log=None)
    server = start(args)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    checks = []

    def check(name, fn):
        try:
            fn()
            checks.append(True)
        except Exception as e:  # a wrong verdict, whatever raised it
            checks.append(False)
            print(f"wrong verdict: {name}: {e!r}", file=sys.stderr)

    def imds():
        got = InstanceMetadataFetcher(timeout=2, num_attempts=1,
                                      base_url=f"http://127.0.0.1:{port}/").retrieve_iam_role_credentials()
        assert got.get("access_key") == "AKIASELFTEST", got
        assert got.get("token") == "selftest-session", got
        assert got.get("role_name") == ROLE, got

    container = ContainerMetadataFetcher(sleep=lambda _: None)

    def pod_identity():
        got = container.retrieve_full_uri(f"http://127.0.0.1:{port}/v1/credentials",
                                          headers={"Authorization": "pod-identity-token"})
        assert got["AccessKeyId"] == "AKIASELFTEST", got

    def wrong_token_refused():
        try:
            container.retrieve_full_uri(f"http://127.0.0.1:{port}/v1/credentials",
                                        headers={"Authorization": "wrong"})
        except Exception:
            return
        raise AssertionError("a wrong token was accepted")

    def imdsv1_refused():
        import urllib.error
        import urllib.request
        url = f"http://127.0.0.1:{port}/latest/meta-data/iam/security-credentials/"
        try:
            urllib.request.urlopen(url, timeout=2)
        except urllib.error.HTTPError as e:
            assert e.code == 401, e.code
            return
        raise AssertionError("IMDSv1 answered")

    check("botocore's IMDSv2 fetcher", imds)
    check("botocore's container fetcher with the token", pod_identity)
    check("a wrong container token", wrong_token_refused)
    check("a GET without a session token (IMDSv1)", imdsv1_refused)
    server.shutdown()
    passed = sum(checks)
    print(f"{passed} passed, {len(checks) - passed} failed")
    return 0 if all(checks) else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--selftest", action="store_true")
    p.add_argument("--port", type=int)
    p.add_argument("--credentials")
    p.add_argument("--role", default=ROLE)
    p.add_argument("--container-path", default="/v1/credentials")
    p.add_argument("--container-token-file")
    p.add_argument("--log")
    args = p.parse_args()
    if args.selftest:
        return selftest()
    server = start(args)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
