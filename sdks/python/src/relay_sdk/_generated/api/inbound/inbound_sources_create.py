from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_inbound_source import CreateInboundSource
from ...models.inbound_source import InboundSource
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: CreateInboundSource,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/inbound-sources",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> InboundSource | Problem | None:
    if response.status_code == 201:
        response_201 = InboundSource.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[InboundSource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateInboundSource,

) -> Response[InboundSource | Problem]:
    """ Create an inbound source

     Registers where one provider's webhooks (Stripe, GitHub, Twilio,
    SendGrid, Mailgun, any Standard Webhooks sender, or a generic HMAC
    signer) for the key's tenant and environment arrive: the answer's `path`
    (`/inbound/<token>`, 128 random bits: treat it as a credential) and,
    when the operator set a public URL, `url`, to give the provider. Relay
    verifies every request there with the preset's scheme, keeps it as a
    receipt and writes its events to the ledger. The signing secret is a
    value (sealed at rest, never shown again) or a secret reference, which
    must resolve now. Audited as `inbound_source.created`.

    Tenant API key. Refused with `422`: `validation_failed` (`name`,
    `provider`, the limits, the options, neither or both of `secret` and
    `secret_ref`), `invalid_secret` (not a secret the preset accepts), a
    reference that does not resolve (`secret_not_found`, …).

    Args:
        body (CreateInboundSource): A new inbound source: one provider's webhooks for the key's
            tenant and
            environment, and the secret that verifies them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InboundSource | Problem]
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
    body: CreateInboundSource,

) -> InboundSource | Problem | None:
    """ Create an inbound source

     Registers where one provider's webhooks (Stripe, GitHub, Twilio,
    SendGrid, Mailgun, any Standard Webhooks sender, or a generic HMAC
    signer) for the key's tenant and environment arrive: the answer's `path`
    (`/inbound/<token>`, 128 random bits: treat it as a credential) and,
    when the operator set a public URL, `url`, to give the provider. Relay
    verifies every request there with the preset's scheme, keeps it as a
    receipt and writes its events to the ledger. The signing secret is a
    value (sealed at rest, never shown again) or a secret reference, which
    must resolve now. Audited as `inbound_source.created`.

    Tenant API key. Refused with `422`: `validation_failed` (`name`,
    `provider`, the limits, the options, neither or both of `secret` and
    `secret_ref`), `invalid_secret` (not a secret the preset accepts), a
    reference that does not resolve (`secret_not_found`, …).

    Args:
        body (CreateInboundSource): A new inbound source: one provider's webhooks for the key's
            tenant and
            environment, and the secret that verifies them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InboundSource | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateInboundSource,

) -> Response[InboundSource | Problem]:
    """ Create an inbound source

     Registers where one provider's webhooks (Stripe, GitHub, Twilio,
    SendGrid, Mailgun, any Standard Webhooks sender, or a generic HMAC
    signer) for the key's tenant and environment arrive: the answer's `path`
    (`/inbound/<token>`, 128 random bits: treat it as a credential) and,
    when the operator set a public URL, `url`, to give the provider. Relay
    verifies every request there with the preset's scheme, keeps it as a
    receipt and writes its events to the ledger. The signing secret is a
    value (sealed at rest, never shown again) or a secret reference, which
    must resolve now. Audited as `inbound_source.created`.

    Tenant API key. Refused with `422`: `validation_failed` (`name`,
    `provider`, the limits, the options, neither or both of `secret` and
    `secret_ref`), `invalid_secret` (not a secret the preset accepts), a
    reference that does not resolve (`secret_not_found`, …).

    Args:
        body (CreateInboundSource): A new inbound source: one provider's webhooks for the key's
            tenant and
            environment, and the secret that verifies them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InboundSource | Problem]
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
    body: CreateInboundSource,

) -> InboundSource | Problem | None:
    """ Create an inbound source

     Registers where one provider's webhooks (Stripe, GitHub, Twilio,
    SendGrid, Mailgun, any Standard Webhooks sender, or a generic HMAC
    signer) for the key's tenant and environment arrive: the answer's `path`
    (`/inbound/<token>`, 128 random bits: treat it as a credential) and,
    when the operator set a public URL, `url`, to give the provider. Relay
    verifies every request there with the preset's scheme, keeps it as a
    receipt and writes its events to the ledger. The signing secret is a
    value (sealed at rest, never shown again) or a secret reference, which
    must resolve now. Audited as `inbound_source.created`.

    Tenant API key. Refused with `422`: `validation_failed` (`name`,
    `provider`, the limits, the options, neither or both of `secret` and
    `secret_ref`), `invalid_secret` (not a secret the preset accepts), a
    reference that does not resolve (`secret_not_found`, …).

    Args:
        body (CreateInboundSource): A new inbound source: one provider's webhooks for the key's
            tenant and
            environment, and the secret that verifies them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InboundSource | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
