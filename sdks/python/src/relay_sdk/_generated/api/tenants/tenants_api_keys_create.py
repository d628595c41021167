from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.api_key_created import ApiKeyCreated
from ...models.create_api_key import CreateApiKey
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: CreateApiKey,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tenants/{id}/api-keys".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ApiKeyCreated | Problem | None:
    if response.status_code == 201:
        response_201 = ApiKeyCreated.from_dict(response.json())



        return response_201

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ApiKeyCreated | Problem]:
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
    body: CreateApiKey,

) -> Response[ApiKeyCreated | Problem]:
    """ Create an API key for a tenant

     Mints a tenant API key for one environment (`rk_live_…` or `rk_test_…`).
    The key is in this answer only: Relay keeps its SHA-256, and listings
    show its `prefix`. A key grants the whole tenant API of its environment.

    Operator token only; `404` when the tenant does not exist.

    Args:
        id (str):
        body (CreateApiKey): A new API key of a tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiKeyCreated | Problem]
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
    body: CreateApiKey,

) -> ApiKeyCreated | Problem | None:
    """ Create an API key for a tenant

     Mints a tenant API key for one environment (`rk_live_…` or `rk_test_…`).
    The key is in this answer only: Relay keeps its SHA-256, and listings
    show its `prefix`. A key grants the whole tenant API of its environment.

    Operator token only; `404` when the tenant does not exist.

    Args:
        id (str):
        body (CreateApiKey): A new API key of a tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiKeyCreated | Problem
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
    body: CreateApiKey,

) -> Response[ApiKeyCreated | Problem]:
    """ Create an API key for a tenant

     Mints a tenant API key for one environment (`rk_live_…` or `rk_test_…`).
    The key is in this answer only: Relay keeps its SHA-256, and listings
    show its `prefix`. A key grants the whole tenant API of its environment.

    Operator token only; `404` when the tenant does not exist.

    Args:
        id (str):
        body (CreateApiKey): A new API key of a tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiKeyCreated | Problem]
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
    body: CreateApiKey,

) -> ApiKeyCreated | Problem | None:
    """ Create an API key for a tenant

     Mints a tenant API key for one environment (`rk_live_…` or `rk_test_…`).
    The key is in this answer only: Relay keeps its SHA-256, and listings
    show its `prefix`. A key grants the whole tenant API of its environment.

    Operator token only; `404` when the tenant does not exist.

    Args:
        id (str):
        body (CreateApiKey): A new API key of a tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiKeyCreated | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
