"""The README's Flask and FastAPI examples (examples/*.py, shown verbatim in
README.md) verify real signed requests over the raw body."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
BODY = json.dumps({"specversion": "1.0", "id": "evt_1", "type": "order.paid"}).encode()


def load_example(name: str, monkeypatch: pytest.MonkeyPatch, signer) -> object:
    monkeypatch.setenv("RELAY_WEBHOOK_KEYS", f"{signer.public} {signer.other_public}")
    sys.modules.pop(f"examples.{name}", None)
    return importlib.import_module(f"examples.{name}")


def exercise(post, signer) -> None:
    good = signer.headers("evt_1", BODY)
    assert post(BODY.replace(b"evt_1", b"evt_2"), good)[0] == 401
    assert post(BODY, {k: v for k, v in good.items() if k != "webhook-signature"}) == (
        401,
        b"missing_header",
    )
    assert post(BODY, good)[0] == 204
    assert post(BODY, good)[0] == 200  # a replay: acknowledged, not processed
    stale = signer.headers("evt_3", BODY, ts=1_600_000_000)
    assert post(BODY, stale) == (401, b"timestamp_too_old")


def test_flask_example(monkeypatch: pytest.MonkeyPatch, signer) -> None:
    module = load_example("flask_app", monkeypatch, signer)
    client = module.app.test_client()

    def post(body: bytes, headers: dict):
        r = client.post("/webhooks/relay", data=body, headers=headers,
                        content_type="application/cloudevents+json")
        return r.status_code, r.data

    exercise(post, signer)


def test_fastapi_example(monkeypatch: pytest.MonkeyPatch, signer) -> None:
    from fastapi.testclient import TestClient

    module = load_example("fastapi_app", monkeypatch, signer)
    client = TestClient(module.app)

    def post(body: bytes, headers: dict):
        r = client.post("/webhooks/relay", content=body,
                        headers={**headers, "content-type": "application/cloudevents+json"})
        return r.status_code, r.content

    exercise(post, signer)


@pytest.mark.parametrize("name", ["flask_app", "fastapi_app"])
def test_readme_shows_the_examples_verbatim(name: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = (ROOT / "examples" / f"{name}.py").read_text(encoding="utf-8")
    assert f"```python\n{example}```" in readme
