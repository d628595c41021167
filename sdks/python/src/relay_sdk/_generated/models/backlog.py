from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Backlog")



@_attrs_define
class Backlog:
    """ What the endpoint has still to deliver.

        Attributes:
            size (int): Messages still to deliver (`scheduled`, `in_flight`, `held`).
            oldest_age_seconds (int | None | Unset): Age of the oldest of them, in seconds; `null` when there are none.
     """

    size: int
    oldest_age_seconds: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        size = self.size

        oldest_age_seconds: int | None | Unset
        if isinstance(self.oldest_age_seconds, Unset):
            oldest_age_seconds = UNSET
        else:
            oldest_age_seconds = self.oldest_age_seconds


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "size": size,
        })
        if oldest_age_seconds is not UNSET:
            field_dict["oldest_age_seconds"] = oldest_age_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        size = d.pop("size")

        def _parse_oldest_age_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        oldest_age_seconds = _parse_oldest_age_seconds(d.pop("oldest_age_seconds", UNSET))


        backlog = cls(
            size=size,
            oldest_age_seconds=oldest_age_seconds,
        )


        backlog.additional_properties = d
        return backlog

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
