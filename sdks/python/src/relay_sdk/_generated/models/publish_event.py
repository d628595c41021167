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
  from ..models.publish_event_data import PublishEventData





T = TypeVar("T", bound="PublishEvent")



@_attrs_define
class PublishEvent:
    """ An event to publish.

        Attributes:
            data (PublishEventData): The payload; it must satisfy the event type's current schema. Kept byte for byte.
            type_ (str): The event type's name, from the catalog (`PUT /v1/event-types/{name}`).
            consumer_id (None | str | Unset): Deliver only to this consumer's endpoints. Without it, the event
                reaches your own consumer's (kind `tenant`) endpoints, and your
                customers' only when its type's `audience` is `all_consumers`.
            id (None | str | Unset): Your id for the event (becomes `webhook-id`); publishing it again is a no-op.
            ordering_key (None | str | Unset): Kinds that partition (Kafka, NATS, RabbitMQ, MQTT topics) keep the
                messages of one key in order; without it, the `subject` is the key.
                1 to 255 characters. An A2A update's key is its task id (given or
                not: another key is refused).
            subject (None | str | Unset): The CloudEvents `subject`: 1 to 1024 bytes, no control characters.
            time (datetime.datetime | None | Unset): When the event happened (the CloudEvents `time`), RFC 3339; defaults
                to now. From 1970-01-01T00:00:00Z to 5 minutes after Relay's clock.
            traceparent (None | str | Unset): W3C trace context to continue; without it, the request's
                `traceparent` header (when valid), else a new trace is begun.
            ttl_seconds (int | None | Unset): Give up delivering after this many seconds (message state `expired`).
     """

    data: PublishEventData
    type_: str
    consumer_id: None | str | Unset = UNSET
    id: None | str | Unset = UNSET
    ordering_key: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    time: datetime.datetime | None | Unset = UNSET
    traceparent: None | str | Unset = UNSET
    ttl_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.publish_event_data import PublishEventData # noqa: PLC0415
        data = self.data.to_dict()

        type_ = self.type_

        consumer_id: None | str | Unset
        if isinstance(self.consumer_id, Unset):
            consumer_id = UNSET
        else:
            consumer_id = self.consumer_id

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        ordering_key: None | str | Unset
        if isinstance(self.ordering_key, Unset):
            ordering_key = UNSET
        else:
            ordering_key = self.ordering_key

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

        traceparent: None | str | Unset
        if isinstance(self.traceparent, Unset):
            traceparent = UNSET
        else:
            traceparent = self.traceparent

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
        if consumer_id is not UNSET:
            field_dict["consumer_id"] = consumer_id
        if id is not UNSET:
            field_dict["id"] = id
        if ordering_key is not UNSET:
            field_dict["ordering_key"] = ordering_key
        if subject is not UNSET:
            field_dict["subject"] = subject
        if time is not UNSET:
            field_dict["time"] = time
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.publish_event_data import PublishEventData # noqa: PLC0415
        d = dict(src_dict)
        data = PublishEventData.from_dict(d.pop("data"))




        type_ = d.pop("type")

        def _parse_consumer_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_id = _parse_consumer_id(d.pop("consumer_id", UNSET))


        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))


        def _parse_ordering_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ordering_key = _parse_ordering_key(d.pop("ordering_key", UNSET))


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


        def _parse_traceparent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        traceparent = _parse_traceparent(d.pop("traceparent", UNSET))


        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))


        publish_event = cls(
            data=data,
            type_=type_,
            consumer_id=consumer_id,
            id=id,
            ordering_key=ordering_key,
            subject=subject,
            time=time,
            traceparent=traceparent,
            ttl_seconds=ttl_seconds,
        )

        return publish_event

