from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateTenant")



@_attrs_define
class CreateTenant:
    """ A new tenant.

        Attributes:
            name (str): Its display name: 1 to 200 characters, not blank.
            parent_id (None | str | Unset): Makes this a sub-tenant of an existing tenant.
     """

    name: str
    parent_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        parent_id: None | str | Unset
        if isinstance(self.parent_id, Unset):
            parent_id = UNSET
        else:
            parent_id = self.parent_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_parent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent_id = _parse_parent_id(d.pop("parent_id", UNSET))


        create_tenant = cls(
            name=name,
            parent_id=parent_id,
        )

        return create_tenant

