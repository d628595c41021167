"""The verifier, its errors and the dedup store."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import threading
import time
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Optional,
    Protocol,
    Tuple,
    Union,
    runtime_checkable,
)

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

DEFAULT_TOLERANCE_SECONDS = 300
"""Five minutes, either side, inclusive."""

MIN_RETENTION_SECONDS = 96 * 3600
"""96 hours: longer than Relay's retry window (about 76 hours)."""

_SWEEP_EVERY_SECONDS = 60
_I64_MAX = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")

WEBHOOK_ID = "webhook-id"
WEBHOOK_TIMESTAMP = "webhook-timestamp"
WEBHOOK_SIGNATURE = "webhook-signature"

Body = Union[bytes, bytearray, memoryview, str]


# --- Errors ------------------------------------------------------------------


class VerifyError(Exception):
    """A request did not verify. ``code`` is stable across Relay's SDKs."""

    code = "verify_error"


class MissingHeaderError(VerifyError):
    """A signature header is absent or empty."""

    code = "missing_header"

    def __init__(self, header: str) -> None:
        super().__init__(f"the {header} header is missing or empty")
        self.header = header


class InvalidTimestampError(VerifyError):
    """``webhook-timestamp`` is not a whole, non-negative number of unix seconds."""

    code = "invalid_timestamp"

    def __init__(self) -> None:
        super().__init__("webhook-timestamp is not a whole number of unix seconds")


class TimestampTooOldError(VerifyError):
    """``webhook-timestamp`` is further in the past than the tolerance."""

    code = "timestamp_too_old"

    def __init__(self, timestamp: int, now: int) -> None:
        super().__init__(f"webhook-timestamp {timestamp} is too old (now is {now})")
        self.timestamp = timestamp
        self.now = now


class TimestampTooNewError(VerifyError):
    """``webhook-timestamp`` is further in the future than the tolerance."""

    code = "timestamp_too_new"

    def __init__(self, timestamp: int, now: int) -> None:
        super().__init__(
            f"webhook-timestamp {timestamp} is too far in the future (now is {now})"
        )
        self.timestamp = timestamp
        self.now = now


class NoMatchingSignatureError(VerifyError):
    """No entry of ``webhook-signature`` verifies with any of the keys."""

    code = "no_matching_signature"

    def __init__(self) -> None:
        super().__init__("no signature matched any key")


class DuplicateError(VerifyError):
    """The request verified, but its ``webhook-id`` was already seen.

    Raised only by :meth:`Verifier.verify_once`. Reply 2xx: it is a retry or a
    replay of something already processed.
    """

    code = "duplicate"

    def __init__(self, webhook_id: str) -> None:
        super().__init__(f"webhook-id {webhook_id!r} was already seen")
        self.webhook_id = webhook_id


class InvalidKeyError(ValueError):
    """A key string that cannot be used to verify; ``reason`` says why."""

    code = "invalid_key"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- Keys --------------------------------------------------------------------


def _b64decode_strict(text: str) -> Optional[bytes]:
    """Canonical standard base64 with padding, or None."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(raw).decode("ascii") != text:
        return None
    return raw


class _HmacKey:
    version = "v1"

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def verify(self, content: bytes, signature: bytes) -> bool:
        expected = hmac.new(self._secret, content, hashlib.sha256).digest()
        return hmac.compare_digest(expected, signature)

    def __repr__(self) -> str:
        return "HmacKey(<redacted>)"


class _Ed25519Key:
    version = "v1a"

    def __init__(self, text: str, raw: bytes) -> None:
        self._text = text
        try:
            self._key = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError as e:
            raise InvalidKeyError("the public key is not a valid Ed25519 key") from e

    def verify(self, content: bytes, signature: bytes) -> bool:
        if len(signature) != 64:
            return False
        try:
            self._key.verify(signature, content)
        except InvalidSignature:
            return False
        return True

    def __repr__(self) -> str:
        return f"Ed25519Key({self._text})"


_Key = Union[_HmacKey, _Ed25519Key]


def _parse_key(text: str) -> _Key:
    if not isinstance(text, str):
        raise InvalidKeyError("a key is a string")
    text = text.strip()
    if text.startswith("whsec_"):
        raw = _b64decode_strict(text[len("whsec_") :])
        if raw is None:
            raise InvalidKeyError("the key is not valid base64")
        if not 24 <= len(raw) <= 64:
            raise InvalidKeyError(
                f"the key has {len(raw)} bytes; an HMAC secret has 24 to 64 bytes"
            )
        return _HmacKey(raw)
    if text.startswith("whpk_"):
        raw = _b64decode_strict(text[len("whpk_") :])
        if raw is None:
            raise InvalidKeyError("the key is not valid base64")
        if len(raw) != 32:
            raise InvalidKeyError(
                f"the key has {len(raw)} bytes; an Ed25519 public key has 32 bytes"
            )
        return _Ed25519Key(text, raw)
    if text.startswith("whsk_"):
        raise InvalidKeyError(
            "this is an Ed25519 signing key (whsk_); verify with its public key "
            "(whpk_) and keep the signing key out of consumers"
        )
    raise InvalidKeyError("a verification key starts with whsec_ (v1) or whpk_ (v1a)")


# --- Headers -----------------------------------------------------------------


def _header(headers: Any, name: str) -> Optional[str]:
    """Looks `name` up in a mapping or a list of pairs, case-insensitively."""
    value: Any = None
    getter = getattr(headers, "get", None)
    if callable(getter):
        value = getter(name)
    if value is None:
        items = headers.items() if hasattr(headers, "items") else headers
        for key, v in items:
            if isinstance(key, str) and key.lower() == name:
                value = v
                break
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if isinstance(value, bytes):
        try:
            value = value.decode("ascii")
        except UnicodeDecodeError:
            return None
    if value is None or not isinstance(value, str):
        return None
    return value


def _required(headers: Any, name: str) -> str:
    value = _header(headers, name)
    if not value:
        raise MissingHeaderError(name)
    return value


# --- Dedup -------------------------------------------------------------------


@runtime_checkable
class SeenStore(Protocol):
    """Where verified ``webhook-id``\\ s are remembered.

    Back it with whatever your processes share (a table with a unique key,
    Redis ``SET NX EX``, ...) and keep ids at least :data:`MIN_RETENTION_SECONDS`.
    """

    def check_and_insert(self, webhook_id: str, now: int) -> bool:
        """Record ``webhook_id`` as seen at ``now`` (unix seconds).

        Return True the first time, False when it was already seen within the
        retention. Must be atomic.
        """
        ...


class MemorySeenStore:
    """A :class:`SeenStore` in process memory (one process; lost on restart).

    Keeps each id for ``retention_seconds`` (96 hours by default; smaller values
    are raised to 96 hours) and drops older ones, sweeping at most once a minute.
    Thread-safe.
    """

    def __init__(self, retention_seconds: int = MIN_RETENTION_SECONDS) -> None:
        self.retention_seconds = max(int(retention_seconds), MIN_RETENTION_SECONDS)
        self._seen: Dict[str, int] = {}
        self._next_sweep = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen)

    def check_and_insert(self, webhook_id: str, now: int) -> bool:
        retention = self.retention_seconds
        with self._lock:
            if now >= self._next_sweep:
                self._seen = {
                    k: t for k, t in self._seen.items() if now - t <= retention
                }
                self._next_sweep = now + _SWEEP_EVERY_SECONDS
            seen_at = self._seen.get(webhook_id)
            if seen_at is not None and now - seen_at <= retention:
                return False
            self._seen[webhook_id] = now
            return True


# --- Verifier ----------------------------------------------------------------


class Verifier:
    """Checks Relay's signature headers with one or more keys.

    ``keys`` is one ``whsec_...``/``whpk_...`` string or several (during a
    rotation, the new and the old key). Raises :class:`InvalidKeyError` for a key
    that cannot be used, or when there is none. ``tolerance`` is in seconds.
    """

    def __init__(
        self,
        keys: Union[str, Iterable[str]],
        *,
        tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    ) -> None:
        if isinstance(keys, str):
            keys = [keys]
        self._keys: List[_Key] = [_parse_key(k) for k in keys]
        if not self._keys:
            raise InvalidKeyError("a verifier needs at least one key")
        if tolerance < 0:
            raise ValueError("tolerance must not be negative")
        self.tolerance = int(tolerance)

    def __repr__(self) -> str:
        return f"Verifier({self._keys!r}, tolerance={self.tolerance})"

    def verify(self, headers: Any, body: Body, *, now: Optional[int] = None) -> None:
        """Verify a request; return None or raise a :class:`VerifyError`.

        ``headers``: a mapping (Flask's ``request.headers``, Starlette's
        ``request.headers``, a dict; names are matched case-insensitively) or a
        list of ``(name, value)`` pairs. ``body``: the raw bytes received (a
        ``str`` is encoded as UTF-8). ``now``: unix seconds, for tests.

        Checks, in order: the three headers are present and non-empty; the
        timestamp is ASCII digits and within the tolerance of now; one entry of
        ``webhook-signature`` verifies with one key of its version.
        """
        webhook_id, timestamp, signature = self._check(headers, now)
        content = b"".join(
            [
                webhook_id.encode("utf-8"),
                b".",
                timestamp.encode("utf-8"),
                b".",
                _as_bytes(body),
            ]
        )
        versions = {k.version for k in self._keys}
        for entry in signature.split(" "):
            version, comma, encoded = entry.partition(",")
            if not comma or version not in versions:
                continue
            raw = _b64decode_strict(encoded)
            if raw is None:
                continue
            for key in self._keys:
                if key.version == version and key.verify(content, raw):
                    return
        raise NoMatchingSignatureError()

    def verify_once(
        self,
        headers: Any,
        body: Body,
        store: SeenStore,
        *,
        now: Optional[int] = None,
    ) -> None:
        """:meth:`verify`, then record the ``webhook-id`` in ``store``.

        Raises :class:`DuplicateError` when the id was already there. Only a
        request that verifies is recorded.
        """
        if now is None:
            now = int(time.time())
        self.verify(headers, body, now=now)
        webhook_id = _required(headers, WEBHOOK_ID)
        if not store.check_and_insert(webhook_id, now):
            raise DuplicateError(webhook_id)

    def _check(self, headers: Any, now: Optional[int]) -> Tuple[str, str, str]:
        webhook_id = _required(headers, WEBHOOK_ID)
        timestamp = _required(headers, WEBHOOK_TIMESTAMP)
        signature = _required(headers, WEBHOOK_SIGNATURE)
        if not _DIGITS.fullmatch(timestamp):
            raise InvalidTimestampError()
        significant = timestamp.lstrip("0") or "0"
        if len(significant) > 19:  # more than i64::MAX has
            raise InvalidTimestampError()
        sent = int(significant)
        if sent > _I64_MAX:
            raise InvalidTimestampError()
        if now is None:
            now = int(time.time())
        if sent + self.tolerance < now:
            raise TimestampTooOldError(sent, now)
        if sent > now + self.tolerance:
            raise TimestampTooNewError(sent, now)
        return webhook_id, timestamp, signature


def _as_bytes(body: Body) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError(
        "body must be the raw request body as bytes (or str), not a parsed object"
    )
