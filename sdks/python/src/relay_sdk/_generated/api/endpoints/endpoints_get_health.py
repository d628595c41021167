from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.health import Health
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/endpoints/{id}/health".format(id=quote(str(id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Health | Problem | None:
    if response.status_code == 200:
        response_200 = Health.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Health | Problem]:
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

) -> Response[Health | Problem]:
    """ Get an endpoint's health

     Returns how the endpoint's deliveries fare: its state and circuit
    breaker, success rates and attempt counts over the last hour and day,
    attempt latency percentiles, the last success, its backlog, the last 20
    failed attempts and the last 20 health warnings (a blocked address, a
    redirect, a refused OAuth token, a secret that does not resolve, 72
    hours of failure). Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Health | Problem]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Health | Problem | None:
    """ Get an endpoint's health

     Returns how the endpoint's deliveries fare: its state and circuit
    breaker, success rates and attempt counts over the last hour and day,
    attempt latency percentiles, the last success, its backlog, the last 20
    failed attempts and the last 20 health warnings (a blocked address, a
    redirect, a refused OAuth token, a secret that does not resolve, 72
    hours of failure). Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Health | Problem
     """


    return sync_detailed(
        id=id,
client=client,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Health | Problem]:
    """ Get an endpoint's health

     Returns how the endpoint's deliveries fare: its state and circuit
    breaker, success rates and attempt counts over the last hour and day,
    attempt latency percentiles, the last success, its backlog, the last 20
    failed attempts and the last 20 health warnings (a blocked address, a
    redirect, a refused OAuth token, a secret that does not resolve, 72
    hours of failure). Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Health | Problem]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Health | Problem | None:
    """ Get an endpoint's health

     Returns how the endpoint's deliveries fare: its state and circuit
    breaker, success rates and attempt counts over the last hour and day,
    attempt latency percentiles, the last success, its backlog, the last 20
    failed attempts and the last 20 health warnings (a blocked address, a
    redirect, a refused OAuth token, a secret that does not resolve, 72
    hours of failure). Tenant API key; `404` for an unknown endpoint.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Health | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,

    )).parsed
