#!/usr/bin/env python3
"""Google Cloud Pub/Sub's front door, for the tests: the Pub/Sub emulator
speaks plain HTTP and ignores authentication, so this server stands in
front of it as Google does, with TLS and the service-account sign-in, and
judges what Relay sends with Google's own library (PyPI `google-auth`):

    pubsub_front.py --port P --cert CERT --key KEY --upstream http://127.0.0.1:E \
        --accounts ACCOUNTS.json --token-url URL [--lifetime SECONDS] [--issued FILE] \
        [--metadata-port M --metadata-account EMAIL]
    pubsub_front.py --selftest

- `POST /token` is the token endpoint (RFC 7523's JWT bearer grant, as
  Google's `oauth2.googleapis.com/token`): the assertion is verified with
  `google.auth.jwt.decode` against the public key of the account whose key
  id (`kid`) it names, its audience must be the token URL, its issuer the
  account and its scope Pub/Sub's. A valid one gets a fresh random access
  token (`expires_in` the lifetime), appended to FILE so the tests can look
  for it where it must not be; any other, `400 invalid_grant`.
- Every other request must carry `Authorization: Bearer <a token it
  issued and that has not expired>`, else `401 UNAUTHENTICATED`; a publish
  to a topic the account is not granted is `403 PERMISSION_DENIED` (as
  IAM does); the rest is passed to the emulator and its answer returned.
- SIGUSR1 forgets every token issued (a revoked token: Relay must fetch a
  new one and publish again).
- With `--metadata-port`, the metadata server of a Compute Engine VM or a
  GKE pod with Workload Identity, in plain HTTP on that port as Google's
  is at 169.254.169.254: `GET
  /computeMetadata/v1/instance/service-accounts/default/token` needs
  `Metadata-Flavor: Google` and no `X-Forwarded-For` (else 403, as the
  real one refuses), and `scopes`, when given, must include Pub/Sub's or
  `cloud-platform`; it answers a token of EMAIL's (the same tokens the
  front then accepts) with `Metadata-Flavor: Google`. Each request is
  appended to `<issued>.metadata` as `GET <path>`.

ACCOUNTS.json: {"<client_email>": {"kid": "...", "public_key": "<PEM>",
"topics": ["projects/p/topics/t", ...]}}.
"""
import argparse
import json
import secrets
import signal
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.auth import jwt

SCOPE = "https://www.googleapis.com/auth/pubsub"
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def judge_assertion(assertion, accounts, token_url):
    """The account's email when the assertion is valid, else raises
    ValueError saying why."""
    header = jwt.decode_header(assertion)
    kid = header.get("kid")
    certs = {a["kid"]: a["public_key"] for a in accounts.values() if a.get("kid")}
    if kid not in certs:
        raise ValueError("unknown key id")
    if header.get("alg") != "RS256":
        raise ValueError("not RS256")
    claims = jwt.decode(assertion, certs=certs, audience=token_url)
    email = claims.get("iss")
    account = accounts.get(email)
    if account is None or account.get("kid") != kid:
        raise ValueError("the key is not the issuer's")
    if SCOPE not in str(claims.get("scope", "")).split():
        raise ValueError("no Pub/Sub scope")
    if int(claims["exp"]) - int(claims["iat"]) > 3600:
        raise ValueError("an assertion lives at most an hour")
    return email


CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token"


def google_error(code, status, message):
    return code, {"error": {"code": code, "message": message, "status": status}}


class Front:
    def __init__(self, accounts, upstream, token_url, lifetime, issued_file):
        self.accounts = accounts
        self.upstream = upstream.rstrip("/")
        self.token_url = token_url
        self.lifetime = lifetime
        self.issued_file = issued_file
        self.tokens = {}
        self.lock = threading.Lock()

    def forget(self, *_):
        with self.lock:
            self.tokens.clear()

    def token(self, form):
        if form.get("grant_type") != GRANT:
            return 400, {"error": "unsupported_grant_type"}
        try:
            email = judge_assertion(form.get("assertion", ""), self.accounts, self.token_url)
        except Exception as e:  # google-auth raises ValueError and its own errors
            return 400, {"error": "invalid_grant", "error_description": f"Invalid JWT: {type(e).__name__}"}
        token = self.issue(email)
        return 200, {"access_token": token, "expires_in": self.lifetime, "token_type": "Bearer"}

    def issue(self, email):
        token = "ya29." + secrets.token_urlsafe(32)
        with self.lock:
            self.tokens[token] = (email, time.time() + self.lifetime)
        if self.issued_file:
            with open(self.issued_file, "a") as f:
                f.write(token + "\n")
        return token

    def metadata_handler(self, email):
        front = self

        class Metadata(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, code, body, content_type="application/json"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(code)
                self.send_header("metadata-flavor", "Google")
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if front.issued_file:
                    with open(front.issued_file + ".metadata", "a") as f:
                        f.write(f"GET {self.path}\n")
                parts = urllib.parse.urlsplit(self.path)
                if self.headers.get("metadata-flavor") != "Google" or "x-forwarded-for" in self.headers:
                    return self.answer(403, "Missing required header: Metadata-Flavor", "text/html")
                if parts.path != TOKEN_PATH:
                    return self.answer(404, "Not Found", "text/html")
                scopes = urllib.parse.parse_qs(parts.query).get("scopes")
                if scopes:
                    asked = ",".join(scopes).split(",")
                    if SCOPE not in asked and CLOUD_PLATFORM not in asked:
                        return self.answer(400, "the scopes do not include Pub/Sub's", "text/html")
                token = front.issue(email)
                self.answer(200, json.dumps(
                    {"access_token": token, "expires_in": front.lifetime, "token_type": "Bearer"}))

        return Metadata

    def account_of(self, authorization):
        if not authorization or not authorization.startswith("Bearer "):
            return None
        with self.lock:
            found = self.tokens.get(authorization[len("Bearer "):])
        if found is None or found[1] < time.time():
            return None
        return found[0]

    def handler(self):
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                path = urllib.parse.urlsplit(self.path).path
                if path == urllib.parse.urlsplit(front.token_url).path:
                    form = dict(urllib.parse.parse_qsl(body.decode("ascii", "replace")))
                    return self.answer(*front.token(form))
                email = front.account_of(self.headers.get("authorization"))
                if email is None:
                    return self.answer(*google_error(
                        401, "UNAUTHENTICATED",
                        "Request had invalid authentication credentials. Expected OAuth 2 access token."))
                if path.endswith(":publish"):
                    topic = path[len("/v1/"):-len(":publish")]
                    if topic not in front.accounts[email].get("topics", []):
                        return self.answer(*google_error(
                            403, "PERMISSION_DENIED", "User not authorized to perform this action."))
                request = urllib.request.Request(
                    front.upstream + self.path, data=body, method="POST",
                    headers={"content-type": self.headers.get("content-type", "application/json")})
                try:
                    with urllib.request.urlopen(request, timeout=30) as r:
                        code, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    code, data = e.code, e.read()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def serve(args):
    with open(args.accounts) as f:
        accounts = json.load(f)
    front = Front(accounts, args.upstream, args.token_url, args.lifetime, args.issued)
    signal.signal(signal.SIGUSR1, front.forget)
    if args.metadata_port:
        if args.metadata_account not in accounts:
            sys.exit("--metadata-account must be one of the accounts")
        metadata = ThreadingHTTPServer(("127.0.0.1", args.metadata_port),
                                       front.metadata_handler(args.metadata_account))
        metadata.daemon_threads = True
        threading.Thread(target=metadata.serve_forever, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), front.handler())
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("listening", flush=True)
    server.serve_forever()


def selftest():
    """Known good and bad assertions, judged."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from google.auth import crypt

    def keypair():
        k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode()
        public = k.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        return pem, public

    url = "https://127.0.0.1:1/token"
    good_pem, good_pub = keypair()
    other_pem, _ = keypair()
    accounts = {"a@p.iam.gserviceaccount.com": {"kid": "k1", "public_key": good_pub, "topics": []}}
    now = int(time.time())

    def assertion(pem, kid="k1", **over):
        claims = {"iss": "a@p.iam.gserviceaccount.com", "scope": SCOPE, "aud": url,
                  "iat": now, "exp": now + 3600}
        claims.update(over)
        return jwt.encode(crypt.RSASigner.from_string(pem, kid), claims).decode()

    cases = [
        ("a valid assertion", assertion(good_pem), True),
        ("signed with another key", assertion(other_pem), False),
        ("another audience", assertion(good_pem, aud="https://elsewhere/token"), False),
        ("expired", assertion(good_pem, iat=now - 7200, exp=now - 3600), False),
        ("no Pub/Sub scope", assertion(good_pem, scope="https://www.googleapis.com/auth/cloud-platform.read-only"), False),
        ("an unknown key id", assertion(good_pem, kid="k2"), False),
        ("another issuer", assertion(good_pem, iss="b@p.iam.gserviceaccount.com"), False),
        ("longer than an hour", assertion(good_pem, exp=now + 7200), False),
    ]
    passed = failed = 0
    for name, a, ok in cases:
        try:
            judge_assertion(a, accounts, url)
            verdict = True
        except Exception:
            verdict = False
        if verdict == ok:
            passed += 1
        else:
            failed += 1
            print(f"wrong verdict: {name}", file=sys.stderr)
    if metadata_selftest():
        passed += 1
    else:
        failed += 1
        print("wrong verdict: the metadata server and google-auth's client", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def metadata_selftest():
    """The metadata server answers google-auth's own Compute Engine client
    (as GKE Workload Identity's and a VM's answer it), and refuses a
    request without `Metadata-Flavor`."""
    email = "a@p.iam.gserviceaccount.com"
    front = Front({email: {}}, "http://127.0.0.1:1", "https://127.0.0.1:1/token", 3599, None)
    server = ThreadingHTTPServer(("127.0.0.1", 0), front.metadata_handler(email))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    import os
    os.environ["GCE_METADATA_HOST"] = f"127.0.0.1:{server.server_address[1]}"
    from google.auth.compute_engine import _metadata
    from google.auth.transport.requests import Request
    token, _expiry = _metadata.get_service_account_token(Request(), scopes=[SCOPE])
    ok = front.account_of("Bearer " + token) == email
    bare = urllib.request.Request(f"http://{os.environ['GCE_METADATA_HOST']}{TOKEN_PATH}")
    try:
        urllib.request.urlopen(bare, timeout=5)
        ok = False
    except urllib.error.HTTPError as e:
        ok = ok and e.code == 403
    server.shutdown()
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--selftest", action="store_true")
    p.add_argument("--port", type=int)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--upstream")
    p.add_argument("--accounts")
    p.add_argument("--token-url")
    p.add_argument("--lifetime", type=int, default=3599)
    p.add_argument("--issued")
    p.add_argument("--metadata-port", type=int)
    p.add_argument("--metadata-account")
    args = p.parse_args()
    if args.selftest:
        sys.exit(selftest())
    serve(args)


if __name__ == "__main__":
    main()
