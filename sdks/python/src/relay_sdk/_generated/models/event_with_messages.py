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
  from ..models.event_data import EventData
  from ..models.message import Message





T = TypeVar("T", bound="EventWithMessages")



@_attrs_define
class EventWithMessages:
    """ An event with every message it produced (one per endpoint it was for).

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            data (EventData): The payload, exactly as published.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            id (str): The event's id: the publisher's own, or `evt_…`. Deliveries carry it
                as `webhook-id` and as the CloudEvent's `id`.
            time (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            traceparent (str): The W3C trace context deliveries continue (`00-<trace>-<span>-<flags>`).
            type_ (str): The event type's name (`order.paid`).
            type_version (int): The event type's schema version the payload was validated against.
            messages (list[Message]): The event's messages, with their states.
            consumer_id (None | str | Unset): The one consumer the event was published to; `null` when it went to
                every consumer its type's audience allows.
            expires_at (datetime.datetime | None | Unset):
            ordering_key (None | str | Unset): The ordering key given at publish, if any.
            seq (int | None | Unset): Monotonic per subject within the tenant and environment; absent without a subject.
            subject (None | str | Unset): The CloudEvents `subject`: what the event is about (`order/o_1`).
     """

    created_at: datetime.datetime
    data: EventData
    environment: Environment
    id: str
    time: datetime.datetime
    traceparent: str
    type_: str
    type_version: int
    messages: list[Message]
    consumer_id: None | str | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    ordering_key: None | str | Unset = UNSET
    seq: int | None | Unset = UNSET
    subject: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_data import EventData # noqa: PLC0415
        from ..models.message import Message # noqa: PLC0415
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        environment = self.environment.value

        id = self.id

        time = self.time.isoformat()

        traceparent = self.traceparent

        type_ = self.type_

        type_version = self.type_version

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)



        consumer_id: None | str | Unset
        if isinstance(self.consumer_id, Unset):
            consumer_id = UNSET
        else:
            consumer_id = self.consumer_id

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        ordering_key: None | str | Unset
        if isinstance(self.ordering_key, Unset):
            ordering_key = UNSET
        else:
            ordering_key = self.ordering_key

        seq: int | None | Unset
        if isinstance(self.seq, Unset):
            seq = UNSET
        else:
            seq = self.seq

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "data": data,
            "environment": environment,
            "id": id,
            "time": time,
            "traceparent": traceparent,
            "type": type_,
            "type_version": type_version,
            "messages": messages,
        })
        if consumer_id is not UNSET:
            field_dict["consumer_id"] = consumer_id
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if ordering_key is not UNSET:
            field_dict["ordering_key"] = ordering_key
        if seq is not UNSET:
            field_dict["seq"] = seq
        if subject is not UNSET:
            field_dict["subject"] = subject

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_data import EventData # noqa: PLC0415
        from ..models.message import Message # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        data = EventData.from_dict(d.pop("data"))




        environment = Environment(d.pop("environment"))




        id = d.pop("id")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        traceparent = d.pop("traceparent")

        type_ = d.pop("type")

        type_version = d.pop("type_version")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in (_messages):
            messages_item = Message.from_dict(messages_item_data)



            messages.append(messages_item)


        def _parse_consumer_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_id = _parse_consumer_id(d.pop("consumer_id", UNSET))


        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))


        def _parse_ordering_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ordering_key = _parse_ordering_key(d.pop("ordering_key", UNSET))


        def _parse_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seq = _parse_seq(d.pop("seq", UNSET))


        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))


        event_with_messages = cls(
            created_at=created_at,
            data=data,
            environment=environment,
            id=id,
            time=time,
            traceparent=traceparent,
            type_=type_,
            type_version=type_version,
            messages=messages,
            consumer_id=consumer_id,
            expires_at=expires_at,
            ordering_key=ordering_key,
            seq=seq,
            subject=subject,
        )


        event_with_messages.additional_properties = d
        return event_with_messages

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
