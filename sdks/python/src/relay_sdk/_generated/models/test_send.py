from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TestSend")



@_attrs_define
class TestSend:
    """ Which event type a test send samples.

        Attributes:
            event_type (None | str | Unset): The type to send a sample of; default: the first type the endpoint
                subscribes to that has a sample payload.
     """

    event_type: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_type: None | str | Unset
        if isinstance(self.event_type, Unset):
            event_type = UNSET
        else:
            event_type = self.event_type


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if event_type is not UNSET:
            field_dict["event_type"] = event_type

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_event_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_type = _parse_event_type(d.pop("event_type", UNSET))


        test_send = cls(
            event_type=event_type,
        )

        return test_send

