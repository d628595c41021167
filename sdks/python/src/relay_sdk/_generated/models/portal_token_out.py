from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.capability import Capability
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="PortalTokenOut")



@_attrs_define
class PortalTokenOut:
    """ A portal token as listed: never the token itself.

        Attributes:
            allowed_origins (list[str]): Origins whose pages may use it.
            capabilities (list[Capability]): What it allows beyond reading (none: read-only).
            consumer_id (str): The consumer whose portal it opens.
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            expires_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            id (str): The token's id (`ptk_…`).
            revoked_at (datetime.datetime | None | Unset):
     """

    allowed_origins: list[str]
    capabilities: list[Capability]
    consumer_id: str
    created_at: datetime.datetime
    expires_at: datetime.datetime
    id: str
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        allowed_origins = self.allowed_origins



        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        id = self.id

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allowed_origins": allowed_origins,
            "capabilities": capabilities,
            "consumer_id": consumer_id,
            "created_at": created_at,
            "expires_at": expires_at,
            "id": id,
        })
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

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




        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        id = d.pop("id")

        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))


        portal_token_out = cls(
            allowed_origins=allowed_origins,
            capabilities=capabilities,
            consumer_id=consumer_id,
            created_at=created_at,
            expires_at=expires_at,
            id=id,
            revoked_at=revoked_at,
        )


        portal_token_out.additional_properties = d
        return portal_token_out

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
