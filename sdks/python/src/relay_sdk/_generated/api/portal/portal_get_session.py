from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.portal_session import PortalSession
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/portal/session",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PortalSession | Problem | None:
    if response.status_code == 200:
        response_200 = PortalSession.from_dict(response.json())



        return response_200

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PortalSession | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[PortalSession | Problem]:
    """ Get the portal session

     Returns what the portal token is: whose portal it opens, in which
    environment, what it allows and until when, and the tenant's brand (its
    own, else its parent's). The portal's first call. Portal token; `401`
    `portal_token_revoked` or `portal_token_expired`; `403`
    `origin_not_allowed` from a page of an origin the token does not allow.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalSession | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,

) -> PortalSession | Problem | None:
    """ Get the portal session

     Returns what the portal token is: whose portal it opens, in which
    environment, what it allows and until when, and the tenant's brand (its
    own, else its parent's). The portal's first call. Portal token; `401`
    `portal_token_revoked` or `portal_token_expired`; `403`
    `origin_not_allowed` from a page of an origin the token does not allow.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalSession | Problem
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[PortalSession | Problem]:
    """ Get the portal session

     Returns what the portal token is: whose portal it opens, in which
    environment, what it allows and until when, and the tenant's brand (its
    own, else its parent's). The portal's first call. Portal token; `401`
    `portal_token_revoked` or `portal_token_expired`; `403`
    `origin_not_allowed` from a page of an origin the token does not allow.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalSession | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,

) -> PortalSession | Problem | None:
    """ Get the portal session

     Returns what the portal token is: whose portal it opens, in which
    environment, what it allows and until when, and the tenant's brand (its
    own, else its parent's). The portal's first call. Portal token; `401`
    `portal_token_revoked` or `portal_token_expired`; `403`
    `origin_not_allowed` from a page of an origin the token does not allow.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalSession | Problem
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
