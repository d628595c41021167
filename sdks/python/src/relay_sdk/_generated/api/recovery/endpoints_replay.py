from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.replay_body import ReplayBody
from ...models.replayed import Replayed
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: ReplayBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/endpoints/{id}/replay".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Replayed | None:
    if response.status_code == 200:
        response_200 = Replayed.from_dict(response.json())



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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Replayed]:
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
    body: ReplayBody,

) -> Response[Problem | Replayed]:
    """ Replay events to an endpoint

     Creates messages for the endpoint for the events created in the range
    (within the retention period) that it subscribes to and that were not
    published to another consumer, optionally only some `event_types`.
    Events the endpoint already has a message for are skipped, so an
    interrupted replay is resumed by replaying again. The messages are paced
    recovery traffic; each keeps its event's `id` (`webhook-id`). Audited as
    `endpoint.replayed`.

    Tenant API key; `404` for an unknown endpoint; `422`
    `validation_failed` (`until` not after `since`) or `outside_retention`.

    Args:
        id (str):
        body (ReplayBody): The range of events to deliver to an endpoint again, by creation time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Replayed]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayBody,

) -> Problem | Replayed | None:
    """ Replay events to an endpoint

     Creates messages for the endpoint for the events created in the range
    (within the retention period) that it subscribes to and that were not
    published to another consumer, optionally only some `event_types`.
    Events the endpoint already has a message for are skipped, so an
    interrupted replay is resumed by replaying again. The messages are paced
    recovery traffic; each keeps its event's `id` (`webhook-id`). Audited as
    `endpoint.replayed`.

    Tenant API key; `404` for an unknown endpoint; `422`
    `validation_failed` (`until` not after `since`) or `outside_retention`.

    Args:
        id (str):
        body (ReplayBody): The range of events to deliver to an endpoint again, by creation time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Replayed
     """


    return sync_detailed(
        id=id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayBody,

) -> Response[Problem | Replayed]:
    """ Replay events to an endpoint

     Creates messages for the endpoint for the events created in the range
    (within the retention period) that it subscribes to and that were not
    published to another consumer, optionally only some `event_types`.
    Events the endpoint already has a message for are skipped, so an
    interrupted replay is resumed by replaying again. The messages are paced
    recovery traffic; each keeps its event's `id` (`webhook-id`). Audited as
    `endpoint.replayed`.

    Tenant API key; `404` for an unknown endpoint; `422`
    `validation_failed` (`until` not after `since`) or `outside_retention`.

    Args:
        id (str):
        body (ReplayBody): The range of events to deliver to an endpoint again, by creation time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Replayed]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ReplayBody,

) -> Problem | Replayed | None:
    """ Replay events to an endpoint

     Creates messages for the endpoint for the events created in the range
    (within the retention period) that it subscribes to and that were not
    published to another consumer, optionally only some `event_types`.
    Events the endpoint already has a message for are skipped, so an
    interrupted replay is resumed by replaying again. The messages are paced
    recovery traffic; each keeps its event's `id` (`webhook-id`). Audited as
    `endpoint.replayed`.

    Tenant API key; `404` for an unknown endpoint; `422`
    `validation_failed` (`until` not after `since`) or `outside_retention`.

    Args:
        id (str):
        body (ReplayBody): The range of events to deliver to an endpoint again, by creation time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Replayed
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
