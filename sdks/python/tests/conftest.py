"""Shared helpers: the vector files and a signer for fresh requests."""

from __future__ import annotations

import base64
import json
import pathlib
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

REPO = pathlib.Path(__file__).resolve().parents[3]
RELAY_VECTORS = REPO / "sdks" / "vectors.json"
STANDARD_VECTORS = REPO / "testdata" / "standard-webhooks.json"


def load(path: pathlib.Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="session")
def relay_vectors() -> dict:
    return load(RELAY_VECTORS)


@pytest.fixture(scope="session")
def standard_vectors() -> dict:
    return load(STANDARD_VECTORS)


class Signer:
    """Signs like Relay, with the vectors' `ed_a` test key (v1a)."""

    def __init__(self, vectors: dict) -> None:
        pair = vectors["signing_keys"]["ed_a"]
        raw = base64.b64decode(pair["signing_key"][len("whsk_") :])
        self.key = Ed25519PrivateKey.from_private_bytes(raw[:32])
        self.public = pair["verification_key"]
        self.other_public = vectors["signing_keys"]["ed_b"]["verification_key"]

    def headers(self, webhook_id: str, body: bytes, ts: int | None = None) -> dict:
        ts = int(time.time()) if ts is None else ts
        content = f"{webhook_id}.{ts}.".encode() + body
        sig = base64.b64encode(self.key.sign(content)).decode()
        return {
            "webhook-id": webhook_id,
            "webhook-timestamp": str(ts),
            "webhook-signature": f"v1a,{sig}",
        }


@pytest.fixture(scope="session")
def signer(relay_vectors: dict) -> Signer:
    return Signer(relay_vectors)
