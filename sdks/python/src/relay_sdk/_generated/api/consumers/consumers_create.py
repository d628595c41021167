from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.consumer import Consumer
from ...models.create_consumer import CreateConsumer
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: CreateConsumer,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/consumers",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Consumer | Problem | None:
    if response.status_code == 201:
        response_201 = Consumer.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Consumer | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateConsumer,

) -> Response[Consumer | Problem]:
    """ Create a consumer

     Registers a party that receives events: one of your customers (kind
    `customer`, the default) or yourself (kind `tenant`, at most one per
    environment, the only consumer whose endpoints may receive Relay's
    operational events). Endpoints belong to a consumer; deliveries to them
    carry its `source`.

    Tenant API key; the consumer is in the key's environment. Refused with
    `409` `conflict` (the `external_id` exists) or `tenant_consumer_exists`;
    `422` `validation_failed` (`external_id`, `name`) or `invalid_source`.

    Args:
        body (CreateConsumer): A new consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Consumer | Problem]
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
    body: CreateConsumer,

) -> Consumer | Problem | None:
    """ Create a consumer

     Registers a party that receives events: one of your customers (kind
    `customer`, the default) or yourself (kind `tenant`, at most one per
    environment, the only consumer whose endpoints may receive Relay's
    operational events). Endpoints belong to a consumer; deliveries to them
    carry its `source`.

    Tenant API key; the consumer is in the key's environment. Refused with
    `409` `conflict` (the `external_id` exists) or `tenant_consumer_exists`;
    `422` `validation_failed` (`external_id`, `name`) or `invalid_source`.

    Args:
        body (CreateConsumer): A new consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Consumer | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateConsumer,

) -> Response[Consumer | Problem]:
    """ Create a consumer

     Registers a party that receives events: one of your customers (kind
    `customer`, the default) or yourself (kind `tenant`, at most one per
    environment, the only consumer whose endpoints may receive Relay's
    operational events). Endpoints belong to a consumer; deliveries to them
    carry its `source`.

    Tenant API key; the consumer is in the key's environment. Refused with
    `409` `conflict` (the `external_id` exists) or `tenant_consumer_exists`;
    `422` `validation_failed` (`external_id`, `name`) or `invalid_source`.

    Args:
        body (CreateConsumer): A new consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Consumer | Problem]
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
    body: CreateConsumer,

) -> Consumer | Problem | None:
    """ Create a consumer

     Registers a party that receives events: one of your customers (kind
    `customer`, the default) or yourself (kind `tenant`, at most one per
    environment, the only consumer whose endpoints may receive Relay's
    operational events). Endpoints belong to a consumer; deliveries to them
    carry its `source`.

    Tenant API key; the consumer is in the key's environment. Refused with
    `409` `conflict` (the `external_id` exists) or `tenant_consumer_exists`;
    `422` `validation_failed` (`external_id`, `name`) or `invalid_source`.

    Args:
        body (CreateConsumer): A new consumer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Consumer | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
