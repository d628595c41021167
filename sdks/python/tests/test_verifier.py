"""The API beyond the vectors: errors, tolerance, header shapes, dedup."""

from __future__ import annotations

import threading
import time

import pytest

from relay_verify import (
    DEFAULT_TOLERANCE_SECONDS,
    MIN_RETENTION_SECONDS,
    DuplicateError,
    InvalidKeyError,
    InvalidTimestampError,
    MemorySeenStore,
    MissingHeaderError,
    NoMatchingSignatureError,
    SeenStore,
    TimestampTooNewError,
    TimestampTooOldError,
    Verifier,
    VerifyError,
)

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
HEADERS = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}
BODY = b'{"test": 2432232314}'
NOW = 1614265330


def test_errors_are_typed_and_carry_codes() -> None:
    v = Verifier(SECRET)
    assert v.tolerance == DEFAULT_TOLERANCE_SECONDS == 300
    v.verify(HEADERS, BODY, now=NOW)
    v.verify(HEADERS, BODY.decode(), now=NOW)  # a str body is its UTF-8 bytes
    with pytest.raises(MissingHeaderError) as e:
        v.verify({k: x for k, x in HEADERS.items() if k != "webhook-id"}, BODY, now=NOW)
    assert e.value.header == "webhook-id" and e.value.code == "missing_header"
    with pytest.raises(TimestampTooOldError) as old:
        v.verify(HEADERS, BODY, now=NOW + 301)
    assert (old.value.timestamp, old.value.now) == (NOW, NOW + 301)
    with pytest.raises(TimestampTooNewError):
        v.verify(HEADERS, BODY, now=NOW - 301)
    with pytest.raises(InvalidTimestampError):
        v.verify(dict(HEADERS, **{"webhook-timestamp": "0" * 5000 + "1x"}), BODY, now=NOW)
    with pytest.raises(InvalidTimestampError):
        v.verify(dict(HEADERS, **{"webhook-timestamp": "9" * 5000}), BODY, now=NOW)
    # Leading zeros beyond Python's int-string limit are still a plain value.
    padded = "0" * 5000 + HEADERS["webhook-timestamp"]
    with pytest.raises(NoMatchingSignatureError):
        v.verify(dict(HEADERS, **{"webhook-timestamp": padded}), BODY, now=NOW)
    with pytest.raises(VerifyError):
        v.verify(HEADERS, b"{}", now=NOW)
    # The system clock is long past 2021.
    with pytest.raises(TimestampTooOldError):
        v.verify(HEADERS, BODY)
    with pytest.raises(TypeError):
        v.verify(HEADERS, {"test": 2432232314}, now=NOW)  # type: ignore[arg-type]


def test_tolerance_is_configurable() -> None:
    v = Verifier([SECRET], tolerance=3600)
    v.verify(HEADERS, BODY, now=NOW + 3600)
    with pytest.raises(TimestampTooOldError):
        v.verify(HEADERS, BODY, now=NOW + 3601)
    strict = Verifier([SECRET], tolerance=0)
    strict.verify(HEADERS, BODY, now=NOW)
    with pytest.raises(TimestampTooNewError):
        strict.verify(HEADERS, BODY, now=NOW - 1)
    with pytest.raises(ValueError):
        Verifier([SECRET], tolerance=-1)


def test_header_shapes() -> None:
    v = Verifier([SECRET])
    upper = {k.upper(): x for k, x in HEADERS.items()}
    v.verify(upper, BODY, now=NOW)
    v.verify(list(HEADERS.items()), BODY, now=NOW)
    as_bytes = {k: x.encode() for k, x in HEADERS.items()}
    v.verify(as_bytes, BODY, now=NOW)
    as_lists = {k: [x] for k, x in HEADERS.items()}
    v.verify(as_lists, BODY, now=NOW)


def test_key_errors() -> None:
    with pytest.raises(InvalidKeyError):
        Verifier([])
    with pytest.raises(InvalidKeyError) as e:
        Verifier("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=")
    assert "public key" in e.value.reason and e.value.code == "invalid_key"
    with pytest.raises(InvalidKeyError):
        Verifier([SECRET, 42])  # type: ignore[list-item]
    assert "MfKQ9r8G" not in repr(Verifier(SECRET))


def test_verify_once_and_memory_store() -> None:
    v = Verifier(SECRET)
    store = MemorySeenStore()
    assert isinstance(store, SeenStore)
    with pytest.raises(NoMatchingSignatureError):
        v.verify_once(HEADERS, b"forged", store, now=NOW)
    assert len(store) == 0
    v.verify_once(HEADERS, BODY, store, now=NOW)
    with pytest.raises(DuplicateError) as e:
        v.verify_once(HEADERS, BODY, store, now=NOW + 1)
    assert e.value.code == "duplicate" and e.value.webhook_id == HEADERS["webhook-id"]


def test_memory_store_keeps_96_hours_then_forgets() -> None:
    store = MemorySeenStore(retention_seconds=60)
    assert store.retention_seconds == MIN_RETENTION_SECONDS == 96 * 3600
    t0 = 1_700_000_000
    assert store.check_and_insert("a", t0)
    assert not store.check_and_insert("a", t0)
    assert store.check_and_insert("b", t0 + 10)
    assert not store.check_and_insert("a", t0 + MIN_RETENTION_SECONDS)
    assert store.check_and_insert("a", t0 + MIN_RETENTION_SECONDS + 1)
    assert not store.check_and_insert("b", t0 + MIN_RETENTION_SECONDS + 1)
    assert store.check_and_insert("c", t0 + 10 * MIN_RETENTION_SECONDS)
    assert len(store) == 1
    week = MemorySeenStore(retention_seconds=7 * 86400)
    assert week.check_and_insert("x", 0)
    assert not week.check_and_insert("x", 7 * 86400)


def test_memory_store_one_winner_across_threads() -> None:
    store = MemorySeenStore()
    wins = []
    now = int(time.time())
    threads = [
        threading.Thread(target=lambda: wins.append(store.check_and_insert("m", now)))
        for _ in range(16)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1


def test_custom_store_protocol() -> None:
    class Table:
        def __init__(self) -> None:
            self.rows: set = set()

        def check_and_insert(self, webhook_id: str, now: int) -> bool:
            if webhook_id in self.rows:
                return False
            self.rows.add(webhook_id)
            return True

    v = Verifier(SECRET)
    table = Table()
    v.verify_once(HEADERS, BODY, table, now=NOW)
    with pytest.raises(DuplicateError):
        v.verify_once(HEADERS, BODY, table, now=NOW)
