from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.message_state import MessageState
from ...models.page_message import PageMessage
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    *,
    endpoint_id: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    event_type: str | Unset = UNSET,
    error_code: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["endpoint_id"] = endpoint_id

    params["event_id"] = event_id

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state.value

    params["state"] = json_state

    params["event_type"] = event_type

    params["error_code"] = error_code

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["limit"] = limit

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/messages",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageMessage | Problem | None:
    if response.status_code == 200:
        response_200 = PageMessage.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PageMessage | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    endpoint_id: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    event_type: str | Unset = UNSET,
    error_code: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageMessage | Problem]:
    """ List messages

     Lists the messages (one event for one endpoint) of the key's tenant and
    environment, filtered by endpoint, event, state, event type, last error
    code and creation time, a page at a time: the delivery log. With a
    filter by state, error code, event type or time, each page reads at
    most 10,000 messages (of the endpoint, or of the event, when one is
    named): when few match, a page may hold fewer than `limit`, or none,
    and still name `next_after`; page on until it is `null`.

    Tenant API key. `400` `invalid_query` for an unknown parameter or a bad
    value (a `limit` outside 1 to 250, an unknown `state`, a time that is not
    RFC 3339).

    Args:
        endpoint_id (str | Unset):
        event_id (str | Unset):
        state (MessageState | Unset): The life of a message (one event for one endpoint).

            `scheduled`, `in_flight`, `held` and `blocked` are live states; every
            other state is terminal. See `docs/state-machine.md`.
        event_type (str | Unset):
        error_code (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessage | Problem]
     """


    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
event_id=event_id,
state=state,
event_type=event_type,
error_code=error_code,
since=since,
until=until,
limit=limit,
after=after,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    endpoint_id: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    event_type: str | Unset = UNSET,
    error_code: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageMessage | Problem | None:
    """ List messages

     Lists the messages (one event for one endpoint) of the key's tenant and
    environment, filtered by endpoint, event, state, event type, last error
    code and creation time, a page at a time: the delivery log. With a
    filter by state, error code, event type or time, each page reads at
    most 10,000 messages (of the endpoint, or of the event, when one is
    named): when few match, a page may hold fewer than `limit`, or none,
    and still name `next_after`; page on until it is `null`.

    Tenant API key. `400` `invalid_query` for an unknown parameter or a bad
    value (a `limit` outside 1 to 250, an unknown `state`, a time that is not
    RFC 3339).

    Args:
        endpoint_id (str | Unset):
        event_id (str | Unset):
        state (MessageState | Unset): The life of a message (one event for one endpoint).

            `scheduled`, `in_flight`, `held` and `blocked` are live states; every
            other state is terminal. See `docs/state-machine.md`.
        event_type (str | Unset):
        error_code (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessage | Problem
     """


    return sync_detailed(
        client=client,
endpoint_id=endpoint_id,
event_id=event_id,
state=state,
event_type=event_type,
error_code=error_code,
since=since,
until=until,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    endpoint_id: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    event_type: str | Unset = UNSET,
    error_code: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageMessage | Problem]:
    """ List messages

     Lists the messages (one event for one endpoint) of the key's tenant and
    environment, filtered by endpoint, event, state, event type, last error
    code and creation time, a page at a time: the delivery log. With a
    filter by state, error code, event type or time, each page reads at
    most 10,000 messages (of the endpoint, or of the event, when one is
    named): when few match, a page may hold fewer than `limit`, or none,
    and still name `next_after`; page on until it is `null`.

    Tenant API key. `400` `invalid_query` for an unknown parameter or a bad
    value (a `limit` outside 1 to 250, an unknown `state`, a time that is not
    RFC 3339).

    Args:
        endpoint_id (str | Unset):
        event_id (str | Unset):
        state (MessageState | Unset): The life of a message (one event for one endpoint).

            `scheduled`, `in_flight`, `held` and `blocked` are live states; every
            other state is terminal. See `docs/state-machine.md`.
        event_type (str | Unset):
        error_code (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessage | Problem]
     """


    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
event_id=event_id,
state=state,
event_type=event_type,
error_code=error_code,
since=since,
until=until,
limit=limit,
after=after,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    endpoint_id: str | Unset = UNSET,
    event_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    event_type: str | Unset = UNSET,
    error_code: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageMessage | Problem | None:
    """ List messages

     Lists the messages (one event for one endpoint) of the key's tenant and
    environment, filtered by endpoint, event, state, event type, last error
    code and creation time, a page at a time: the delivery log. With a
    filter by state, error code, event type or time, each page reads at
    most 10,000 messages (of the endpoint, or of the event, when one is
    named): when few match, a page may hold fewer than `limit`, or none,
    and still name `next_after`; page on until it is `null`.

    Tenant API key. `400` `invalid_query` for an unknown parameter or a bad
    value (a `limit` outside 1 to 250, an unknown `state`, a time that is not
    RFC 3339).

    Args:
        endpoint_id (str | Unset):
        event_id (str | Unset):
        state (MessageState | Unset): The life of a message (one event for one endpoint).

            `scheduled`, `in_flight`, `held` and `blocked` are live states; every
            other state is terminal. See `docs/state-machine.md`.
        event_type (str | Unset):
        error_code (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessage | Problem
     """


    return (await asyncio_detailed(
        client=client,
endpoint_id=endpoint_id,
event_id=event_id,
state=state,
event_type=event_type,
error_code=error_code,
since=since,
until=until,
limit=limit,
after=after,

    )).parsed
