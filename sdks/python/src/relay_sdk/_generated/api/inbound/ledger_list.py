from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.page_ledger_entry import PageLedgerEntry
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    *,
    source_id: str | Unset = UNSET,
    provider: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    message_id: str | Unset = UNSET,
    recipient: str | Unset = UNSET,
    receipt_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["source_id"] = source_id

    params["provider"] = provider

    params["event_type"] = event_type

    params["provider_event_id"] = provider_event_id

    params["message_id"] = message_id

    params["recipient"] = recipient

    params["receipt_id"] = receipt_id

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["limit"] = limit

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/ledger",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageLedgerEntry | Problem | None:
    if response.status_code == 200:
        response_200 = PageLedgerEntry.from_dict(response.json())



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

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PageLedgerEntry | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    source_id: str | Unset = UNSET,
    provider: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    message_id: str | Unset = UNSET,
    recipient: str | Unset = UNSET,
    receipt_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageLedgerEntry | Problem]:
    """ List ledger entries

     Lists the provider events Relay verified and recorded, one entry per
    event (a SendGrid batch gives several), append-only, filtered by
    source, provider, event type, ids, recipient and receipt time, a page at
    a time. Tenant API key.

    Args:
        source_id (str | Unset):
        provider (str | Unset):
        event_type (str | Unset):
        provider_event_id (str | Unset):
        message_id (str | Unset):
        recipient (str | Unset):
        receipt_id (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageLedgerEntry | Problem]
     """


    kwargs = _get_kwargs(
        source_id=source_id,
provider=provider,
event_type=event_type,
provider_event_id=provider_event_id,
message_id=message_id,
recipient=recipient,
receipt_id=receipt_id,
since=since,
until=until,
limit=limit,
after=after,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    source_id: str | Unset = UNSET,
    provider: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    message_id: str | Unset = UNSET,
    recipient: str | Unset = UNSET,
    receipt_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageLedgerEntry | Problem | None:
    """ List ledger entries

     Lists the provider events Relay verified and recorded, one entry per
    event (a SendGrid batch gives several), append-only, filtered by
    source, provider, event type, ids, recipient and receipt time, a page at
    a time. Tenant API key.

    Args:
        source_id (str | Unset):
        provider (str | Unset):
        event_type (str | Unset):
        provider_event_id (str | Unset):
        message_id (str | Unset):
        recipient (str | Unset):
        receipt_id (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageLedgerEntry | Problem
     """


    return sync_detailed(
        client=client,
source_id=source_id,
provider=provider,
event_type=event_type,
provider_event_id=provider_event_id,
message_id=message_id,
recipient=recipient,
receipt_id=receipt_id,
since=since,
until=until,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    source_id: str | Unset = UNSET,
    provider: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    message_id: str | Unset = UNSET,
    recipient: str | Unset = UNSET,
    receipt_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageLedgerEntry | Problem]:
    """ List ledger entries

     Lists the provider events Relay verified and recorded, one entry per
    event (a SendGrid batch gives several), append-only, filtered by
    source, provider, event type, ids, recipient and receipt time, a page at
    a time. Tenant API key.

    Args:
        source_id (str | Unset):
        provider (str | Unset):
        event_type (str | Unset):
        provider_event_id (str | Unset):
        message_id (str | Unset):
        recipient (str | Unset):
        receipt_id (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageLedgerEntry | Problem]
     """


    kwargs = _get_kwargs(
        source_id=source_id,
provider=provider,
event_type=event_type,
provider_event_id=provider_event_id,
message_id=message_id,
recipient=recipient,
receipt_id=receipt_id,
since=since,
until=until,
limit=limit,
after=after,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    source_id: str | Unset = UNSET,
    provider: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    message_id: str | Unset = UNSET,
    recipient: str | Unset = UNSET,
    receipt_id: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageLedgerEntry | Problem | None:
    """ List ledger entries

     Lists the provider events Relay verified and recorded, one entry per
    event (a SendGrid batch gives several), append-only, filtered by
    source, provider, event type, ids, recipient and receipt time, a page at
    a time. Tenant API key.

    Args:
        source_id (str | Unset):
        provider (str | Unset):
        event_type (str | Unset):
        provider_event_id (str | Unset):
        message_id (str | Unset):
        recipient (str | Unset):
        receipt_id (str | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageLedgerEntry | Problem
     """


    return (await asyncio_detailed(
        client=client,
source_id=source_id,
provider=provider,
event_type=event_type,
provider_event_id=provider_event_id,
message_id=message_id,
recipient=recipient,
receipt_id=receipt_id,
since=since,
until=until,
limit=limit,
after=after,

    )).parsed
