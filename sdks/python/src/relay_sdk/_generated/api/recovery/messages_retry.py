from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.bulk_retry import BulkRetry
from ...models.job import Job
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: BulkRetry | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/messages/retry",
    }

    
    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Job | Problem | None:
    if response.status_code == 202:
        response_202 = Job.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Job | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BulkRetry | Unset = UNSET,

) -> Response[Job | Problem]:
    """ Retry failed messages in bulk

     Queues a durable job that restarts the schedule of the failed messages
    (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`,
    `cancelled`) the filter selects, across endpoints, as paced recovery
    traffic; every field narrows the selection, and an empty body selects
    every failed message within retention. The job works in batches and
    resumes after a restart; follow it with `GET /v1/jobs/{id}`. Audited as
    `messages.bulk_retry`.

    Tenant API key. Refused with `422` `validation_failed` (a `state` that is
    not a failed one, `until` not after `since`) or `outside_retention`.

    Args:
        body (BulkRetry | Unset): The messages a bulk retry restarts; every field narrows the
            selection.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Job | Problem]
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
    body: BulkRetry | Unset = UNSET,

) -> Job | Problem | None:
    """ Retry failed messages in bulk

     Queues a durable job that restarts the schedule of the failed messages
    (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`,
    `cancelled`) the filter selects, across endpoints, as paced recovery
    traffic; every field narrows the selection, and an empty body selects
    every failed message within retention. The job works in batches and
    resumes after a restart; follow it with `GET /v1/jobs/{id}`. Audited as
    `messages.bulk_retry`.

    Tenant API key. Refused with `422` `validation_failed` (a `state` that is
    not a failed one, `until` not after `since`) or `outside_retention`.

    Args:
        body (BulkRetry | Unset): The messages a bulk retry restarts; every field narrows the
            selection.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Job | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BulkRetry | Unset = UNSET,

) -> Response[Job | Problem]:
    """ Retry failed messages in bulk

     Queues a durable job that restarts the schedule of the failed messages
    (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`,
    `cancelled`) the filter selects, across endpoints, as paced recovery
    traffic; every field narrows the selection, and an empty body selects
    every failed message within retention. The job works in batches and
    resumes after a restart; follow it with `GET /v1/jobs/{id}`. Audited as
    `messages.bulk_retry`.

    Tenant API key. Refused with `422` `validation_failed` (a `state` that is
    not a failed one, `until` not after `since`) or `outside_retention`.

    Args:
        body (BulkRetry | Unset): The messages a bulk retry restarts; every field narrows the
            selection.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Job | Problem]
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
    body: BulkRetry | Unset = UNSET,

) -> Job | Problem | None:
    """ Retry failed messages in bulk

     Queues a durable job that restarts the schedule of the failed messages
    (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`,
    `cancelled`) the filter selects, across endpoints, as paced recovery
    traffic; every field narrows the selection, and an empty body selects
    every failed message within retention. The job works in batches and
    resumes after a restart; follow it with `GET /v1/jobs/{id}`. Audited as
    `messages.bulk_retry`.

    Tenant API key. Refused with `422` `validation_failed` (a `state` that is
    not a failed one, `until` not after `since`) or `outside_retention`.

    Args:
        body (BulkRetry | Unset): The messages a bulk retry restarts; every field narrows the
            selection.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Job | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
