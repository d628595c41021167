from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.endpoint_out import EndpointOut
from ...models.problem import Problem
from ...models.update_endpoint import UpdateEndpoint
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: UpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/endpoints/{id}".format(id=quote(str(id), safe=""),),
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
    body: UpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> Response[EndpointOut | Problem]:
    """ Update an endpoint

     Changes the fields given; absent fields stay as they are. A new
    `destination` replaces the whole destination: credentials it does not
    restate are dropped (with a warning when the host changes). A change of
    `snapshot_fields`, `allow_personal_data` or `event_type_versions` opens
    a new endpoint version; messages already made keep the version they
    were made for. With `If-Match` the change applies only while the
    endpoint is at that revision (`412` otherwise); without, it is decided
    again from a fresh read if the endpoint changed meanwhile, and never
    undoes a concurrent change (a pause, a disable).

    Tenant API key; `404` for an unknown endpoint. Refused with `422`
    `immutable_field` (`environment`, `consumer_id`, `signature_scheme`,
    `id`: switch schemes with a key rotation) and the codes a create
    refuses with; `400` `invalid_if_match`; `412` `precondition_failed`;
    `409` `endpoint_changed` (it kept changing; retry); `429` `busy`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (UpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they are. A
            `destination`
            replaces the whole destination: credentials it does not restate are
            dropped (with a warning when the host changes).

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
    body: UpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> EndpointOut | Problem | None:
    """ Update an endpoint

     Changes the fields given; absent fields stay as they are. A new
    `destination` replaces the whole destination: credentials it does not
    restate are dropped (with a warning when the host changes). A change of
    `snapshot_fields`, `allow_personal_data` or `event_type_versions` opens
    a new endpoint version; messages already made keep the version they
    were made for. With `If-Match` the change applies only while the
    endpoint is at that revision (`412` otherwise); without, it is decided
    again from a fresh read if the endpoint changed meanwhile, and never
    undoes a concurrent change (a pause, a disable).

    Tenant API key; `404` for an unknown endpoint. Refused with `422`
    `immutable_field` (`environment`, `consumer_id`, `signature_scheme`,
    `id`: switch schemes with a key rotation) and the codes a create
    refuses with; `400` `invalid_if_match`; `412` `precondition_failed`;
    `409` `endpoint_changed` (it kept changing; retry); `429` `busy`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (UpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they are. A
            `destination`
            replaces the whole destination: credentials it does not restate are
            dropped (with a warning when the host changes).

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
    body: UpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> Response[EndpointOut | Problem]:
    """ Update an endpoint

     Changes the fields given; absent fields stay as they are. A new
    `destination` replaces the whole destination: credentials it does not
    restate are dropped (with a warning when the host changes). A change of
    `snapshot_fields`, `allow_personal_data` or `event_type_versions` opens
    a new endpoint version; messages already made keep the version they
    were made for. With `If-Match` the change applies only while the
    endpoint is at that revision (`412` otherwise); without, it is decided
    again from a fresh read if the endpoint changed meanwhile, and never
    undoes a concurrent change (a pause, a disable).

    Tenant API key; `404` for an unknown endpoint. Refused with `422`
    `immutable_field` (`environment`, `consumer_id`, `signature_scheme`,
    `id`: switch schemes with a key rotation) and the codes a create
    refuses with; `400` `invalid_if_match`; `412` `precondition_failed`;
    `409` `endpoint_changed` (it kept changing; retry); `429` `busy`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (UpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they are. A
            `destination`
            replaces the whole destination: credentials it does not restate are
            dropped (with a warning when the host changes).

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
    body: UpdateEndpoint | Unset = UNSET,
    if_match: None | str | Unset = UNSET,

) -> EndpointOut | Problem | None:
    """ Update an endpoint

     Changes the fields given; absent fields stay as they are. A new
    `destination` replaces the whole destination: credentials it does not
    restate are dropped (with a warning when the host changes). A change of
    `snapshot_fields`, `allow_personal_data` or `event_type_versions` opens
    a new endpoint version; messages already made keep the version they
    were made for. With `If-Match` the change applies only while the
    endpoint is at that revision (`412` otherwise); without, it is decided
    again from a fresh read if the endpoint changed meanwhile, and never
    undoes a concurrent change (a pause, a disable).

    Tenant API key; `404` for an unknown endpoint. Refused with `422`
    `immutable_field` (`environment`, `consumer_id`, `signature_scheme`,
    `id`: switch schemes with a key rotation) and the codes a create
    refuses with; `400` `invalid_if_match`; `412` `precondition_failed`;
    `409` `endpoint_changed` (it kept changing; retry); `429` `busy`.

    Args:
        id (str):
        if_match (None | str | Unset):
        body (UpdateEndpoint | Unset): Changes to an endpoint; absent fields stay as they are. A
            `destination`
            replaces the whole destination: credentials it does not restate are
            dropped (with a warning when the host changes).

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
