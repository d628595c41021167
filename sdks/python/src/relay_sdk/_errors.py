"""Typed errors: a problem+json answer becomes a ``ProblemError``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class RelayError(Exception):
    """Anything that went wrong calling Relay."""


class RelayConnectionError(RelayError):
    """No answer: the connection failed or timed out (after the retries)."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


@dataclass(frozen=True)
class FieldError:
    """One field at fault: a JSON Pointer (or query parameter) and why."""

    field: str
    message: str


class ProblemError(RelayError):
    """Relay answered an error (RFC 9457 problem+json).

    ``status`` is the HTTP status, ``code`` Relay's stable machine-readable
    code (``schema_violation``, ``unknown_event_type``, ...), ``errors`` the
    fields at fault (empty when none), ``request_id`` the request's id (the
    ``X-Request-Id`` the SDK sent, or the one Relay answered with),
    ``problem`` the whole body.
    """

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str,
        errors: list[FieldError],
        request_id: str | None,
        problem: dict[str, Any],
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {detail or title}")
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
        self.request_id = request_id
        self.problem = problem
        self.retry_after = retry_after

    @classmethod
    def from_response(
        cls, status: int, body: bytes, request_id: str | None, retry_after: float | None = None
    ) -> ProblemError:
        try:
            problem = json.loads(body) if body else {}
        except ValueError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {}
        errors = [
            FieldError(str(e.get("field", "")), str(e.get("message", "")))
            for e in problem.get("errors") or []
            if isinstance(e, dict)
        ]
        kind = cls
        if status == 422:
            kind = ValidationError
        elif status == 404:
            kind = NotFoundError
        elif status in (401, 403):
            kind = AuthenticationError
        elif status == 409:
            kind = ConflictError
        elif status in (429, 503):
            kind = RateLimitedError
        return kind(
            status,
            str(problem.get("code", "http_" + str(status))),
            str(problem.get("title", "")),
            str(problem.get("detail", "")),
            errors,
            request_id,
            problem,
            retry_after,
        )


class ValidationError(ProblemError):
    """422: the request was understood but refused; see ``code`` and ``errors``."""


class NotFoundError(ProblemError):
    """404: no such object (in this key's tenant and environment)."""


class AuthenticationError(ProblemError):
    """401 or 403: the key is missing, wrong, revoked or not allowed this."""


class ConflictError(ProblemError):
    """409: the object changed or already exists."""


class RateLimitedError(ProblemError):
    """429 or 503 still answered after the last retry; ``retry_after`` in seconds."""
