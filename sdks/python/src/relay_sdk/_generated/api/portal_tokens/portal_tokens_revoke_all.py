from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.revoke_all import RevokeAll
from ...models.revoked_all import RevokedAll
from typing import cast



def _get_kwargs(
    *,
    body: RevokeAll,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/portal-tokens/revoke-all",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RevokedAll | None:
    if response.status_code == 200:
        response_200 = RevokedAll.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RevokedAll]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: RevokeAll,

) -> Response[Problem | RevokedAll]:
    """ Revoke every portal token of a consumer

     Revokes all of the consumer's portal tokens at once (a leaked link, an
    offboarded customer) and says how many were still active. Audited as
    `portal_tokens.revoked`. Tenant API key; `404` for an unknown consumer.

    Args:
        body (RevokeAll): Whose portal tokens to revoke.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RevokedAll]
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
    body: RevokeAll,

) -> Problem | RevokedAll | None:
    """ Revoke every portal token of a consumer

     Revokes all of the consumer's portal tokens at once (a leaked link, an
    offboarded customer) and says how many were still active. Audited as
    `portal_tokens.revoked`. Tenant API key; `404` for an unknown consumer.

    Args:
        body (RevokeAll): Whose portal tokens to revoke.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RevokedAll
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: RevokeAll,

) -> Response[Problem | RevokedAll]:
    """ Revoke every portal token of a consumer

     Revokes all of the consumer's portal tokens at once (a leaked link, an
    offboarded customer) and says how many were still active. Audited as
    `portal_tokens.revoked`. Tenant API key; `404` for an unknown consumer.

    Args:
        body (RevokeAll): Whose portal tokens to revoke.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RevokedAll]
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
    body: RevokeAll,

) -> Problem | RevokedAll | None:
    """ Revoke every portal token of a consumer

     Revokes all of the consumer's portal tokens at once (a leaked link, an
    offboarded customer) and says how many were still active. Audited as
    `portal_tokens.revoked`. Tenant API key; `404` for an unknown consumer.

    Args:
        body (RevokeAll): Whose portal tokens to revoke.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RevokedAll
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
