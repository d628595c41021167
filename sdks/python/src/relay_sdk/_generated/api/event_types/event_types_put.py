from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.event_type_out import EventTypeOut
from ...models.problem import Problem
from ...models.put_event_type_body import PutEventTypeBody
from typing import cast



def _get_kwargs(
    name: str,
    *,
    body: PutEventTypeBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/event-types/{name}".format(name=quote(str(name), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventTypeOut | Problem | None:
    if response.status_code == 200:
        response_200 = EventTypeOut.from_dict(response.json())



        return response_200

    if response.status_code == 201:
        response_201 = EventTypeOut.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventTypeOut | Problem]:
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
    body: PutEventTypeBody,

) -> Response[EventTypeOut | Problem]:
    """ Create or update an event type

     Puts an event type in the catalog of the key's environment: the first
    `PUT` creates it (`201`); a later one whose `schema` or `thin_fields`
    differ from the current version's opens a new version (`200`), which
    new events are validated against; one that changes only the
    `description`, `audience`, `sample` or `personal_data_fields` updates the
    type in place (`200`; marking data personal takes effect without a new
    version).
    Earlier versions stay, and events keep the version they were validated
    against. The name is `noun.verb_past` in lower-case snake case
    (`order.shipped`), at most 128 characters.

    Tenant API key. Refused with `422`: `reserved_event_type` (one of Relay's
    operational types), `validation_failed` (the name, the description, a
    field list naming a field the schema does not declare, a thin field
    holding personal data), `invalid_schema`, `schema_too_large`,
    `schema_too_complex`, `unsupported_pattern`, `schema_violation` or
    `validation_too_costly` (the sample); `429` `busy`.

    Args:
        name (str):
        body (PutEventTypeBody): An event type's definition: its schema and field lists (a new
            version
            when they change), its description and audience.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventTypeOut | Problem]
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
    body: PutEventTypeBody,

) -> EventTypeOut | Problem | None:
    """ Create or update an event type

     Puts an event type in the catalog of the key's environment: the first
    `PUT` creates it (`201`); a later one whose `schema` or `thin_fields`
    differ from the current version's opens a new version (`200`), which
    new events are validated against; one that changes only the
    `description`, `audience`, `sample` or `personal_data_fields` updates the
    type in place (`200`; marking data personal takes effect without a new
    version).
    Earlier versions stay, and events keep the version they were validated
    against. The name is `noun.verb_past` in lower-case snake case
    (`order.shipped`), at most 128 characters.

    Tenant API key. Refused with `422`: `reserved_event_type` (one of Relay's
    operational types), `validation_failed` (the name, the description, a
    field list naming a field the schema does not declare, a thin field
    holding personal data), `invalid_schema`, `schema_too_large`,
    `schema_too_complex`, `unsupported_pattern`, `schema_violation` or
    `validation_too_costly` (the sample); `429` `busy`.

    Args:
        name (str):
        body (PutEventTypeBody): An event type's definition: its schema and field lists (a new
            version
            when they change), its description and audience.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventTypeOut | Problem
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
    body: PutEventTypeBody,

) -> Response[EventTypeOut | Problem]:
    """ Create or update an event type

     Puts an event type in the catalog of the key's environment: the first
    `PUT` creates it (`201`); a later one whose `schema` or `thin_fields`
    differ from the current version's opens a new version (`200`), which
    new events are validated against; one that changes only the
    `description`, `audience`, `sample` or `personal_data_fields` updates the
    type in place (`200`; marking data personal takes effect without a new
    version).
    Earlier versions stay, and events keep the version they were validated
    against. The name is `noun.verb_past` in lower-case snake case
    (`order.shipped`), at most 128 characters.

    Tenant API key. Refused with `422`: `reserved_event_type` (one of Relay's
    operational types), `validation_failed` (the name, the description, a
    field list naming a field the schema does not declare, a thin field
    holding personal data), `invalid_schema`, `schema_too_large`,
    `schema_too_complex`, `unsupported_pattern`, `schema_violation` or
    `validation_too_costly` (the sample); `429` `busy`.

    Args:
        name (str):
        body (PutEventTypeBody): An event type's definition: its schema and field lists (a new
            version
            when they change), its description and audience.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventTypeOut | Problem]
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
    body: PutEventTypeBody,

) -> EventTypeOut | Problem | None:
    """ Create or update an event type

     Puts an event type in the catalog of the key's environment: the first
    `PUT` creates it (`201`); a later one whose `schema` or `thin_fields`
    differ from the current version's opens a new version (`200`), which
    new events are validated against; one that changes only the
    `description`, `audience`, `sample` or `personal_data_fields` updates the
    type in place (`200`; marking data personal takes effect without a new
    version).
    Earlier versions stay, and events keep the version they were validated
    against. The name is `noun.verb_past` in lower-case snake case
    (`order.shipped`), at most 128 characters.

    Tenant API key. Refused with `422`: `reserved_event_type` (one of Relay's
    operational types), `validation_failed` (the name, the description, a
    field list naming a field the schema does not declare, a thin field
    holding personal data), `invalid_schema`, `schema_too_large`,
    `schema_too_complex`, `unsupported_pattern`, `schema_violation` or
    `validation_too_costly` (the sample); `429` `busy`.

    Args:
        name (str):
        body (PutEventTypeBody): An event type's definition: its schema and field lists (a new
            version
            when they change), its description and audience.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventTypeOut | Problem
     """


    return (await asyncio_detailed(
        name=name,
client=client,
body=body,

    )).parsed
