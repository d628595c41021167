from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.test_send import TestSend
from ...models.test_sent import TestSent
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    id: str,
    *,
    body: TestSend | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/endpoints/{id}/test".format(id=quote(str(id), safe=""),),
    }

    
    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | TestSent | None:
    if response.status_code == 200:
        response_200 = TestSent.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | TestSent]:
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
    body: TestSend | Unset = UNSET,

) -> Response[Problem | TestSent]:
    """ Send a test event to an endpoint

     Publishes a real event of one of the endpoint's types, its sample
    payload with the subject `relay/test`, addressed to the endpoint's
    consumer and delivered to this endpoint alone, and makes its first
    attempt at once; the answer carries the message and the attempt. A
    failed test is retried on the schedule like any message. Without
    `event_type`, the first subscribed type (by name) with a sample is used.
    Audited as `endpoint.test_sent`.

    Tenant API key; `404` for an unknown endpoint. Refused with `422`:
    `not_subscribed`, `unknown_event_type`, `no_sample`,
    `a2a_test_send_unavailable` (an A2A task update type); `413`
    `envelope_too_large`; `429` `manual_attempts_limited` or
    `endpoint_circuit_open`.

    Args:
        id (str):
        body (TestSend | Unset): Which event type a test send samples.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TestSent]
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
    body: TestSend | Unset = UNSET,

) -> Problem | TestSent | None:
    """ Send a test event to an endpoint

     Publishes a real event of one of the endpoint's types, its sample
    payload with the subject `relay/test`, addressed to the endpoint's
    consumer and delivered to this endpoint alone, and makes its first
    attempt at once; the answer carries the message and the attempt. A
    failed test is retried on the schedule like any message. Without
    `event_type`, the first subscribed type (by name) with a sample is used.
    Audited as `endpoint.test_sent`.

    Tenant API key; `404` for an unknown endpoint. Refused with `422`:
    `not_subscribed`, `unknown_event_type`, `no_sample`,
    `a2a_test_send_unavailable` (an A2A task update type); `413`
    `envelope_too_large`; `429` `manual_attempts_limited` or
    `endpoint_circuit_open`.

    Args:
        id (str):
        body (TestSend | Unset): Which event type a test send samples.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TestSent
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
    body: TestSend | Unset = UNSET,

) -> Response[Problem | TestSent]:
    """ Send a test event to an endpoint

     Publishes a real event of one of the endpoint's types, its sample
    payload with the subject `relay/test`, addressed to the endpoint's
    consumer and delivered to this endpoint alone, and makes its first
    attempt at once; the answer carries the message and the attempt. A
    failed test is retried on the schedule like any message. Without
    `event_type`, the first subscribed type (by name) with a sample is used.
    Audited as `endpoint.test_sent`.

    Tenant API key; `404` for an unknown endpoint. Refused with `422`:
    `not_subscribed`, `unknown_event_type`, `no_sample`,
    `a2a_test_send_unavailable` (an A2A task update type); `413`
    `envelope_too_large`; `429` `manual_attempts_limited` or
    `endpoint_circuit_open`.

    Args:
        id (str):
        body (TestSend | Unset): Which event type a test send samples.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TestSent]
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
    body: TestSend | Unset = UNSET,

) -> Problem | TestSent | None:
    """ Send a test event to an endpoint

     Publishes a real event of one of the endpoint's types, its sample
    payload with the subject `relay/test`, addressed to the endpoint's
    consumer and delivered to this endpoint alone, and makes its first
    attempt at once; the answer carries the message and the attempt. A
    failed test is retried on the schedule like any message. Without
    `event_type`, the first subscribed type (by name) with a sample is used.
    Audited as `endpoint.test_sent`.

    Tenant API key; `404` for an unknown endpoint. Refused with `422`:
    `not_subscribed`, `unknown_event_type`, `no_sample`,
    `a2a_test_send_unavailable` (an A2A task update type); `413`
    `envelope_too_large`; `429` `manual_attempts_limited` or
    `endpoint_circuit_open`.

    Args:
        id (str):
        body (TestSend | Unset): Which event type a test send samples.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TestSent
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,

    )).parsed
