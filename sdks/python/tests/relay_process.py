"""A real `relay serve` for the end-to-end tests, and an HTTPS receiver it
delivers to (a test CA made here, trusted by Relay through
RELAY_OUTBOUND__EXTRA_CA_CERTS; loopback allowed on the receiver's port only).

The binary is $RELAY_TEST_RELAY_BIN, or built with
`cargo build -q --locked -p relay` into $CARGO_TARGET_DIR (default target/).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import pathlib
import queue
import ssl
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

REPO = pathlib.Path(__file__).resolve().parents[3]


def relay_binary() -> pathlib.Path:
    given = os.environ.get("RELAY_TEST_RELAY_BIN")
    if given:
        return pathlib.Path(given)
    subprocess.run(["cargo", "build", "-q", "--locked", "-p", "relay"], cwd=REPO, check=True)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    return target / "debug" / "relay"


def _cert(dir: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """A CA and a leaf for 127.0.0.1 it signed: (ca.pem, leaf.pem, leaf.key)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "relay-sdk test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    paths = (dir / "ca.pem", dir / "leaf.pem", dir / "leaf.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


class Receiver:
    """An HTTPS server that answers 204 and queues (headers, raw body)."""

    def __init__(self, dir: pathlib.Path) -> None:
        self.ca, leaf, key = _cert(dir)
        self.received: queue.Queue[tuple[dict[str, str], bytes]] = queue.Queue()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                received.put(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(leaf, key)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}/webhooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RelayServer:
    """`relay serve` on a free loopback port with a SQLite temp directory."""

    OPERATOR = "rop_sdk_python_7c1e9a3b5d0f2e4a6c8b"

    def __init__(self, dir: pathlib.Path, receiver: Receiver) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_") or k.startswith("RELAY_TEST_")}
        env.update(
            RELAY_OPERATOR_TOKEN=self.OPERATOR,
            RELAY_OUTBOUND__ALLOW_CIDRS="127.0.0.1/32",
            RELAY_OUTBOUND__ALLOW_PORTS=str(receiver.port),
            RELAY_OUTBOUND__EXTRA_CA_CERTS=str(receiver.ca),
            RELAY_LOG="warn",
        )
        self.log = open(dir / "relay.log", "wb")
        self.process = subprocess.Popen(
            [str(relay_binary()), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(dir / "data")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.url = ""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("Relay listening on "):
                self.url = line[len("Relay listening on ") :].split()[0]
                break
        if not self.url:
            self.close()
            raise RuntimeError("relay serve did not start: " + (dir / "relay.log").read_text())
        # Keep draining stdout so Relay never blocks on a full pipe.
        self.drain = threading.Thread(target=self.process.stdout.read, daemon=True)
        self.drain.start()

    def operator(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method=method
        )
        request.add_header("Authorization", "Bearer " + self.OPERATOR)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def api_key(self) -> str:
        """A live API key of a new tenant (the operator's part, not the SDK's)."""
        tenant = self.operator("POST", "/v1/tenants", {"name": "acme"})
        return self.operator("POST", f"/v1/tenants/{tenant['id']}/api-keys", {"environment": "live"})["key"]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        if hasattr(self, "drain"):
            self.drain.join(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()
