"""The README's quickstart (examples/quickstart.py, shown verbatim in
README.md) run end to end against a real `relay serve`: the event type,
consumer and endpoint are made, the publish is delivered to an HTTPS
receiver and verified with the quickstart's verifier, the message is
listed, a portal token minted, and a 422 surfaces as a typed error."""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import runpy

import pytest
from relay_process import Receiver, RelayServer

from relay_sdk import Relay, ValidationError

ROOT = pathlib.Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart.py"


def test_the_readme_shows_the_quickstart_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "```python\n" + QUICKSTART.read_text(encoding="utf-8") + "```" in readme


@pytest.fixture(scope="module")
def relay_server(tmp_path_factory):
    dir = tmp_path_factory.mktemp("relay")
    receiver = Receiver(dir)
    server = RelayServer(dir, receiver)
    yield server, receiver
    server.close()
    receiver.close()


def test_the_quickstart_end_to_end(relay_server, monkeypatch):
    server, receiver = relay_server
    key = server.api_key()
    monkeypatch.setitem(os.environ, "RELAY_API_KEY", key)
    monkeypatch.setitem(os.environ, "RELAY_URL", server.url)
    monkeypatch.setitem(os.environ, "WEBHOOK_URL", receiver.url)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns = runpy.run_path(str(QUICKSTART))

    # The delivery arrives and the quickstart's verifier accepts it.
    headers, body = receiver.received.get(timeout=60)
    ns["verifier"].verify(headers, body)
    assert headers["webhook-id"] == ns["event"].id
    assert ns["event"].id.startswith("evt_") and ns["event"].messages_created == 1
    lines = out.getvalue().splitlines()
    # The message was listed, the portal token's link printed.
    assert lines[0].split()[0].startswith("msg_"), lines
    assert "#token=rpt_" in lines[1], lines
    # The refused publish (no `total`): 422 schema_violation at `/data`.
    status, code, *rest = lines[2].split(" ", 2)
    assert (status, code) == ("422", "schema_violation"), lines
    assert rest[0].startswith("['/data'] req_"), lines
    ns["relay"].close()

    # The same publish again, with the id the SDK chose: Relay's duplicate.
    relay = Relay(api_key=key, base_url=server.url)
    again = relay.events.publish(
        "order.paid", {"id": "o_1042", "total": 4200}, id=ns["event"].id, consumer_id=ns["consumer"].id
    )
    assert again.duplicate and again.id == ns["event"].id
    # An unknown event type: a typed error too.
    with pytest.raises(ValidationError) as e:
        relay.events.publish("no.such.type", {})
    assert e.value.code == "unknown_event_type" and e.value.request_id.startswith("req_")
    relay.close()
