from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_tenant import CreateTenant
from ...models.problem import Problem
from ...models.tenant import Tenant
from typing import cast



def _get_kwargs(
    *,
    body: CreateTenant,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tenants",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Tenant | None:
    if response.status_code == 201:
        response_201 = Tenant.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Tenant]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTenant,

) -> Response[Problem | Tenant]:
    """ Create a tenant

     Creates a tenant of the installation, or a sub-tenant of `parent_id`.
    A tenant starts with no API key: create one with
    `POST /v1/tenants/{id}/api-keys`.

    Operator token only. Refused with `422` `validation_failed` (a `name`
    that is blank or over 200 characters) or `unknown_reference` (no tenant
    `parent_id`).

    Args:
        body (CreateTenant): A new tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Tenant]
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
    body: CreateTenant,

) -> Problem | Tenant | None:
    """ Create a tenant

     Creates a tenant of the installation, or a sub-tenant of `parent_id`.
    A tenant starts with no API key: create one with
    `POST /v1/tenants/{id}/api-keys`.

    Operator token only. Refused with `422` `validation_failed` (a `name`
    that is blank or over 200 characters) or `unknown_reference` (no tenant
    `parent_id`).

    Args:
        body (CreateTenant): A new tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Tenant
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTenant,

) -> Response[Problem | Tenant]:
    """ Create a tenant

     Creates a tenant of the installation, or a sub-tenant of `parent_id`.
    A tenant starts with no API key: create one with
    `POST /v1/tenants/{id}/api-keys`.

    Operator token only. Refused with `422` `validation_failed` (a `name`
    that is blank or over 200 characters) or `unknown_reference` (no tenant
    `parent_id`).

    Args:
        body (CreateTenant): A new tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Tenant]
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
    body: CreateTenant,

) -> Problem | Tenant | None:
    """ Create a tenant

     Creates a tenant of the installation, or a sub-tenant of `parent_id`.
    A tenant starts with no API key: create one with
    `POST /v1/tenants/{id}/api-keys`.

    Operator token only. Refused with `422` `validation_failed` (a `name`
    that is blank or over 200 characters) or `unknown_reference` (no tenant
    `parent_id`).

    Args:
        body (CreateTenant): A new tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Tenant
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
