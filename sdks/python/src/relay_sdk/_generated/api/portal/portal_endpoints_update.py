from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.endpoint_out import EndpointOut
from ...models.portal_update_endpoint import PortalUpdateEndpoint
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: PortalUpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/portal/endpoints/{id}".format(id=quote(str(id), safe=""),),
    }

    
    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EndpointOut | Problem | None:
    if response.status_code == 200:
        response_200 = EndpointOut.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EndpointOut | Problem]:
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
    body: PortalUpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> Response[EndpointOut | Problem]:
    """ Update one of the consumer's endpoints

     Changes the fields given, as `PATCH /v1/endpoints/{id}` does (`If-Match`
    included). A new URL on the same host keeps the headers and client
    authentication the tenant set; one on another host is refused while the
    endpoint has any (`422` `credentials_not_restated`), and an endpoint
    that is not HTTPS changes its destination only through the tenant API
    (`422` `destination_not_https`).

    Portal token with `manage_endpoints`; the consumer's own endpoints only
    (`404` otherwise); refused with the codes of `PATCH /v1/endpoints/{id}`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (PortalUpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they
            are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointOut | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PortalUpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> EndpointOut | Problem | None:
    """ Update one of the consumer's endpoints

     Changes the fields given, as `PATCH /v1/endpoints/{id}` does (`If-Match`
    included). A new URL on the same host keeps the headers and client
    authentication the tenant set; one on another host is refused while the
    endpoint has any (`422` `credentials_not_restated`), and an endpoint
    that is not HTTPS changes its destination only through the tenant API
    (`422` `destination_not_https`).

    Portal token with `manage_endpoints`; the consumer's own endpoints only
    (`404` otherwise); refused with the codes of `PATCH /v1/endpoints/{id}`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (PortalUpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they
            are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointOut | Problem
     """


    return sync_detailed(
        id=id,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PortalUpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> Response[EndpointOut | Problem]:
    """ Update one of the consumer's endpoints

     Changes the fields given, as `PATCH /v1/endpoints/{id}` does (`If-Match`
    included). A new URL on the same host keeps the headers and client
    authentication the tenant set; one on another host is refused while the
    endpoint has any (`422` `credentials_not_restated`), and an endpoint
    that is not HTTPS changes its destination only through the tenant API
    (`422` `destination_not_https`).

    Portal token with `manage_endpoints`; the consumer's own endpoints only
    (`404` otherwise); refused with the codes of `PATCH /v1/endpoints/{id}`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (PortalUpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they
            are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointOut | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PortalUpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> EndpointOut | Problem | None:
    """ Update one of the consumer's endpoints

     Changes the fields given, as `PATCH /v1/endpoints/{id}` does (`If-Match`
    included). A new URL on the same host keeps the headers and client
    authentication the tenant set; one on another host is refused while the
    endpoint has any (`422` `credentials_not_restated`), and an endpoint
    that is not HTTPS changes its destination only through the tenant API
    (`422` `destination_not_https`).

    Portal token with `manage_endpoints`; the consumer's own endpoints only
    (`404` otherwise); refused with the codes of `PATCH /v1/endpoints/{id}`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (PortalUpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they
            are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointOut | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,
if_match=if_match,

    )).parsed
