from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.endpoint_created import EndpointCreated
from ...models.portal_create_endpoint import PortalCreateEndpoint
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: PortalCreateEndpoint,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/portal/endpoints",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EndpointCreated | Problem | None:
    if response.status_code == 201:
        response_201 = EndpointCreated.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EndpointCreated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalCreateEndpoint,

) -> Response[EndpointCreated | Problem]:
    """ Create an endpoint for the consumer

     Registers an HTTPS endpoint of the token's consumer, as
    `POST /v1/endpoints` does (the same checks and answer: the HMAC `secret`
    of a `v1` endpoint is in this answer only), with the settings the
    portal offers. Audited with the portal token as the actor.

    Portal token with `manage_endpoints` (`403` `capability_missing`
    otherwise); refused with the codes of `POST /v1/endpoints`.

    Args:
        body (PortalCreateEndpoint): A new endpoint of the token's consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
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
    body: PortalCreateEndpoint,

) -> EndpointCreated | Problem | None:
    """ Create an endpoint for the consumer

     Registers an HTTPS endpoint of the token's consumer, as
    `POST /v1/endpoints` does (the same checks and answer: the HMAC `secret`
    of a `v1` endpoint is in this answer only), with the settings the
    portal offers. Audited with the portal token as the actor.

    Portal token with `manage_endpoints` (`403` `capability_missing`
    otherwise); refused with the codes of `POST /v1/endpoints`.

    Args:
        body (PortalCreateEndpoint): A new endpoint of the token's consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalCreateEndpoint,

) -> Response[EndpointCreated | Problem]:
    """ Create an endpoint for the consumer

     Registers an HTTPS endpoint of the token's consumer, as
    `POST /v1/endpoints` does (the same checks and answer: the HMAC `secret`
    of a `v1` endpoint is in this answer only), with the settings the
    portal offers. Audited with the portal token as the actor.

    Portal token with `manage_endpoints` (`403` `capability_missing`
    otherwise); refused with the codes of `POST /v1/endpoints`.

    Args:
        body (PortalCreateEndpoint): A new endpoint of the token's consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
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
    body: PortalCreateEndpoint,

) -> EndpointCreated | Problem | None:
    """ Create an endpoint for the consumer

     Registers an HTTPS endpoint of the token's consumer, as
    `POST /v1/endpoints` does (the same checks and answer: the HMAC `secret`
    of a `v1` endpoint is in this answer only), with the settings the
    portal offers. Audited with the portal token as the actor.

    Portal token with `manage_endpoints` (`403` `capability_missing`
    otherwise); refused with the codes of `POST /v1/endpoints`.

    Args:
        body (PortalCreateEndpoint): A new endpoint of the token's consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
