from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.capability import Capability
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="MintPortalToken")



@_attrs_define
class MintPortalToken:
    """ A portal token to mint: whose portal it opens, for how long, allowing what.

        Attributes:
            consumer_id (str): The consumer whose portal this opens.
            allowed_origins (list[str] | Unset): Origins whose pages may use the token (embedded components call the
                API from them); Relay's own hosted page may always.
            capabilities (list[Capability] | Unset): What the token allows beyond reading; absent or empty: read-only.
            lifetime_seconds (int | None | Unset): 60 to 86400 seconds (default 3600).
     """

    consumer_id: str
    allowed_origins: list[str] | Unset = UNSET
    capabilities: list[Capability] | Unset = UNSET
    lifetime_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        consumer_id = self.consumer_id

        allowed_origins: list[str] | Unset = UNSET
        if not isinstance(self.allowed_origins, Unset):
            allowed_origins = self.allowed_origins



        capabilities: list[str] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = []
            for capabilities_item_data in self.capabilities:
                capabilities_item = capabilities_item_data.value
                capabilities.append(capabilities_item)



        lifetime_seconds: int | None | Unset
        if isinstance(self.lifetime_seconds, Unset):
            lifetime_seconds = UNSET
        else:
            lifetime_seconds = self.lifetime_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "consumer_id": consumer_id,
        })
        if allowed_origins is not UNSET:
            field_dict["allowed_origins"] = allowed_origins
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if lifetime_seconds is not UNSET:
            field_dict["lifetime_seconds"] = lifetime_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer_id = d.pop("consumer_id")

        allowed_origins = cast(list[str], d.pop("allowed_origins", UNSET))


        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[Capability] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = Capability(capabilities_item_data)



                capabilities.append(capabilities_item)


        def _parse_lifetime_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lifetime_seconds = _parse_lifetime_seconds(d.pop("lifetime_seconds", UNSET))


        mint_portal_token = cls(
            consumer_id=consumer_id,
            allowed_origins=allowed_origins,
            capabilities=capabilities,
            lifetime_seconds=lifetime_seconds,
        )

        return mint_portal_token

