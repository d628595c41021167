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
  from ..models.portal_event_data import PortalEventData





T = TypeVar("T", bound="PortalEvent")



@_attrs_define
class PortalEvent:
    """ The event a message carries, as the consumer receives it.

        Attributes:
            data (PortalEventData): The payload as this endpoint receives it: the event's data shaped by
                the message's endpoint version (thin fields, its snapshot allow
                list, personal data removed unless it allows personal data), the
                very `data` its deliveries carry. Never more than that.
            id (str): The event's id (the deliveries' `webhook-id`).
            time (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            type_ (str): The event's type.
            subject (None | str | Unset): The event's subject, if any.
     """

    data: PortalEventData
    id: str
    time: datetime.datetime
    type_: str
    subject: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.portal_event_data import PortalEventData # noqa: PLC0415
        data = self.data.to_dict()

        id = self.id

        time = self.time.isoformat()

        type_ = self.type_

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "data": data,
            "id": id,
            "time": time,
            "type": type_,
        })
        if subject is not UNSET:
            field_dict["subject"] = subject

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.portal_event_data import PortalEventData # noqa: PLC0415
        d = dict(src_dict)
        data = PortalEventData.from_dict(d.pop("data"))




        id = d.pop("id")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        type_ = d.pop("type")

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))


        portal_event = cls(
            data=data,
            id=id,
            time=time,
            type_=type_,
            subject=subject,
        )


        portal_event.additional_properties = d
        return portal_event

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
