from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.page_secret_info import PageSecretInfo
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/secrets",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageSecretInfo | Problem | None:
    if response.status_code == 200:
        response_200 = PageSecretInfo.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PageSecretInfo | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageSecretInfo | Problem]:
    """ List tenant secrets

     Lists the secrets of the key's tenant and environment by name, with
    their times; never a value. Tenant API key.

    Args:
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSecretInfo | Problem]
     """


    kwargs = _get_kwargs(
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageSecretInfo | Problem | None:
    """ List tenant secrets

     Lists the secrets of the key's tenant and environment by name, with
    their times; never a value. Tenant API key.

    Args:
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSecretInfo | Problem
     """


    return sync_detailed(
        client=client,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageSecretInfo | Problem]:
    """ List tenant secrets

     Lists the secrets of the key's tenant and environment by name, with
    their times; never a value. Tenant API key.

    Args:
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSecretInfo | Problem]
     """


    kwargs = _get_kwargs(
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageSecretInfo | Problem | None:
    """ List tenant secrets

     Lists the secrets of the key's tenant and environment by name, with
    their times; never a value. Tenant API key.

    Args:
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSecretInfo | Problem
     """


    return (await asyncio_detailed(
        client=client,
limit=limit,
after=after,

    )).parsed
