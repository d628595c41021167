"""The hand-written layer against a local fake of the API: retries and
Retry-After, the idempotency key kept across retries, typed errors,
pagination, timeouts and the User-Agent."""

from __future__ import annotations

import email.utils
import json
import pathlib
import socket
import time

import pytest

from relay_sdk import (
    USER_AGENT,
    NotFoundError,
    ProblemError,
    RateLimitedError,
    Relay,
    RelayConnectionError,
    ValidationError,
    __version__,
)
from relay_sdk._transport import parse_retry_after

from fake_server import FakeRelay

DOC = json.loads((pathlib.Path(__file__).resolve().parents[3] / "docs" / "openapi.json").read_text())
# The document's own examples as the fake's answers.
PUBLISHED = DOC["components"]["schemas"]["Published"]["examples"][0]
CONSUMER = DOC["components"]["schemas"]["Consumer"]["examples"][0]
BUSY = {"type": "urn:relay:problem:busy", "title": "Too Many Requests", "status": 429, "code": "busy", "detail": "busy"}


def consumer(i: int) -> dict:
    return {**CONSUMER, "id": f"con_{i}"}


@pytest.fixture()
def fake():
    server = FakeRelay()
    yield server
    server.close()


@pytest.fixture()
def slept():
    return []


@pytest.fixture()
def relay(fake, slept):
    client = Relay(api_key="rk_live_test", base_url=fake.url, sleep=slept.append, timeout=2.0)
    yield client
    client.close()


def test_publish_chooses_an_id_and_keeps_it_across_retries(fake, relay, slept):
    fake.answer(429, BUSY, retry_after="2")
    fake.answer(503, {"code": "unavailable", "status": 503})
    fake.answer(202, PUBLISHED)
    published = relay.events.publish("order.paid", {"id": "o_1"})
    assert published.id == PUBLISHED["id"]
    ids = [r["body"]["id"] for r in fake.requests]
    assert len(ids) == 3 and ids[0].startswith("evt_") and len(set(ids)) == 1
    assert slept[0] == 2.0  # Retry-After, honoured exactly
    assert 0 <= slept[1] <= 1.0  # no Retry-After: jittered backoff, base 0.5 * 2^1
    # Each attempt has its own request id.
    assert len({r["headers"]["x-request-id"] for r in fake.requests}) == 3


def test_publish_keeps_the_callers_id(fake, relay):
    fake.answer(202, PUBLISHED)
    relay.events.publish("order.paid", {"id": "o_1"}, id="order-o_1-paid", consumer_id="con_1")
    body = fake.requests[0]["body"]
    assert body == {"type": "order.paid", "data": {"id": "o_1"}, "id": "order-o_1-paid", "consumer_id": "con_1"}


def test_retry_after_as_an_http_date():
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after(date, now) <= 30
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(email.utils.formatdate(now - 60, usegmt=True), now) == 0.0


def test_gives_up_after_max_retries_with_a_typed_error(fake, slept):
    relay = Relay(api_key="k", base_url=fake.url, sleep=slept.append, max_retries=2)
    for _ in range(3):
        fake.answer(429, BUSY, retry_after="1")
    with pytest.raises(RateLimitedError) as e:
        relay.consumers.get("con_1")
    assert (e.value.status, e.value.code, e.value.retry_after) == (429, "busy", 1.0)
    assert slept == [1.0, 1.0] and len(fake.requests) == 3


def test_a_retry_after_too_long_is_not_waited_for(fake, slept):
    relay = Relay(api_key="k", base_url=fake.url, sleep=slept.append, max_retry_wait=10)
    fake.answer(503, {"code": "unavailable", "status": 503}, retry_after="3600")
    with pytest.raises(RateLimitedError) as e:
        relay.consumers.get("con_1")
    assert e.value.retry_after == 3600.0 and slept == []


def test_problem_json_becomes_a_typed_error_with_the_request_id(fake, relay):
    fake.answer(
        422,
        {
            "type": "urn:relay:problem:schema_violation",
            "title": "Unprocessable Entity",
            "status": 422,
            "code": "schema_violation",
            "detail": "/data/total: expected integer",
            "errors": [{"field": "/data/total", "message": "expected integer"}],
        },
    )
    with pytest.raises(ValidationError) as e:
        relay.events.publish("order.paid", {"total": "x"})
    err = e.value
    assert isinstance(err, ProblemError)
    assert (err.status, err.code, err.detail) == (422, "schema_violation", "/data/total: expected integer")
    assert [(f.field, f.message) for f in err.errors] == [("/data/total", "expected integer")]
    assert err.request_id == fake.requests[0]["headers"]["x-request-id"]
    assert err.request_id.startswith("req_")


def test_a_request_id_answered_by_the_server_wins(fake, relay):
    fake.answer(404, {"code": "not_found", "status": 404, "title": "Not Found"}, x_request_id="srv-1")
    with pytest.raises(NotFoundError) as e:
        relay.endpoints.get("ep_x")
    assert (e.value.code, e.value.request_id, e.value.errors) == ("not_found", "srv-1", [])


def test_pagination_is_an_iterator_following_next_after(fake, relay):
    fake.answer(200, {"data": [consumer(1), consumer(2)], "next_after": "con_2"})
    fake.answer(200, {"data": [consumer(3)], "next_after": "con_3"})
    fake.answer(200, {"data": [], "next_after": None})
    ids = [c.id for c in relay.consumers.list(limit=2)]
    assert ids == ["con_1", "con_2", "con_3"]
    paths = [r["path"] for r in fake.requests]
    assert paths == ["/v1/consumers?limit=2", "/v1/consumers?limit=2&after=con_2", "/v1/consumers?limit=2&after=con_3"]


def test_an_empty_page_that_names_the_next_goes_on(fake, relay):
    # A filtered list reads a bounded span per page: a page may be empty
    # and still name the next; a cursor that does not move on ends it.
    fake.answer(200, {"data": [], "next_after": "con_5"})
    fake.answer(200, {"data": [consumer(6)], "next_after": "con_6"})
    fake.answer(200, {"data": [], "next_after": "con_6"})
    ids = [c.id for c in relay.consumers.list(limit=2)]
    assert ids == ["con_6"]
    assert [r["path"] for r in fake.requests] == [
        "/v1/consumers?limit=2",
        "/v1/consumers?limit=2&after=con_5",
        "/v1/consumers?limit=2&after=con_6",
    ]


def test_user_agent_and_key(fake, relay):
    fake.answer(200, {"data": [], "next_after": None})
    list(relay.endpoints.list(consumer_id="con_1"))
    headers = fake.requests[0]["headers"]
    assert headers["user-agent"] == USER_AGENT == f"relay-sdk-python/{__version__}"
    assert headers["authorization"] == "Bearer rk_live_test"
    assert fake.requests[0]["path"] == "/v1/endpoints?consumer_id=con_1"


def test_a_timeout_is_retried_only_when_safe_and_then_raised():
    # A server that accepts and never answers.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    slept: list[float] = []
    relay = Relay(api_key="k", base_url=url, timeout=0.2, max_retries=1, sleep=slept.append)
    try:
        with pytest.raises(RelayConnectionError) as e:
            relay.consumers.get("con_1")  # a GET: retried once
        assert len(slept) == 1 and e.value.request_id.startswith("req_")
        slept.clear()
        with pytest.raises(RelayConnectionError):
            relay.consumers.create("c1")  # a POST without an id: not retried
        assert slept == []
    finally:
        relay.close()
        sock.close()
