from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.enable_body import EnableBody
from ...models.enabled import Enabled
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: EnableBody | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/endpoints/{id}/enable".format(id=quote(str(id), safe=""),),
    }

    
    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Enabled | Problem | None:
    if response.status_code == 200:
        response_200 = Enabled.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Enabled | Problem]:
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
    body: EnableBody | Unset = UNSET,

) -> Response[Enabled | Problem]:
    """ Enable a disabled endpoint

     Makes a disabled endpoint active again, whatever disabled it, and
    publishes `webhook_endpoint.recovered`. Its held messages stay held
    (listed as missed) rather than flood an endpoint that just came back:
    with `{"recover": true}` they are queued at once as paced recovery
    traffic, as `recover` does from `since`, and the answer says how many
    (`requeued`). Audited as `endpoint.enabled` (and `endpoint.recovered`).

    Tenant API key; `404` for an unknown endpoint; `409`
    `invalid_endpoint_state` unless the endpoint is disabled; `422`
    `validation_failed` (`since` without `recover`) or `outside_retention`.

    Args:
        id (str):
        body (EnableBody | Unset): Enable's options (the body may be absent): whether to recover
            what was
            missed at once.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: EnableBody | Unset = UNSET,

) -> Enabled | Problem | None:
    """ Enable a disabled endpoint

     Makes a disabled endpoint active again, whatever disabled it, and
    publishes `webhook_endpoint.recovered`. Its held messages stay held
    (listed as missed) rather than flood an endpoint that just came back:
    with `{"recover": true}` they are queued at once as paced recovery
    traffic, as `recover` does from `since`, and the answer says how many
    (`requeued`). Audited as `endpoint.enabled` (and `endpoint.recovered`).

    Tenant API key; `404` for an unknown endpoint; `409`
    `invalid_endpoint_state` unless the endpoint is disabled; `422`
    `validation_failed` (`since` without `recover`) or `outside_retention`.

    Args:
        id (str):
        body (EnableBody | Unset): Enable's options (the body may be absent): whether to recover
            what was
            missed at once.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return sync_detailed(
        id=id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: EnableBody | Unset = UNSET,

) -> Response[Enabled | Problem]:
    """ Enable a disabled endpoint

     Makes a disabled endpoint active again, whatever disabled it, and
    publishes `webhook_endpoint.recovered`. Its held messages stay held
    (listed as missed) rather than flood an endpoint that just came back:
    with `{"recover": true}` they are queued at once as paced recovery
    traffic, as `recover` does from `since`, and the answer says how many
    (`requeued`). Audited as `endpoint.enabled` (and `endpoint.recovered`).

    Tenant API key; `404` for an unknown endpoint; `409`
    `invalid_endpoint_state` unless the endpoint is disabled; `422`
    `validation_failed` (`since` without `recover`) or `outside_retention`.

    Args:
        id (str):
        body (EnableBody | Unset): Enable's options (the body may be absent): whether to recover
            what was
            missed at once.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: EnableBody | Unset = UNSET,

) -> Enabled | Problem | None:
    """ Enable a disabled endpoint

     Makes a disabled endpoint active again, whatever disabled it, and
    publishes `webhook_endpoint.recovered`. Its held messages stay held
    (listed as missed) rather than flood an endpoint that just came back:
    with `{"recover": true}` they are queued at once as paced recovery
    traffic, as `recover` does from `since`, and the answer says how many
    (`requeued`). Audited as `endpoint.enabled` (and `endpoint.recovered`).

    Tenant API key; `404` for an unknown endpoint; `409`
    `invalid_endpoint_state` unless the endpoint is disabled; `422`
    `validation_failed` (`since` without `recover`) or `outside_retention`.

    Args:
        id (str):
        body (EnableBody | Unset): Enable's options (the body may be absent): whether to recover
            what was
            missed at once.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
