from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_workflow_step import CreateWorkflowStep
from ...models.problem import Problem
from ...models.workflow_step import WorkflowStep
from typing import cast



def _get_kwargs(
    *,
    body: CreateWorkflowStep,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/workflow-steps",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WorkflowStep | None:
    if response.status_code == 200:
        response_200 = WorkflowStep.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = WorkflowStep.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WorkflowStep]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWorkflowStep,

) -> Response[Problem | WorkflowStep]:
    """ Run a workflow step

     Delivers one event to one registered endpoint, for a workflow engine:
    the endpoint is named by its id (it must be the key's tenant's and
    environment's, and subscribe to the event's type), never by a URL. The
    event is checked as a publish is, addressed to the endpoint's consumer,
    stored with its one message before `202`, and delivered at least once
    by the same rules as any message (retries, a paused or disabled endpoint
    holds it). Its answer is never recorded beyond its status code: no body,
    header or redirect target of it can be read back, here or anywhere.

    Idempotent by `step_key`: the same request again answers the same step
    (`200`) and delivers nothing more; another request with the key is
    `409 step_key_reused`.

    Tenant API key. `404` for an endpoint not found in the key's
    environment. Refused with `422`: `validation_failed` (`step_key`,
    `event/subject`, `event/ttl_seconds`, undecodable `event/data`),
    `not_subscribed`, `unknown_event_type`, `reserved_event_type`,
    `a2a_update_not_a_step`,
    `schema_violation`, `validation_too_costly`, `invalid_time`,
    `time_out_of_range`; `413` `envelope_too_large`.

    Args:
        body (CreateWorkflowStep): A workflow step to run: deliver `event` to the endpoint
            `endpoint_id`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WorkflowStep]
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
    body: CreateWorkflowStep,

) -> Problem | WorkflowStep | None:
    """ Run a workflow step

     Delivers one event to one registered endpoint, for a workflow engine:
    the endpoint is named by its id (it must be the key's tenant's and
    environment's, and subscribe to the event's type), never by a URL. The
    event is checked as a publish is, addressed to the endpoint's consumer,
    stored with its one message before `202`, and delivered at least once
    by the same rules as any message (retries, a paused or disabled endpoint
    holds it). Its answer is never recorded beyond its status code: no body,
    header or redirect target of it can be read back, here or anywhere.

    Idempotent by `step_key`: the same request again answers the same step
    (`200`) and delivers nothing more; another request with the key is
    `409 step_key_reused`.

    Tenant API key. `404` for an endpoint not found in the key's
    environment. Refused with `422`: `validation_failed` (`step_key`,
    `event/subject`, `event/ttl_seconds`, undecodable `event/data`),
    `not_subscribed`, `unknown_event_type`, `reserved_event_type`,
    `a2a_update_not_a_step`,
    `schema_violation`, `validation_too_costly`, `invalid_time`,
    `time_out_of_range`; `413` `envelope_too_large`.

    Args:
        body (CreateWorkflowStep): A workflow step to run: deliver `event` to the endpoint
            `endpoint_id`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WorkflowStep
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWorkflowStep,

) -> Response[Problem | WorkflowStep]:
    """ Run a workflow step

     Delivers one event to one registered endpoint, for a workflow engine:
    the endpoint is named by its id (it must be the key's tenant's and
    environment's, and subscribe to the event's type), never by a URL. The
    event is checked as a publish is, addressed to the endpoint's consumer,
    stored with its one message before `202`, and delivered at least once
    by the same rules as any message (retries, a paused or disabled endpoint
    holds it). Its answer is never recorded beyond its status code: no body,
    header or redirect target of it can be read back, here or anywhere.

    Idempotent by `step_key`: the same request again answers the same step
    (`200`) and delivers nothing more; another request with the key is
    `409 step_key_reused`.

    Tenant API key. `404` for an endpoint not found in the key's
    environment. Refused with `422`: `validation_failed` (`step_key`,
    `event/subject`, `event/ttl_seconds`, undecodable `event/data`),
    `not_subscribed`, `unknown_event_type`, `reserved_event_type`,
    `a2a_update_not_a_step`,
    `schema_violation`, `validation_too_costly`, `invalid_time`,
    `time_out_of_range`; `413` `envelope_too_large`.

    Args:
        body (CreateWorkflowStep): A workflow step to run: deliver `event` to the endpoint
            `endpoint_id`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WorkflowStep]
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
    body: CreateWorkflowStep,

) -> Problem | WorkflowStep | None:
    """ Run a workflow step

     Delivers one event to one registered endpoint, for a workflow engine:
    the endpoint is named by its id (it must be the key's tenant's and
    environment's, and subscribe to the event's type), never by a URL. The
    event is checked as a publish is, addressed to the endpoint's consumer,
    stored with its one message before `202`, and delivered at least once
    by the same rules as any message (retries, a paused or disabled endpoint
    holds it). Its answer is never recorded beyond its status code: no body,
    header or redirect target of it can be read back, here or anywhere.

    Idempotent by `step_key`: the same request again answers the same step
    (`200`) and delivers nothing more; another request with the key is
    `409 step_key_reused`.

    Tenant API key. `404` for an endpoint not found in the key's
    environment. Refused with `422`: `validation_failed` (`step_key`,
    `event/subject`, `event/ttl_seconds`, undecodable `event/data`),
    `not_subscribed`, `unknown_event_type`, `reserved_event_type`,
    `a2a_update_not_a_step`,
    `schema_violation`, `validation_too_costly`, `invalid_time`,
    `time_out_of_range`; `413` `envelope_too_large`.

    Args:
        body (CreateWorkflowStep): A workflow step to run: deliver `event` to the endpoint
            `endpoint_id`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WorkflowStep
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
