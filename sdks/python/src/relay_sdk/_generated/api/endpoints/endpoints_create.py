from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_endpoint import CreateEndpoint
from ...models.endpoint_created import EndpointCreated
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: CreateEndpoint,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/endpoints",
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
    body: CreateEndpoint,

) -> Response[EndpointCreated | Problem]:
    """ Create an endpoint

     Registers where one consumer's events go: a destination (an HTTPS URL,
    or a broker, queue or bucket, by `kind`), the event types it receives,
    and how its deliveries are signed. Its first signing key is made with
    it: for `v1a` (the default) the answer carries the Ed25519 `public_key`
    (readable later too); for `v1` the HMAC `secret`, shown in this answer
    only. From the answer on, events published of its types are delivered
    to it. The answer's `warnings` name what deserves a second look.

    Tenant API key; the endpoint is in the key's environment. Refused with
    `422`: `validation_failed` (the fields at fault), `unknown_reference`
    (no such consumer), `unknown_event_type`,
    `operational_event_type_reserved` (Relay's operational types are for the
    tenant's own consumer), a retry schedule outside the operator's bounds
    (`retry_schedule_…`), the destination kind's codes (`invalid_url`,
    `blocked_address`, `reserved_header`, `credentials_without_tls`, …), a
    secret reference that does not resolve (`secret_not_found`, …),
    `personal_data_not_allowed`, `unknown_event_type_version`,
    `limit_reached` (the operator's limit on endpoints); an A2A push
    endpoint (`destination.a2a_push`, docs/a2a.md; ordered `per_key` by
    default) `a2a_event_type_not_allowed`, `a2a_ordering_required`,
    `conflicting_authorization`, `invalid_secret_value`; `429` `busy`.

    Args:
        body (CreateEndpoint): A new endpoint: where one consumer's events go, which ones, and
            how.

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
    body: CreateEndpoint,

) -> EndpointCreated | Problem | None:
    """ Create an endpoint

     Registers where one consumer's events go: a destination (an HTTPS URL,
    or a broker, queue or bucket, by `kind`), the event types it receives,
    and how its deliveries are signed. Its first signing key is made with
    it: for `v1a` (the default) the answer carries the Ed25519 `public_key`
    (readable later too); for `v1` the HMAC `secret`, shown in this answer
    only. From the answer on, events published of its types are delivered
    to it. The answer's `warnings` name what deserves a second look.

    Tenant API key; the endpoint is in the key's environment. Refused with
    `422`: `validation_failed` (the fields at fault), `unknown_reference`
    (no such consumer), `unknown_event_type`,
    `operational_event_type_reserved` (Relay's operational types are for the
    tenant's own consumer), a retry schedule outside the operator's bounds
    (`retry_schedule_…`), the destination kind's codes (`invalid_url`,
    `blocked_address`, `reserved_header`, `credentials_without_tls`, …), a
    secret reference that does not resolve (`secret_not_found`, …),
    `personal_data_not_allowed`, `unknown_event_type_version`,
    `limit_reached` (the operator's limit on endpoints); an A2A push
    endpoint (`destination.a2a_push`, docs/a2a.md; ordered `per_key` by
    default) `a2a_event_type_not_allowed`, `a2a_ordering_required`,
    `conflicting_authorization`, `invalid_secret_value`; `429` `busy`.

    Args:
        body (CreateEndpoint): A new endpoint: where one consumer's events go, which ones, and
            how.

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
    body: CreateEndpoint,

) -> Response[EndpointCreated | Problem]:
    """ Create an endpoint

     Registers where one consumer's events go: a destination (an HTTPS URL,
    or a broker, queue or bucket, by `kind`), the event types it receives,
    and how its deliveries are signed. Its first signing key is made with
    it: for `v1a` (the default) the answer carries the Ed25519 `public_key`
    (readable later too); for `v1` the HMAC `secret`, shown in this answer
    only. From the answer on, events published of its types are delivered
    to it. The answer's `warnings` name what deserves a second look.

    Tenant API key; the endpoint is in the key's environment. Refused with
    `422`: `validation_failed` (the fields at fault), `unknown_reference`
    (no such consumer), `unknown_event_type`,
    `operational_event_type_reserved` (Relay's operational types are for the
    tenant's own consumer), a retry schedule outside the operator's bounds
    (`retry_schedule_…`), the destination kind's codes (`invalid_url`,
    `blocked_address`, `reserved_header`, `credentials_without_tls`, …), a
    secret reference that does not resolve (`secret_not_found`, …),
    `personal_data_not_allowed`, `unknown_event_type_version`,
    `limit_reached` (the operator's limit on endpoints); an A2A push
    endpoint (`destination.a2a_push`, docs/a2a.md; ordered `per_key` by
    default) `a2a_event_type_not_allowed`, `a2a_ordering_required`,
    `conflicting_authorization`, `invalid_secret_value`; `429` `busy`.

    Args:
        body (CreateEndpoint): A new endpoint: where one consumer's events go, which ones, and
            how.

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
    body: CreateEndpoint,

) -> EndpointCreated | Problem | None:
    """ Create an endpoint

     Registers where one consumer's events go: a destination (an HTTPS URL,
    or a broker, queue or bucket, by `kind`), the event types it receives,
    and how its deliveries are signed. Its first signing key is made with
    it: for `v1a` (the default) the answer carries the Ed25519 `public_key`
    (readable later too); for `v1` the HMAC `secret`, shown in this answer
    only. From the answer on, events published of its types are delivered
    to it. The answer's `warnings` name what deserves a second look.

    Tenant API key; the endpoint is in the key's environment. Refused with
    `422`: `validation_failed` (the fields at fault), `unknown_reference`
    (no such consumer), `unknown_event_type`,
    `operational_event_type_reserved` (Relay's operational types are for the
    tenant's own consumer), a retry schedule outside the operator's bounds
    (`retry_schedule_…`), the destination kind's codes (`invalid_url`,
    `blocked_address`, `reserved_header`, `credentials_without_tls`, …), a
    secret reference that does not resolve (`secret_not_found`, …),
    `personal_data_not_allowed`, `unknown_event_type_version`,
    `limit_reached` (the operator's limit on endpoints); an A2A push
    endpoint (`destination.a2a_push`, docs/a2a.md; ordered `per_key` by
    default) `a2a_event_type_not_allowed`, `a2a_ordering_required`,
    `conflicting_authorization`, `invalid_secret_value`; `429` `busy`.

    Args:
        body (CreateEndpoint): A new endpoint: where one consumer's events go, which ones, and
            how.

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
