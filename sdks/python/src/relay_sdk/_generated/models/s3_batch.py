from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="S3Batch")



@_attrs_define
class S3Batch:
    """ A batch is closed and written once it holds `max_events` events or
    `max_bytes` bytes of JSON Lines, or its first event has waited
    `max_wait_seconds`.

        Attributes:
            max_bytes (int | Unset): Bytes of JSON Lines before compression; default 4194304 (4 MiB). Default: 4194304.
            max_events (int | Unset): Default 500. Default: 500.
            max_wait_seconds (int | Unset): Default 10. Default: 10.
     """

    max_bytes: int | Unset = 4194304
    max_events: int | Unset = 500
    max_wait_seconds: int | Unset = 10





    def to_dict(self) -> dict[str, Any]:
        max_bytes = self.max_bytes

        max_events = self.max_events

        max_wait_seconds = self.max_wait_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if max_bytes is not UNSET:
            field_dict["max_bytes"] = max_bytes
        if max_events is not UNSET:
            field_dict["max_events"] = max_events
        if max_wait_seconds is not UNSET:
            field_dict["max_wait_seconds"] = max_wait_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_bytes = d.pop("max_bytes", UNSET)

        max_events = d.pop("max_events", UNSET)

        max_wait_seconds = d.pop("max_wait_seconds", UNSET)

        s3_batch = cls(
            max_bytes=max_bytes,
            max_events=max_events,
            max_wait_seconds=max_wait_seconds,
        )

        return s3_batch

