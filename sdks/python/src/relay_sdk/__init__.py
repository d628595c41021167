"""Relay's API client for Python, with the webhook verifier beside it.

>>> from relay_sdk import Relay
>>> relay = Relay(api_key="rk_live_...", base_url="http://127.0.0.1:8080")

The typed operations and models are generated from Relay's OpenAPI document
(``relay_sdk.api``, ``relay_sdk.models``); this layer adds what an SDK
should: an idempotency key on every publish, pagination as iterators,
problem+json answers as typed errors, retries with backoff honouring
``Retry-After``, timeouts and a User-Agent naming the SDK. The verifier is
``relay_sdk.Verifier`` (the same as ``relay_verify.Verifier``).
"""

from relay_verify import Verifier, VerifyError

from ._client import DEFAULT_BASE_URL, Relay, new_event_id
from ._errors import (
    AuthenticationError,
    ConflictError,
    FieldError,
    NotFoundError,
    ProblemError,
    RateLimitedError,
    RelayConnectionError,
    RelayError,
    ValidationError,
)
from ._generated import api, models
from ._version import USER_AGENT, __version__

__all__ = [
    "DEFAULT_BASE_URL",
    "USER_AGENT",
    "AuthenticationError",
    "ConflictError",
    "FieldError",
    "NotFoundError",
    "ProblemError",
    "RateLimitedError",
    "Relay",
    "RelayConnectionError",
    "RelayError",
    "ValidationError",
    "Verifier",
    "VerifyError",
    "__version__",
    "api",
    "models",
    "new_event_id",
]
