from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.portal_brand import PortalBrand
from ...models.portal_brand_out import PortalBrandOut
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: PortalBrand | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/portal-brand",
    }

    
    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PortalBrandOut | Problem | None:
    if response.status_code == 200:
        response_200 = PortalBrandOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PortalBrandOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalBrand | Unset = UNSET,

) -> Response[PortalBrandOut | Problem]:
    """ Set the portal's brand

     Sets the tenant's brand for its portal in the key's environment (name,
    logo, colours, font, theme, and the origins that may frame the hosted
    page), replacing the whole of the previous one; an empty body resets it
    to the defaults. Sub-tenants without a brand of their own inherit it.

    Tenant API key. Refused with `422` `validation_failed` (a colour that is
    not `#rgb` or `#rrggbb`, a logo URL that is not `https://`, a font list
    with other characters, a bad origin).

    Args:
        body (PortalBrand | Unset): The tenant's brand for its portal, applied through CSS custom
            properties (`--relay-primary`, …; docs/portal.md). A host page may
            override any of them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalBrandOut | Problem]
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
    body: PortalBrand | Unset = UNSET,

) -> PortalBrandOut | Problem | None:
    """ Set the portal's brand

     Sets the tenant's brand for its portal in the key's environment (name,
    logo, colours, font, theme, and the origins that may frame the hosted
    page), replacing the whole of the previous one; an empty body resets it
    to the defaults. Sub-tenants without a brand of their own inherit it.

    Tenant API key. Refused with `422` `validation_failed` (a colour that is
    not `#rgb` or `#rrggbb`, a logo URL that is not `https://`, a font list
    with other characters, a bad origin).

    Args:
        body (PortalBrand | Unset): The tenant's brand for its portal, applied through CSS custom
            properties (`--relay-primary`, …; docs/portal.md). A host page may
            override any of them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalBrandOut | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalBrand | Unset = UNSET,

) -> Response[PortalBrandOut | Problem]:
    """ Set the portal's brand

     Sets the tenant's brand for its portal in the key's environment (name,
    logo, colours, font, theme, and the origins that may frame the hosted
    page), replacing the whole of the previous one; an empty body resets it
    to the defaults. Sub-tenants without a brand of their own inherit it.

    Tenant API key. Refused with `422` `validation_failed` (a colour that is
    not `#rgb` or `#rrggbb`, a logo URL that is not `https://`, a font list
    with other characters, a bad origin).

    Args:
        body (PortalBrand | Unset): The tenant's brand for its portal, applied through CSS custom
            properties (`--relay-primary`, …; docs/portal.md). A host page may
            override any of them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalBrandOut | Problem]
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
    body: PortalBrand | Unset = UNSET,

) -> PortalBrandOut | Problem | None:
    """ Set the portal's brand

     Sets the tenant's brand for its portal in the key's environment (name,
    logo, colours, font, theme, and the origins that may frame the hosted
    page), replacing the whole of the previous one; an empty body resets it
    to the defaults. Sub-tenants without a brand of their own inherit it.

    Tenant API key. Refused with `422` `validation_failed` (a colour that is
    not `#rgb` or `#rrggbb`, a logo URL that is not `https://`, a font list
    with other characters, a bad origin).

    Args:
        body (PortalBrand | Unset): The tenant's brand for its portal, applied through CSS custom
            properties (`--relay-primary`, …; docs/portal.md). A host page may
            override any of them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalBrandOut | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
