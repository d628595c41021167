from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.page_signing_key_out import PageSigningKeyOut
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
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
        "url": "/v1/endpoints/{id}/signing-keys".format(id=quote(str(id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageSigningKeyOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageSigningKeyOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PageSigningKeyOut | Problem]:
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageSigningKeyOut | Problem]:
    """ List an endpoint's signing keys

     Lists the keys that sign or signed the endpoint's deliveries, newest
    first, retired ones included, with when each stops signing. A `v1a`
    key shows its public key (`whpk_…`), which verifies deliveries; a `v1`
    secret is never shown again. Tenant API key; `404` for an unknown
    endpoint.

    Args:
        id (str):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSigningKeyOut | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageSigningKeyOut | Problem | None:
    """ List an endpoint's signing keys

     Lists the keys that sign or signed the endpoint's deliveries, newest
    first, retired ones included, with when each stops signing. A `v1a`
    key shows its public key (`whpk_…`), which verifies deliveries; a `v1`
    secret is never shown again. Tenant API key; `404` for an unknown
    endpoint.

    Args:
        id (str):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSigningKeyOut | Problem
     """


    return sync_detailed(
        id=id,
client=client,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageSigningKeyOut | Problem]:
    """ List an endpoint's signing keys

     Lists the keys that sign or signed the endpoint's deliveries, newest
    first, retired ones included, with when each stops signing. A `v1a`
    key shows its public key (`whpk_…`), which verifies deliveries; a `v1`
    secret is never shown again. Tenant API key; `404` for an unknown
    endpoint.

    Args:
        id (str):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSigningKeyOut | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageSigningKeyOut | Problem | None:
    """ List an endpoint's signing keys

     Lists the keys that sign or signed the endpoint's deliveries, newest
    first, retired ones included, with when each stops signing. A `v1a`
    key shows its public key (`whpk_…`), which verifies deliveries; a `v1`
    secret is never shown again. Tenant API key; `404` for an unknown
    endpoint.

    Args:
        id (str):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSigningKeyOut | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,
limit=limit,
after=after,

    )).parsed
