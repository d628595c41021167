"""Verify webhooks from Relay over the raw request body.

Relay signs every delivery with the Standard Webhooks profile: ``webhook-id``,
``webhook-timestamp`` (unix seconds) and ``webhook-signature``, a
space-separated list of ``<version>,<base64>`` entries over
``{webhook-id}.{webhook-timestamp}.{raw body}``:

- ``v1a``: Ed25519 (Relay's default), verified with the endpoint's public key
  ``whpk_...``;
- ``v1``: HMAC-SHA256, verified with the endpoint's secret ``whsec_...``.

>>> verifier = Verifier(["whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="])
>>> verifier.verify(
...     {
...         "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
...         "webhook-timestamp": "1614265330",
...         "webhook-signature": "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==",
...     },
...     b'{"test": 2432232314}',
...     now=1614265330,
... )
"""

from ._verifier import (
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

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "MIN_RETENTION_SECONDS",
    "DuplicateError",
    "InvalidKeyError",
    "InvalidTimestampError",
    "MemorySeenStore",
    "MissingHeaderError",
    "NoMatchingSignatureError",
    "SeenStore",
    "TimestampTooNewError",
    "TimestampTooOldError",
    "Verifier",
    "VerifyError",
]

__version__ = "0.1.0"
