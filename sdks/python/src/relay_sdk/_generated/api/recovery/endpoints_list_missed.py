from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.page_message import PageMessage
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    id: str,
    *,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

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
        "url": "/v1/endpoints/{id}/missed".format(id=quote(str(id), safe=""),),
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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

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
    id: str,
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageMessage | Problem]:
    """ List what an endpoint missed

     Lists the endpoint's messages that were not delivered: every terminal
    state but `delivered`, and `held` (made while it was paused or
    disabled), optionally created in a range, a page at a time. These are
    what `recover` restarts. Each page reads at most 10,000 of the
    endpoint's messages: when few of them were missed, a page may hold fewer
    than `limit`, or none, and still name `next_after`; page on until it is
    `null`. Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):
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
        id=id,
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
    id: str,
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageMessage | Problem | None:
    """ List what an endpoint missed

     Lists the endpoint's messages that were not delivered: every terminal
    state but `delivered`, and `held` (made while it was paused or
    disabled), optionally created in a range, a page at a time. These are
    what `recover` restarts. Each page reads at most 10,000 of the
    endpoint's messages: when few of them were missed, a page may hold fewer
    than `limit`, or none, and still name `next_after`; page on until it is
    `null`. Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):
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
        id=id,
client=client,
since=since,
until=until,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageMessage | Problem]:
    """ List what an endpoint missed

     Lists the endpoint's messages that were not delivered: every terminal
    state but `delivered`, and `held` (made while it was paused or
    disabled), optionally created in a range, a page at a time. These are
    what `recover` restarts. Each page reads at most 10,000 of the
    endpoint's messages: when few of them were missed, a page may hold fewer
    than `limit`, or none, and still name `next_after`; page on until it is
    `null`. Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):
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
        id=id,
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
    id: str,
    *,
    client: AuthenticatedClient,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageMessage | Problem | None:
    """ List what an endpoint missed

     Lists the endpoint's messages that were not delivered: every terminal
    state but `delivered`, and `held` (made while it was paused or
    disabled), optionally created in a range, a page at a time. These are
    what `recover` restarts. Each page reads at most 10,000 of the
    endpoint's messages: when few of them were missed, a page may hold fewer
    than `limit`, or none, and still name `next_after`; page on until it is
    `null`. Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):
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
        id=id,
client=client,
since=since,
until=until,
limit=limit,
after=after,

    )).parsed
