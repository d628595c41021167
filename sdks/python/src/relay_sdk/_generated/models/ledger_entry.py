from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="LedgerEntry")



@_attrs_define
class LedgerEntry:
    """ One verified provider event in the append-only ledger.

        Attributes:
            event_type (str): The event type as the provider names it.
            id (str): The entry's id (`led_…`).
            provider (str): The provider, as the source names it.
            provider_event_id (str): The provider's id of the event.
            receipt_id (str): The receipt it was read from.
            received_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            recorded_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            source_id (str): The source that received the event.
            message_id (None | str | Unset): The provider's message id, where the preset knows it (delivery
                reports, bounces).
            occurred_at (datetime.datetime | None | Unset):
            recipient (None | str | Unset): The recipient, where the preset knows it.
            status (None | str | Unset): The delivery status the provider reports (`delivered`, `bounce`, …),
                where the preset knows it.
     """

    event_type: str
    id: str
    provider: str
    provider_event_id: str
    receipt_id: str
    received_at: datetime.datetime
    recorded_at: datetime.datetime
    source_id: str
    message_id: None | str | Unset = UNSET
    occurred_at: datetime.datetime | None | Unset = UNSET
    recipient: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        event_type = self.event_type

        id = self.id

        provider = self.provider

        provider_event_id = self.provider_event_id

        receipt_id = self.receipt_id

        received_at = self.received_at.isoformat()

        recorded_at = self.recorded_at.isoformat()

        source_id = self.source_id

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        else:
            message_id = self.message_id

        occurred_at: None | str | Unset
        if isinstance(self.occurred_at, Unset):
            occurred_at = UNSET
        elif isinstance(self.occurred_at, datetime.datetime):
            occurred_at = self.occurred_at.isoformat()
        else:
            occurred_at = self.occurred_at

        recipient: None | str | Unset
        if isinstance(self.recipient, Unset):
            recipient = UNSET
        else:
            recipient = self.recipient

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "event_type": event_type,
            "id": id,
            "provider": provider,
            "provider_event_id": provider_event_id,
            "receipt_id": receipt_id,
            "received_at": received_at,
            "recorded_at": recorded_at,
            "source_id": source_id,
        })
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if occurred_at is not UNSET:
            field_dict["occurred_at"] = occurred_at
        if recipient is not UNSET:
            field_dict["recipient"] = recipient
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_type = d.pop("event_type")

        id = d.pop("id")

        provider = d.pop("provider")

        provider_event_id = d.pop("provider_event_id")

        receipt_id = d.pop("receipt_id")

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))




        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))




        source_id = d.pop("source_id")

        def _parse_message_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message_id = _parse_message_id(d.pop("message_id", UNSET))


        def _parse_occurred_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                occurred_at_type_0 = datetime.datetime.fromisoformat(data)



                return occurred_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        occurred_at = _parse_occurred_at(d.pop("occurred_at", UNSET))


        def _parse_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        recipient = _parse_recipient(d.pop("recipient", UNSET))


        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        ledger_entry = cls(
            event_type=event_type,
            id=id,
            provider=provider,
            provider_event_id=provider_event_id,
            receipt_id=receipt_id,
            received_at=received_at,
            recorded_at=recorded_at,
            source_id=source_id,
            message_id=message_id,
            occurred_at=occurred_at,
            recipient=recipient,
            status=status,
        )


        ledger_entry.additional_properties = d
        return ledger_entry

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
