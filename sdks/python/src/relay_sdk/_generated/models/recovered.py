from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Recovered")



@_attrs_define
class Recovered:
    """ What a recover restarted.

        Attributes:
            in_flight (int): Messages in range left as they were because a manual attempt
                (resend) was on the wire: at most one attempt runs for a message at
                a time. Recover again once it has ended.
            requeued (int): Messages whose schedule restarted.
     """

    in_flight: int
    requeued: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        in_flight = self.in_flight

        requeued = self.requeued


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "in_flight": in_flight,
            "requeued": requeued,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        in_flight = d.pop("in_flight")

        requeued = d.pop("requeued")

        recovered = cls(
            in_flight=in_flight,
            requeued=requeued,
        )


        recovered.additional_properties = d
        return recovered

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
