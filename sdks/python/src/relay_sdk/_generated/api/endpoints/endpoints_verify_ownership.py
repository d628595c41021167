from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.ownership import Ownership
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/endpoints/{id}/verify-ownership".format(id=quote(str(id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Ownership | Problem | None:
    if response.status_code == 200:
        response_200 = Ownership.from_dict(response.json())



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

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Ownership | Problem]:
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

) -> Response[Ownership | Problem]:
    """ Challenge an endpoint's receiver now

     Sends the ownership challenge to the endpoint's URL at once and answers
    what came of it: an `OPTIONS` request with `WebHook-Request-Origin` and
    the signature headers over an empty body, whose `webhook-id` the
    receiver proves ownership by answering as its whole body (with a `2xx`).
    A proof releases the held messages of every unverified endpoint of the
    tenant with that origin. See docs/security.md, "Proof of endpoint
    ownership".

    Tenant API key. `404` for an unknown endpoint; `409`
    `ownership_not_required`: the endpoint owes no proof (its
    `verify_ownership` is off and the installation does not require it).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Ownership | Problem]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Ownership | Problem | None:
    """ Challenge an endpoint's receiver now

     Sends the ownership challenge to the endpoint's URL at once and answers
    what came of it: an `OPTIONS` request with `WebHook-Request-Origin` and
    the signature headers over an empty body, whose `webhook-id` the
    receiver proves ownership by answering as its whole body (with a `2xx`).
    A proof releases the held messages of every unverified endpoint of the
    tenant with that origin. See docs/security.md, "Proof of endpoint
    ownership".

    Tenant API key. `404` for an unknown endpoint; `409`
    `ownership_not_required`: the endpoint owes no proof (its
    `verify_ownership` is off and the installation does not require it).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Ownership | Problem
     """


    return sync_detailed(
        id=id,
client=client,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Response[Ownership | Problem]:
    """ Challenge an endpoint's receiver now

     Sends the ownership challenge to the endpoint's URL at once and answers
    what came of it: an `OPTIONS` request with `WebHook-Request-Origin` and
    the signature headers over an empty body, whose `webhook-id` the
    receiver proves ownership by answering as its whole body (with a `2xx`).
    A proof releases the held messages of every unverified endpoint of the
    tenant with that origin. See docs/security.md, "Proof of endpoint
    ownership".

    Tenant API key. `404` for an unknown endpoint; `409`
    `ownership_not_required`: the endpoint owes no proof (its
    `verify_ownership` is off and the installation does not require it).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Ownership | Problem]
     """


    kwargs = _get_kwargs(
        id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,

) -> Ownership | Problem | None:
    """ Challenge an endpoint's receiver now

     Sends the ownership challenge to the endpoint's URL at once and answers
    what came of it: an `OPTIONS` request with `WebHook-Request-Origin` and
    the signature headers over an empty body, whose `webhook-id` the
    receiver proves ownership by answering as its whole body (with a `2xx`).
    A proof releases the held messages of every unverified endpoint of the
    tenant with that origin. See docs/security.md, "Proof of endpoint
    ownership".

    Tenant API key. `404` for an unknown endpoint; `409`
    `ownership_not_required`: the endpoint owes no proof (its
    `verify_ownership` is off and the installation does not require it).

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Ownership | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,

    )).parsed
