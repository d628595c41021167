from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.workflow_step import WorkflowStep
from typing import cast



def _get_kwargs(
    step_key: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/workflow-steps/{step_key}".format(step_key=quote(str(step_key), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WorkflowStep | None:
    if response.status_code == 200:
        response_200 = WorkflowStep.from_dict(response.json())



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
    step_key: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | WorkflowStep]:
    """ Get a workflow step's outcome

     The delivery's outcome and nothing of the receiver's answer but its
    status code: the message's state, the last attempt's `status_code`, how
    many attempts were made, and when. A `step_key` with `/` is sent
    percent-encoded (`%2F`).

    Tenant API key; `404` for a key with no step in the key's tenant and
    environment (or whose event the retention period has purged).

    Args:
        step_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WorkflowStep]
     """


    kwargs = _get_kwargs(
        step_key=step_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    step_key: str,
    *,
    client: AuthenticatedClient,

) -> Problem | WorkflowStep | None:
    """ Get a workflow step's outcome

     The delivery's outcome and nothing of the receiver's answer but its
    status code: the message's state, the last attempt's `status_code`, how
    many attempts were made, and when. A `step_key` with `/` is sent
    percent-encoded (`%2F`).

    Tenant API key; `404` for a key with no step in the key's tenant and
    environment (or whose event the retention period has purged).

    Args:
        step_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WorkflowStep
     """


    return sync_detailed(
        step_key=step_key,
client=client,

    ).parsed

async def asyncio_detailed(
    step_key: str,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | WorkflowStep]:
    """ Get a workflow step's outcome

     The delivery's outcome and nothing of the receiver's answer but its
    status code: the message's state, the last attempt's `status_code`, how
    many attempts were made, and when. A `step_key` with `/` is sent
    percent-encoded (`%2F`).

    Tenant API key; `404` for a key with no step in the key's tenant and
    environment (or whose event the retention period has purged).

    Args:
        step_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WorkflowStep]
     """


    kwargs = _get_kwargs(
        step_key=step_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    step_key: str,
    *,
    client: AuthenticatedClient,

) -> Problem | WorkflowStep | None:
    """ Get a workflow step's outcome

     The delivery's outcome and nothing of the receiver's answer but its
    status code: the message's state, the last attempt's `status_code`, how
    many attempts were made, and when. A `step_key` with `/` is sent
    percent-encoded (`%2F`).

    Tenant API key; `404` for a key with no step in the key's tenant and
    environment (or whose event the retention period has purged).

    Args:
        step_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WorkflowStep
     """


    return (await asyncio_detailed(
        step_key=step_key,
client=client,

    )).parsed
