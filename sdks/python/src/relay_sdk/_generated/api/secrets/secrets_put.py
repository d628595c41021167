from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.put_secret_body import PutSecretBody
from ...models.secret_info import SecretInfo
from typing import cast



def _get_kwargs(
    name: str,
    *,
    body: PutSecretBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/secrets/{name}".format(name=quote(str(name), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SecretInfo | None:
    if response.status_code == 200:
        response_200 = SecretInfo.from_dict(response.json())



        return response_200

    if response.status_code == 201:
        response_201 = SecretInfo.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SecretInfo]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: str,
    *,
    client: AuthenticatedClient,
    body: PutSecretBody,

) -> Response[Problem | SecretInfo]:
    """ Create or replace a tenant secret

     Stores a credential (a password, a token, a PEM key) under a name, in
    the key's tenant and environment, sealed under the installation's master
    key: a destination or an inbound source names it `secret:<name>` instead
    of holding the value. Write-only: no answer ever returns the value. A
    replaced value is used from the next attempt on (on other nodes within
    their refresh interval). Audited as `secret.created` or
    `secret.updated`, never with the value.

    Tenant API key. Refused with `422`: `invalid_secret_name`,
    `invalid_secret_value` (empty), `secret_too_large` (over 64 KiB),
    `limit_reached` (1,000 secrets per tenant and environment).

    Args:
        name (str):
        body (PutSecretBody): A secret's value, written once and never shown again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SecretInfo]
     """


    kwargs = _get_kwargs(
        name=name,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    name: str,
    *,
    client: AuthenticatedClient,
    body: PutSecretBody,

) -> Problem | SecretInfo | None:
    """ Create or replace a tenant secret

     Stores a credential (a password, a token, a PEM key) under a name, in
    the key's tenant and environment, sealed under the installation's master
    key: a destination or an inbound source names it `secret:<name>` instead
    of holding the value. Write-only: no answer ever returns the value. A
    replaced value is used from the next attempt on (on other nodes within
    their refresh interval). Audited as `secret.created` or
    `secret.updated`, never with the value.

    Tenant API key. Refused with `422`: `invalid_secret_name`,
    `invalid_secret_value` (empty), `secret_too_large` (over 64 KiB),
    `limit_reached` (1,000 secrets per tenant and environment).

    Args:
        name (str):
        body (PutSecretBody): A secret's value, written once and never shown again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SecretInfo
     """


    return sync_detailed(
        name=name,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient,
    body: PutSecretBody,

) -> Response[Problem | SecretInfo]:
    """ Create or replace a tenant secret

     Stores a credential (a password, a token, a PEM key) under a name, in
    the key's tenant and environment, sealed under the installation's master
    key: a destination or an inbound source names it `secret:<name>` instead
    of holding the value. Write-only: no answer ever returns the value. A
    replaced value is used from the next attempt on (on other nodes within
    their refresh interval). Audited as `secret.created` or
    `secret.updated`, never with the value.

    Tenant API key. Refused with `422`: `invalid_secret_name`,
    `invalid_secret_value` (empty), `secret_too_large` (over 64 KiB),
    `limit_reached` (1,000 secrets per tenant and environment).

    Args:
        name (str):
        body (PutSecretBody): A secret's value, written once and never shown again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SecretInfo]
     """


    kwargs = _get_kwargs(
        name=name,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient,
    body: PutSecretBody,

) -> Problem | SecretInfo | None:
    """ Create or replace a tenant secret

     Stores a credential (a password, a token, a PEM key) under a name, in
    the key's tenant and environment, sealed under the installation's master
    key: a destination or an inbound source names it `secret:<name>` instead
    of holding the value. Write-only: no answer ever returns the value. A
    replaced value is used from the next attempt on (on other nodes within
    their refresh interval). Audited as `secret.created` or
    `secret.updated`, never with the value.

    Tenant API key. Refused with `422`: `invalid_secret_name`,
    `invalid_secret_value` (empty), `secret_too_large` (over 64 KiB),
    `limit_reached` (1,000 secrets per tenant and environment).

    Args:
        name (str):
        body (PutSecretBody): A secret's value, written once and never shown again.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SecretInfo
     """


    return (await asyncio_detailed(
        name=name,
client=client,
body=body,

    )).parsed
