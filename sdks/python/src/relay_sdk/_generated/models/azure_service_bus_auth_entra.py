from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AzureServiceBusAuthEntra")



@_attrs_define
class AzureServiceBusAuthEntra:
    """ Microsoft Entra ID client credentials (an app registration with the
    `Azure Service Bus Data Sender` role on the entity): a token of
    scope `https://servicebus.azure.net/.default`, cached until shortly
    before it expires.

        Attributes:
            client_id (str): The application (client) id.
            client_secret (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                client secret, never the secret itself.
            tenant_id (str): The directory (tenant) id: a GUID or a domain name.
            token_url (None | str | Unset): The token endpoint; default the namespace's cloud's,
                `https://login.microsoftonline.com/<tenant_id>/oauth2/v2.0/token`.
                Checked by the outbound guard like the service's host.
     """

    client_id: str
    client_secret: str
    tenant_id: str
    token_url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        client_secret = self.client_secret

        tenant_id = self.tenant_id

        token_url: None | str | Unset
        if isinstance(self.token_url, Unset):
            token_url = UNSET
        else:
            token_url = self.token_url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "client_id": client_id,
            "client_secret": client_secret,
            "tenant_id": tenant_id,
        })
        if token_url is not UNSET:
            field_dict["token_url"] = token_url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = d.pop("client_id")

        client_secret = d.pop("client_secret")

        tenant_id = d.pop("tenant_id")

        def _parse_token_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token_url = _parse_token_url(d.pop("token_url", UNSET))


        azure_service_bus_auth_entra = cls(
            client_id=client_id,
            client_secret=client_secret,
            tenant_id=tenant_id,
            token_url=token_url,
        )

        return azure_service_bus_auth_entra

