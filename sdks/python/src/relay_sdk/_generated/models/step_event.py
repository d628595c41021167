from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.step_event_data import StepEventData





T = TypeVar("T", bound="StepEvent")



@_attrs_define
class StepEvent:
    """ The event a workflow step delivers.

        Attributes:
            data (StepEventData): The payload; it must satisfy the event type's current schema. Kept byte for byte.
            type_ (str): The event type's name, from the catalog; the endpoint must subscribe to it.
            subject (None | str | Unset): The CloudEvents `subject`: 1 to 1024 bytes, no control characters.
            time (datetime.datetime | None | Unset): When the event happened (the CloudEvents `time`), RFC 3339; defaults
                to now. From 1970-01-01T00:00:00Z to 5 minutes after Relay's clock.
            ttl_seconds (int | None | Unset): Give up delivering after this many seconds (state `expired`).
     """

    data: StepEventData
    type_: str
    subject: None | str | Unset = UNSET
    time: datetime.datetime | None | Unset = UNSET
    ttl_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_event_data import StepEventData # noqa: PLC0415
        data = self.data.to_dict()

        type_ = self.type_

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        time: None | str | Unset
        if isinstance(self.time, Unset):
            time = UNSET
        elif isinstance(self.time, datetime.datetime):
            time = self.time.isoformat()
        else:
            time = self.time

        ttl_seconds: int | None | Unset
        if isinstance(self.ttl_seconds, Unset):
            ttl_seconds = UNSET
        else:
            ttl_seconds = self.ttl_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "data": data,
            "type": type_,
        })
        if subject is not UNSET:
            field_dict["subject"] = subject
        if time is not UNSET:
            field_dict["time"] = time
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_event_data import StepEventData # noqa: PLC0415
        d = dict(src_dict)
        data = StepEventData.from_dict(d.pop("data"))




        type_ = d.pop("type")

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))


        def _parse_time(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                time_type_0 = datetime.datetime.fromisoformat(data)



                return time_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        time = _parse_time(d.pop("time", UNSET))


        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))


        step_event = cls(
            data=data,
            type_=type_,
            subject=subject,
            time=time,
            ttl_seconds=ttl_seconds,
        )

        return step_event

