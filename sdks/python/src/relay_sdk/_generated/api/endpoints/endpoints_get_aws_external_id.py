from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.aws_external_id import AwsExternalId
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/aws/external-id",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AwsExternalId | Problem | None:
    if response.status_code == 200:
        response_200 = AwsExternalId.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())



        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AwsExternalId | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[AwsExternalId | Problem]:
    """ Get the AWS ExternalId of the tenant

     The values a role's trust policy names so that Relay may assume it for
    this tenant's endpoints (an `sqs` destination's `role_arn`): the
    tenant's `ExternalId` and, when known, Relay's own principal. See
    docs/destinations.md, "Credentials: keys or a role".

    Tenant API key. `409` `aws_roles_unavailable`: the installation has no
    AWS identity (the operator's `[aws]` section), so no role can be named.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AwsExternalId | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,

) -> AwsExternalId | Problem | None:
    """ Get the AWS ExternalId of the tenant

     The values a role's trust policy names so that Relay may assume it for
    this tenant's endpoints (an `sqs` destination's `role_arn`): the
    tenant's `ExternalId` and, when known, Relay's own principal. See
    docs/destinations.md, "Credentials: keys or a role".

    Tenant API key. `409` `aws_roles_unavailable`: the installation has no
    AWS identity (the operator's `[aws]` section), so no role can be named.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AwsExternalId | Problem
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[AwsExternalId | Problem]:
    """ Get the AWS ExternalId of the tenant

     The values a role's trust policy names so that Relay may assume it for
    this tenant's endpoints (an `sqs` destination's `role_arn`): the
    tenant's `ExternalId` and, when known, Relay's own principal. See
    docs/destinations.md, "Credentials: keys or a role".

    Tenant API key. `409` `aws_roles_unavailable`: the installation has no
    AWS identity (the operator's `[aws]` section), so no role can be named.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AwsExternalId | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,

) -> AwsExternalId | Problem | None:
    """ Get the AWS ExternalId of the tenant

     The values a role's trust policy names so that Relay may assume it for
    this tenant's endpoints (an `sqs` destination's `role_arn`): the
    tenant's `ExternalId` and, when known, Relay's own principal. See
    docs/destinations.md, "Credentials: keys or a role".

    Tenant API key. `409` `aws_roles_unavailable`: the installation has no
    AWS identity (the operator's `[aws]` section), so no role can be named.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AwsExternalId | Problem
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
