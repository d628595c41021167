"""Calls a generated operation with retries, timeouts and typed errors."""

from __future__ import annotations

import email.utils
import random
import time
import uuid
from typing import Any, Callable, Iterator

import httpx

from ._errors import ProblemError, RelayConnectionError
from ._generated.client import AuthenticatedClient
from ._version import USER_AGENT

RETRY_STATUSES = (429, 503)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds to wait: delta-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class Transport:
    """One HTTP client and the retry policy every call goes through.

    Retried: ``429`` and ``503`` (Relay refused before doing anything) on any
    request, waiting ``Retry-After`` when given (up to ``max_retry_wait``
    seconds; longer, the error is raised at once) and otherwise a capped
    exponential backoff with full jitter; a failed connection or a timeout
    only for requests that are safe to repeat (``GET``, ``PUT``, ``DELETE``,
    and a publish, whose event id is kept across its retries).
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        *,
        timeout: float,
        max_retries: int,
        backoff_base: float,
        backoff_cap: float,
        max_retry_wait: float,
        sleep: Callable[[float], None],
        httpx_args: dict[str, Any] | None,
    ) -> None:
        args = dict(httpx_args or {})
        self.client = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=api_key,
            headers={"User-Agent": USER_AGENT},
            timeout=httpx.Timeout(timeout),
            httpx_args=args,
        )
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_retry_wait = max_retry_wait
        self.sleep = sleep

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^attempt)]."""
        return random.uniform(0, min(self.backoff_cap, self.backoff_base * (2**attempt)))

    def call(self, operation: Any, *args: Any, safe: bool = False, **kwargs: Any) -> Any:
        """Sends a generated operation and returns its parsed 2xx answer.

        The generated module builds the request (``_get_kwargs``) and parses a
        success (``_build_response``); everything else is this layer's: an
        error answer becomes a ``ProblemError`` from its raw body.
        """
        request = operation._get_kwargs(*args, **kwargs)
        http = self.client.get_httpx_client()
        attempt = 0
        while True:
            request_id = "req_" + uuid.uuid4().hex
            headers = {**request.get("headers", {}), "X-Request-Id": request_id}
            try:
                response = http.request(**{**request, "headers": headers})
            except httpx.TransportError as e:
                if safe and attempt < self.max_retries:
                    self.sleep(self.backoff(attempt))
                    attempt += 1
                    continue
                raise RelayConnectionError(f"{type(e).__name__}: {e}", request_id) from e
            status = response.status_code
            if 200 <= status < 300:
                return operation._build_response(client=self.client, response=response).parsed
            answered_id = response.headers.get("x-request-id") or request_id
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            if status in RETRY_STATUSES and attempt < self.max_retries:
                wait = self.backoff(attempt) if retry_after is None else retry_after
                if wait <= self.max_retry_wait:
                    self.sleep(wait)
                    attempt += 1
                    continue
            raise ProblemError.from_response(status, response.content, answered_id, retry_after)

    def pages(self, operation: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """Every item of a paginated list, fetching pages as it goes. A page
        may hold fewer items than asked, or none, and still name the next:
        the list ends when `next_after` is absent, or does not move on."""
        after = kwargs.pop("after", None)
        while True:
            if after is not None:
                kwargs["after"] = after
            page = self.call(operation, *args, safe=True, **kwargs)
            yield from page.data
            following = page.next_after
            if not isinstance(following, str) or following == after:
                return
            after = following

    def close(self) -> None:
        self.client.get_httpx_client().close()
