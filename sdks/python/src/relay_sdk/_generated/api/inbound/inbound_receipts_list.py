from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.page_receipt import PageReceipt
from ...models.problem import Problem
from ...models.receipt_state import ReceiptState
from ...models.verdict import Verdict
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    source_id: str | Unset = UNSET,
    verdict: Verdict | Unset = UNSET,
    state: ReceiptState | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["source_id"] = source_id

    json_verdict: str | Unset = UNSET
    if not isinstance(verdict, Unset):
        json_verdict = verdict.value

    params["verdict"] = json_verdict

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state.value

    params["state"] = json_state

    params["provider_event_id"] = provider_event_id

    params["limit"] = limit

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/inbound-receipts",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageReceipt | Problem | None:
    if response.status_code == 200:
        response_200 = PageReceipt.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PageReceipt | Problem]:
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
    verdict: Verdict | Unset = UNSET,
    state: ReceiptState | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageReceipt | Problem]:
    """ List inbound receipts

     Lists the requests the key's inbound sources received, verified and
    rejected, each with its verdict (and refusal), how many times the
    provider sent it, and its processing state, a page at a time. Tenant API
    key.

    Args:
        source_id (str | Unset):
        verdict (Verdict | Unset): What the signature check said of a received request:
            `verified`, or
            `rejected` (kept for diagnosis, never processed).
        state (ReceiptState | Unset): Where a receipt is in its processing.
        provider_event_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageReceipt | Problem]
     """


    kwargs = _get_kwargs(
        source_id=source_id,
verdict=verdict,
state=state,
provider_event_id=provider_event_id,
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
    verdict: Verdict | Unset = UNSET,
    state: ReceiptState | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageReceipt | Problem | None:
    """ List inbound receipts

     Lists the requests the key's inbound sources received, verified and
    rejected, each with its verdict (and refusal), how many times the
    provider sent it, and its processing state, a page at a time. Tenant API
    key.

    Args:
        source_id (str | Unset):
        verdict (Verdict | Unset): What the signature check said of a received request:
            `verified`, or
            `rejected` (kept for diagnosis, never processed).
        state (ReceiptState | Unset): Where a receipt is in its processing.
        provider_event_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageReceipt | Problem
     """


    return sync_detailed(
        client=client,
source_id=source_id,
verdict=verdict,
state=state,
provider_event_id=provider_event_id,
limit=limit,
after=after,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    source_id: str | Unset = UNSET,
    verdict: Verdict | Unset = UNSET,
    state: ReceiptState | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> Response[PageReceipt | Problem]:
    """ List inbound receipts

     Lists the requests the key's inbound sources received, verified and
    rejected, each with its verdict (and refusal), how many times the
    provider sent it, and its processing state, a page at a time. Tenant API
    key.

    Args:
        source_id (str | Unset):
        verdict (Verdict | Unset): What the signature check said of a received request:
            `verified`, or
            `rejected` (kept for diagnosis, never processed).
        state (ReceiptState | Unset): Where a receipt is in its processing.
        provider_event_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageReceipt | Problem]
     """


    kwargs = _get_kwargs(
        source_id=source_id,
verdict=verdict,
state=state,
provider_event_id=provider_event_id,
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
    verdict: Verdict | Unset = UNSET,
    state: ReceiptState | Unset = UNSET,
    provider_event_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,

) -> PageReceipt | Problem | None:
    """ List inbound receipts

     Lists the requests the key's inbound sources received, verified and
    rejected, each with its verdict (and refusal), how many times the
    provider sent it, and its processing state, a page at a time. Tenant API
    key.

    Args:
        source_id (str | Unset):
        verdict (Verdict | Unset): What the signature check said of a received request:
            `verified`, or
            `rejected` (kept for diagnosis, never processed).
        state (ReceiptState | Unset): Where a receipt is in its processing.
        provider_event_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageReceipt | Problem
     """


    return (await asyncio_detailed(
        client=client,
source_id=source_id,
verdict=verdict,
state=state,
provider_event_id=provider_event_id,
limit=limit,
after=after,

    )).parsed
