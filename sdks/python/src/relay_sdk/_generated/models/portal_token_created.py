from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.capability import Capability
from typing import cast
import datetime






T = TypeVar("T", bound="PortalTokenCreated")



@_attrs_define
class PortalTokenCreated:
    """ A minted token: `token` is shown this once.

        Attributes:
            allowed_origins (list[str]): Origins whose pages may use it.
            capabilities (list[Capability]): What it allows beyond reading (none: read-only).
            consumer_id (str): The consumer whose portal it opens.
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            embed_url (str): The same page for an iframe: framed only by the brand's `embed_origins`.
            expires_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            id (str): The token's id (`ptk_…`), to read or revoke it; not the token.
            token (str): `rpt_…`: pass it to the portal in the URL fragment or the component's
                `token` property, never in a query string.
            url (str): The hosted page, relative to Relay's address, with the token in the
                fragment (never sent to a server): to open in a browser tab.
     """

    allowed_origins: list[str]
    capabilities: list[Capability]
    consumer_id: str
    created_at: datetime.datetime
    embed_url: str
    expires_at: datetime.datetime
    id: str
    token: str
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        allowed_origins = self.allowed_origins



        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        created_at = self.created_at.isoformat()

        embed_url = self.embed_url

        expires_at = self.expires_at.isoformat()

        id = self.id

        token = self.token

        url = self.url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allowed_origins": allowed_origins,
            "capabilities": capabilities,
            "consumer_id": consumer_id,
            "created_at": created_at,
            "embed_url": embed_url,
            "expires_at": expires_at,
            "id": id,
            "token": token,
            "url": url,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        allowed_origins = cast(list[str], d.pop("allowed_origins"))


        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = Capability(capabilities_item_data)



            capabilities.append(capabilities_item)


        consumer_id = d.pop("consumer_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        embed_url = d.pop("embed_url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        id = d.pop("id")

        token = d.pop("token")

        url = d.pop("url")

        portal_token_created = cls(
            allowed_origins=allowed_origins,
            capabilities=capabilities,
            consumer_id=consumer_id,
            created_at=created_at,
            embed_url=embed_url,
            expires_at=expires_at,
            id=id,
            token=token,
            url=url,
        )


        portal_token_created.additional_properties = d
        return portal_token_created

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
