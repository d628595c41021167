from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.system_event_data import SystemEventData





T = TypeVar("T", bound="SystemEvent")



@_attrs_define
class SystemEvent:
    """ An event of one of Relay's own system families, published for a tenant.

        Attributes:
            data (SystemEventData): The payload; it must satisfy the type's schema.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            type_ (str): One of the system event types (`GET /v1/event-types` lists them with
                their schemas), e.g. `email.bounced`.
            id (None | str | Unset): Your id for the event; publishing it again is a no-op.
            subject (None | str | Unset): The CloudEvents `subject`: 1 to 1024 bytes, no control characters.
            time (datetime.datetime | None | Unset): When it happened, RFC 3339; defaults to now.
     """

    data: SystemEventData
    environment: Environment
    type_: str
    id: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    time: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_event_data import SystemEventData # noqa: PLC0415
        data = self.data.to_dict()

        environment = self.environment.value

        type_ = self.type_

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

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


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "data": data,
            "environment": environment,
            "type": type_,
        })
        if id is not UNSET:
            field_dict["id"] = id
        if subject is not UNSET:
            field_dict["subject"] = subject
        if time is not UNSET:
            field_dict["time"] = time

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_event_data import SystemEventData # noqa: PLC0415
        d = dict(src_dict)
        data = SystemEventData.from_dict(d.pop("data"))




        environment = Environment(d.pop("environment"))




        type_ = d.pop("type")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


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


        system_event = cls(
            data=data,
            environment=environment,
            type_=type_,
            id=id,
            subject=subject,
            time=time,
        )

        return system_event

