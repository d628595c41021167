from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.mint_portal_token import MintPortalToken
from ...models.portal_token_created import PortalTokenCreated
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: MintPortalToken,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/portal-tokens",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PortalTokenCreated | Problem | None:
    if response.status_code == 201:
        response_201 = PortalTokenCreated.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PortalTokenCreated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: MintPortalToken,

) -> Response[PortalTokenCreated | Problem]:
    """ Mint a portal token

     Mints a token (`rpt_…`) that opens the embeddable portal for one
    consumer of the key's tenant and environment, for 60 s to 24 h (default
    one hour), read-only or with `capabilities` (manage endpoints, rotate
    keys, recover, send tests). The token is in this answer only, with the
    hosted page's `url` and `embed_url` carrying it in the fragment. Pass it
    to the portal, never in a query string. Audited as
    `portal_token.created`.

    Tenant API key. Refused with `422` `validation_failed` (a lifetime
    outside 60 to 86,400 s, more than 10 origins or one that is not an
    origin) or `unknown_reference` (no such consumer).

    Args:
        body (MintPortalToken): A portal token to mint: whose portal it opens, for how long,
            allowing what.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalTokenCreated | Problem]
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
    body: MintPortalToken,

) -> PortalTokenCreated | Problem | None:
    """ Mint a portal token

     Mints a token (`rpt_…`) that opens the embeddable portal for one
    consumer of the key's tenant and environment, for 60 s to 24 h (default
    one hour), read-only or with `capabilities` (manage endpoints, rotate
    keys, recover, send tests). The token is in this answer only, with the
    hosted page's `url` and `embed_url` carrying it in the fragment. Pass it
    to the portal, never in a query string. Audited as
    `portal_token.created`.

    Tenant API key. Refused with `422` `validation_failed` (a lifetime
    outside 60 to 86,400 s, more than 10 origins or one that is not an
    origin) or `unknown_reference` (no such consumer).

    Args:
        body (MintPortalToken): A portal token to mint: whose portal it opens, for how long,
            allowing what.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalTokenCreated | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: MintPortalToken,

) -> Response[PortalTokenCreated | Problem]:
    """ Mint a portal token

     Mints a token (`rpt_…`) that opens the embeddable portal for one
    consumer of the key's tenant and environment, for 60 s to 24 h (default
    one hour), read-only or with `capabilities` (manage endpoints, rotate
    keys, recover, send tests). The token is in this answer only, with the
    hosted page's `url` and `embed_url` carrying it in the fragment. Pass it
    to the portal, never in a query string. Audited as
    `portal_token.created`.

    Tenant API key. Refused with `422` `validation_failed` (a lifetime
    outside 60 to 86,400 s, more than 10 origins or one that is not an
    origin) or `unknown_reference` (no such consumer).

    Args:
        body (MintPortalToken): A portal token to mint: whose portal it opens, for how long,
            allowing what.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalTokenCreated | Problem]
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
    body: MintPortalToken,

) -> PortalTokenCreated | Problem | None:
    """ Mint a portal token

     Mints a token (`rpt_…`) that opens the embeddable portal for one
    consumer of the key's tenant and environment, for 60 s to 24 h (default
    one hour), read-only or with `capabilities` (manage endpoints, rotate
    keys, recover, send tests). The token is in this answer only, with the
    hosted page's `url` and `embed_url` carrying it in the fragment. Pass it
    to the portal, never in a query string. Audited as
    `portal_token.created`.

    Tenant API key. Refused with `422` `validation_failed` (a lifetime
    outside 60 to 86,400 s, more than 10 origins or one that is not an
    origin) or `unknown_reference` (no such consumer).

    Args:
        body (MintPortalToken): A portal token to mint: whose portal it opens, for how long,
            allowing what.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalTokenCreated | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
