"""``Relay``: the client, and its resources over the generated layer."""

from __future__ import annotations

import time
import uuid
from typing import Any, Callable, Iterable, Iterator

from ._generated import models
from ._generated.api.consumers import (
    consumers_create,
    consumers_delete,
    consumers_get,
    consumers_list,
    consumers_update,
)
from ._generated.api.endpoints import (
    endpoints_create,
    endpoints_delete,
    endpoints_get,
    endpoints_list,
    endpoints_rotate_key,
    endpoints_update,
)
from ._generated.api.event_types import event_types_get, event_types_list, event_types_put
from ._generated.api.events import events_get, events_publish
from ._generated.api.messages import messages_attempts_list, messages_get, messages_list
from ._generated.api.portal_tokens import (
    portal_tokens_create,
    portal_tokens_get,
    portal_tokens_revoke,
    portal_tokens_revoke_all,
)
from ._generated.api.recovery import messages_resend, messages_retry
from ._transport import Transport

DEFAULT_BASE_URL = "http://127.0.0.1:8080"


def _body(fields: dict[str, Any]) -> dict[str, Any]:
    """A request body from keyword arguments: ``None`` means "not given"."""
    return {k: v for k, v in fields.items() if v is not None}


def new_event_id() -> str:
    """An idempotency key for a publish: the event's ``id``."""
    return "evt_" + uuid.uuid4().hex


class _Resource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport


class EventTypes(_Resource):
    def put(self, name: str, *, schema: dict[str, Any], **fields: Any) -> models.EventTypeOut:
        """Creates or updates an event type (a new version when its schema changes)."""
        body = models.PutEventTypeBody.from_dict(_body({"schema": schema, **fields}))
        return self._t.call(event_types_put, name, body=body, safe=True)

    def get(self, name: str) -> models.EventTypeOut:
        return self._t.call(event_types_get, name, safe=True)

    def list(self, **query: Any) -> Iterator[models.EventType]:
        return self._t.pages(event_types_list, **query)


class Consumers(_Resource):
    def create(self, external_id: str, **fields: Any) -> models.Consumer:
        body = models.CreateConsumer.from_dict(_body({"external_id": external_id, **fields}))
        return self._t.call(consumers_create, body=body)

    def get(self, id: str) -> models.Consumer:
        return self._t.call(consumers_get, id, safe=True)

    def list(self, **query: Any) -> Iterator[models.Consumer]:
        return self._t.pages(consumers_list, **query)

    def update(self, id: str, **fields: Any) -> models.Consumer:
        body = models.UpdateConsumer.from_dict(_body(fields))
        return self._t.call(consumers_update, id, body=body)

    def delete(self, id: str) -> None:
        self._t.call(consumers_delete, id, safe=True)


class Endpoints(_Resource):
    def create(
        self, consumer_id: str, destination: dict[str, Any], **fields: Any
    ) -> models.EndpointCreated:
        """Registers an endpoint; the answer carries its ``public_key`` (or ``secret``)."""
        body = models.CreateEndpoint.from_dict(
            _body({"consumer_id": consumer_id, "destination": destination, **fields})
        )
        return self._t.call(endpoints_create, body=body)

    def get(self, id: str) -> models.EndpointOut:
        return self._t.call(endpoints_get, id, safe=True)

    def list(self, consumer_id: str | None = None, **query: Any) -> Iterator[models.EndpointOut]:
        return self._t.pages(endpoints_list, **_body({"consumer_id": consumer_id, **query}))

    def update(self, id: str, *, if_match: str | None = None, **fields: Any) -> models.EndpointOut:
        body = models.UpdateEndpoint.from_dict(_body(fields))
        return self._t.call(endpoints_update, id, body=body, **_body({"if_match": if_match}))

    def delete(self, id: str) -> None:
        self._t.call(endpoints_delete, id, safe=True)

    def rotate_key(self, id: str, **fields: Any) -> models.KeyRotated:
        return self._t.call(endpoints_rotate_key, id, body=models.RotateKey.from_dict(_body(fields)))


class Events(_Resource):
    def publish(
        self, type: str, data: dict[str, Any], *, id: str | None = None, **fields: Any
    ) -> models.Published:
        """Publishes an event. Without ``id`` one is chosen (``evt_<uuid>``) and
        kept across this call's retries, so a retried publish never creates a
        second event; pass your own ``id`` to make retries across processes safe."""
        event_id = id if id is not None else new_event_id()
        body = models.PublishEvent.from_dict(
            _body({"type": type, "data": data, "id": event_id, **fields})
        )
        return self._t.call(events_publish, body=body, safe=True)

    def publish_many(self, events: Iterable[dict[str, Any]]) -> list[models.Published]:
        """Publishes each event (a dict of ``publish``'s arguments), in order."""
        return [self.publish(**event) for event in events]

    def get(self, id: str) -> models.EventWithMessages:
        return self._t.call(events_get, id, safe=True)


class Messages(_Resource):
    def list(self, **query: Any) -> Iterator[models.Message]:
        """Messages, newest first; filters: ``endpoint_id``, ``event_id``,
        ``state``, ``event_type``, ``error_code``, ``since``, ``until``."""
        if isinstance(query.get("state"), str):
            query["state"] = models.MessageState(query["state"])
        return self._t.pages(messages_list, **query)

    def get(self, id: str) -> models.Message:
        return self._t.call(messages_get, id, safe=True)

    def attempts(self, id: str, **query: Any) -> Iterator[models.Attempt]:
        return self._t.pages(messages_attempts_list, id, **query)

    def resend(self, id: str) -> models.Resent:
        return self._t.call(messages_resend, id)

    def retry(self, **filter: Any) -> models.Job:
        """The batch operation: retries every failed message matching ``filter``
        (``endpoint_id``, ``event_type``, ``since``, ``until``...) as one job."""
        return self._t.call(messages_retry, body=models.BulkRetry.from_dict(_body(filter)))


class PortalTokens(_Resource):
    def create(self, consumer_id: str, **fields: Any) -> models.PortalTokenCreated:
        """Mints a portal token for one consumer (``token`` is shown this once)."""
        body = models.MintPortalToken.from_dict(_body({"consumer_id": consumer_id, **fields}))
        return self._t.call(portal_tokens_create, body=body)

    def get(self, id: str) -> models.PortalTokenOut:
        return self._t.call(portal_tokens_get, id, safe=True)

    def revoke(self, id: str) -> None:
        self._t.call(portal_tokens_revoke, id, safe=True)

    def revoke_all(self, consumer_id: str) -> models.RevokedAll:
        body = models.RevokeAll.from_dict({"consumer_id": consumer_id})
        return self._t.call(portal_tokens_revoke_all, body=body)


class Relay:
    """A client of Relay's API with one tenant API key (``rk_live_...``).

    >>> relay = Relay(api_key="rk_live_...", base_url="https://relay.example")

    ``timeout`` (seconds) bounds each attempt; ``max_retries`` the retries of
    a ``429``/``503`` (or of a lost connection, for requests safe to repeat).
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        max_retry_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        httpx_args: dict[str, Any] | None = None,
    ) -> None:
        self._transport = Transport(
            api_key,
            base_url,
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_cap=backoff_cap,
            max_retry_wait=max_retry_wait,
            sleep=sleep,
            httpx_args=httpx_args,
        )
        self.event_types = EventTypes(self._transport)
        self.consumers = Consumers(self._transport)
        self.endpoints = Endpoints(self._transport)
        self.events = Events(self._transport)
        self.messages = Messages(self._transport)
        self.portal_tokens = PortalTokens(self._transport)

    def request(self, operation: Any, *args: Any, safe: bool = False, **kwargs: Any) -> Any:
        """Any operation of the generated layer (``relay_sdk.api.<tag>.<op>``),
        with this client's retries and typed errors: ``safe=True`` when it may
        be repeated after a lost connection."""
        return self._transport.call(operation, *args, safe=safe, **kwargs)

    def paginate(self, operation: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """Every item of any generated list operation."""
        return self._transport.pages(operation, *args, **kwargs)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
