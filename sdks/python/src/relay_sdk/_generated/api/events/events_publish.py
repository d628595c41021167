from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.publish_event import PublishEvent
from ...models.published import Published
from typing import cast



def _get_kwargs(
    *,
    body: PublishEvent,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/events",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Published | None:
    if response.status_code == 200:
        response_200 = Published.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = Published.from_dict(response.json())



        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Published]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PublishEvent,

) -> Response[Problem | Published]:
    """ Publish an event

     Validates the event against the current version of its type's schema
    and stores it with one message per subscribed endpoint, in one
    transaction, before answering `202`: from then on Relay delivers it, at
    least once, to each endpoint. Without `consumer_id` it reaches the
    endpoints of your own consumer (kind `tenant`), and your customers' only
    when its type's `audience` is `all_consumers`; with one, that consumer's
    endpoints only. Publishing an `id` again creates nothing and returns the
    existing event (`200`, `duplicate: true`), so a publish can be retried
    safely with the same `id`.

    Tenant API key. Refused with `422`: `unknown_event_type`,
    `reserved_event_type` (Relay's own operational types),
    `schema_violation` (listing each field at fault), `validation_too_costly`,
    `validation_failed` (`id`, `ttl_seconds`, `traceparent`, `ordering_key`,
    `subject`, undecodable `data`), `unknown_reference` (no such
    `consumer_id`), `invalid_time`, `time_out_of_range`; for the A2A update
    types (`a2a.task.status_updated`, `a2a.task.artifact_updated`: `data` is
    the task's A2A `StreamResponse`, docs/a2a.md) `a2a_invalid_update`,
    `a2a_consumer_required`, `a2a_ordering_key_mismatch`; `413`
    `envelope_too_large`; `429` `busy` (retry after `Retry-After`).

    Args:
        body (PublishEvent): An event to publish.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Published]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: PublishEvent,

) -> Problem | Published | None:
    """ Publish an event

     Validates the event against the current version of its type's schema
    and stores it with one message per subscribed endpoint, in one
    transaction, before answering `202`: from then on Relay delivers it, at
    least once, to each endpoint. Without `consumer_id` it reaches the
    endpoints of your own consumer (kind `tenant`), and your customers' only
    when its type's `audience` is `all_consumers`; with one, that consumer's
    endpoints only. Publishing an `id` again creates nothing and returns the
    existing event (`200`, `duplicate: true`), so a publish can be retried
    safely with the same `id`.

    Tenant API key. Refused with `422`: `unknown_event_type`,
    `reserved_event_type` (Relay's own operational types),
    `schema_violation` (listing each field at fault), `validation_too_costly`,
    `validation_failed` (`id`, `ttl_seconds`, `traceparent`, `ordering_key`,
    `subject`, undecodable `data`), `unknown_reference` (no such
    `consumer_id`), `invalid_time`, `time_out_of_range`; for the A2A update
    types (`a2a.task.status_updated`, `a2a.task.artifact_updated`: `data` is
    the task's A2A `StreamResponse`, docs/a2a.md) `a2a_invalid_update`,
    `a2a_consumer_required`, `a2a_ordering_key_mismatch`; `413`
    `envelope_too_large`; `429` `busy` (retry after `Retry-After`).

    Args:
        body (PublishEvent): An event to publish.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Published
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PublishEvent,

) -> Response[Problem | Published]:
    """ Publish an event

     Validates the event against the current version of its type's schema
    and stores it with one message per subscribed endpoint, in one
    transaction, before answering `202`: from then on Relay delivers it, at
    least once, to each endpoint. Without `consumer_id` it reaches the
    endpoints of your own consumer (kind `tenant`), and your customers' only
    when its type's `audience` is `all_consumers`; with one, that consumer's
    endpoints only. Publishing an `id` again creates nothing and returns the
    existing event (`200`, `duplicate: true`), so a publish can be retried
    safely with the same `id`.

    Tenant API key. Refused with `422`: `unknown_event_type`,
    `reserved_event_type` (Relay's own operational types),
    `schema_violation` (listing each field at fault), `validation_too_costly`,
    `validation_failed` (`id`, `ttl_seconds`, `traceparent`, `ordering_key`,
    `subject`, undecodable `data`), `unknown_reference` (no such
    `consumer_id`), `invalid_time`, `time_out_of_range`; for the A2A update
    types (`a2a.task.status_updated`, `a2a.task.artifact_updated`: `data` is
    the task's A2A `StreamResponse`, docs/a2a.md) `a2a_invalid_update`,
    `a2a_consumer_required`, `a2a_ordering_key_mismatch`; `413`
    `envelope_too_large`; `429` `busy` (retry after `Retry-After`).

    Args:
        body (PublishEvent): An event to publish.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Published]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PublishEvent,

) -> Problem | Published | None:
    """ Publish an event

     Validates the event against the current version of its type's schema
    and stores it with one message per subscribed endpoint, in one
    transaction, before answering `202`: from then on Relay delivers it, at
    least once, to each endpoint. Without `consumer_id` it reaches the
    endpoints of your own consumer (kind `tenant`), and your customers' only
    when its type's `audience` is `all_consumers`; with one, that consumer's
    endpoints only. Publishing an `id` again creates nothing and returns the
    existing event (`200`, `duplicate: true`), so a publish can be retried
    safely with the same `id`.

    Tenant API key. Refused with `422`: `unknown_event_type`,
    `reserved_event_type` (Relay's own operational types),
    `schema_violation` (listing each field at fault), `validation_too_costly`,
    `validation_failed` (`id`, `ttl_seconds`, `traceparent`, `ordering_key`,
    `subject`, undecodable `data`), `unknown_reference` (no such
    `consumer_id`), `invalid_time`, `time_out_of_range`; for the A2A update
    types (`a2a.task.status_updated`, `a2a.task.artifact_updated`: `data` is
    the task's A2A `StreamResponse`, docs/a2a.md) `a2a_invalid_update`,
    `a2a_consumer_required`, `a2a_ordering_key_mismatch`; `413`
    `envelope_too_large`; `429` `busy` (retry after `Retry-After`).

    Args:
        body (PublishEvent): An event to publish.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Published
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
