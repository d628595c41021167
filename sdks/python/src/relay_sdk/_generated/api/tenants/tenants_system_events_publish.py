from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.published import Published
from ...models.system_event import SystemEvent
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: SystemEvent,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tenants/{id}/system-events".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Published | None:
    if response.status_code == 200:
        response_200 = Published.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = Published.from_dict(response.json())



        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Published]:
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
    body: SystemEvent,

) -> Response[Problem | Published]:
    """ Publish a system event for a tenant

     Publishes one of Relay's own system event families (delivery reports,
    engagement, email feedback, consent, quota, …; `GET /v1/event-types`
    with a tenant key lists them with their schemas) into the tenant's
    environment. Like Relay's operational events, they reach only the
    endpoints of the tenant's own consumer (kind `tenant`) that name the
    type, shaped by its thin fields like any event. Publishing an `id` again
    returns the existing event (`200`, `duplicate: true`).

    Operator token only; `404` when the tenant does not exist. Refused with
    `422`: `unknown_system_event_type`, `validation_failed` (an invalid
    `id`, `subject` or `data`), `schema_violation` (the data does not
    satisfy the type's schema), `invalid_time`, `time_out_of_range`; `413`
    `envelope_too_large` when the delivered CloudEvent could exceed the
    delivery limit.

    Args:
        id (str):
        body (SystemEvent): An event of one of Relay's own system families, published for a
            tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Published]
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
    body: SystemEvent,

) -> Problem | Published | None:
    """ Publish a system event for a tenant

     Publishes one of Relay's own system event families (delivery reports,
    engagement, email feedback, consent, quota, …; `GET /v1/event-types`
    with a tenant key lists them with their schemas) into the tenant's
    environment. Like Relay's operational events, they reach only the
    endpoints of the tenant's own consumer (kind `tenant`) that name the
    type, shaped by its thin fields like any event. Publishing an `id` again
    returns the existing event (`200`, `duplicate: true`).

    Operator token only; `404` when the tenant does not exist. Refused with
    `422`: `unknown_system_event_type`, `validation_failed` (an invalid
    `id`, `subject` or `data`), `schema_violation` (the data does not
    satisfy the type's schema), `invalid_time`, `time_out_of_range`; `413`
    `envelope_too_large` when the delivered CloudEvent could exceed the
    delivery limit.

    Args:
        id (str):
        body (SystemEvent): An event of one of Relay's own system families, published for a
            tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Published
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
    body: SystemEvent,

) -> Response[Problem | Published]:
    """ Publish a system event for a tenant

     Publishes one of Relay's own system event families (delivery reports,
    engagement, email feedback, consent, quota, …; `GET /v1/event-types`
    with a tenant key lists them with their schemas) into the tenant's
    environment. Like Relay's operational events, they reach only the
    endpoints of the tenant's own consumer (kind `tenant`) that name the
    type, shaped by its thin fields like any event. Publishing an `id` again
    returns the existing event (`200`, `duplicate: true`).

    Operator token only; `404` when the tenant does not exist. Refused with
    `422`: `unknown_system_event_type`, `validation_failed` (an invalid
    `id`, `subject` or `data`), `schema_violation` (the data does not
    satisfy the type's schema), `invalid_time`, `time_out_of_range`; `413`
    `envelope_too_large` when the delivered CloudEvent could exceed the
    delivery limit.

    Args:
        id (str):
        body (SystemEvent): An event of one of Relay's own system families, published for a
            tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Published]
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
    body: SystemEvent,

) -> Problem | Published | None:
    """ Publish a system event for a tenant

     Publishes one of Relay's own system event families (delivery reports,
    engagement, email feedback, consent, quota, …; `GET /v1/event-types`
    with a tenant key lists them with their schemas) into the tenant's
    environment. Like Relay's operational events, they reach only the
    endpoints of the tenant's own consumer (kind `tenant`) that name the
    type, shaped by its thin fields like any event. Publishing an `id` again
    returns the existing event (`200`, `duplicate: true`).

    Operator token only; `404` when the tenant does not exist. Refused with
    `422`: `unknown_system_event_type`, `validation_failed` (an invalid
    `id`, `subject` or `data`), `schema_violation` (the data does not
    satisfy the type's schema), `invalid_time`, `time_out_of_range`; `413`
    `envelope_too_large` when the delivered CloudEvent could exceed the
    delivery limit.

    Args:
        id (str):
        body (SystemEvent): An event of one of Relay's own system families, published for a
            tenant.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Published
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
