from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..models.message_state import MessageState
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Message")



@_attrs_define
class Message:
    """ The job of delivering one event to one endpoint.

        Attributes:
            attempts_used (int): Attempts that counted against the schedule.
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            deferrals_used (int): `Retry-After` deferrals used (at most 3).
            endpoint_id (str): The endpoint it is delivered to.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            event_id (str): The event delivered.
            event_type (str): The event's type.
            id (str): The message's id (`msg_…`).
            state (MessageState): The life of a message (one event for one endpoint).

                `scheduled`, `in_flight`, `held` and `blocked` are live states; every
                other state is terminal. See `docs/state-machine.md`.
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            endpoint_version (int | None | Unset): The endpoint version the message was produced for, whose settings
                shape its payload at every attempt; absent for messages produced
                before endpoint versions existed (they carry the event's whole data).
            event_type_version (int | None | Unset): The event type version whose fields (thin, personal data) shaped
                the payload its attempts sent: recorded at its first attempt that
                sent a shaped payload and kept, whatever versions the type gets
                later. Absent before such an attempt, for a message sent whole
                (produced before endpoint versions), and for a type without versions.
            last_error_code (None | str | Unset): The `error_code` of the last failed attempt (`http_503`, `timeout`,
                …); `null` before any failure.
            next_attempt_at (datetime.datetime | None | Unset):
            ordering_key (None | str | Unset): The key it keeps its turn by when its endpoint delivers in order
                (the event's `ordering_key`, else its `subject`); `null` when the
                endpoint did not deliver in order at publish, or the event had
                neither.
            terminal_reason (None | str | Unset): Why a message in a terminal state other than `delivered` ended there.
     """

    attempts_used: int
    created_at: datetime.datetime
    deferrals_used: int
    endpoint_id: str
    environment: Environment
    event_id: str
    event_type: str
    id: str
    state: MessageState
    updated_at: datetime.datetime
    endpoint_version: int | None | Unset = UNSET
    event_type_version: int | None | Unset = UNSET
    last_error_code: None | str | Unset = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    ordering_key: None | str | Unset = UNSET
    terminal_reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts_used = self.attempts_used

        created_at = self.created_at.isoformat()

        deferrals_used = self.deferrals_used

        endpoint_id = self.endpoint_id

        environment = self.environment.value

        event_id = self.event_id

        event_type = self.event_type

        id = self.id

        state = self.state.value

        updated_at = self.updated_at.isoformat()

        endpoint_version: int | None | Unset
        if isinstance(self.endpoint_version, Unset):
            endpoint_version = UNSET
        else:
            endpoint_version = self.endpoint_version

        event_type_version: int | None | Unset
        if isinstance(self.event_type_version, Unset):
            event_type_version = UNSET
        else:
            event_type_version = self.event_type_version

        last_error_code: None | str | Unset
        if isinstance(self.last_error_code, Unset):
            last_error_code = UNSET
        else:
            last_error_code = self.last_error_code

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        ordering_key: None | str | Unset
        if isinstance(self.ordering_key, Unset):
            ordering_key = UNSET
        else:
            ordering_key = self.ordering_key

        terminal_reason: None | str | Unset
        if isinstance(self.terminal_reason, Unset):
            terminal_reason = UNSET
        else:
            terminal_reason = self.terminal_reason


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts_used": attempts_used,
            "created_at": created_at,
            "deferrals_used": deferrals_used,
            "endpoint_id": endpoint_id,
            "environment": environment,
            "event_id": event_id,
            "event_type": event_type,
            "id": id,
            "state": state,
            "updated_at": updated_at,
        })
        if endpoint_version is not UNSET:
            field_dict["endpoint_version"] = endpoint_version
        if event_type_version is not UNSET:
            field_dict["event_type_version"] = event_type_version
        if last_error_code is not UNSET:
            field_dict["last_error_code"] = last_error_code
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if ordering_key is not UNSET:
            field_dict["ordering_key"] = ordering_key
        if terminal_reason is not UNSET:
            field_dict["terminal_reason"] = terminal_reason

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts_used = d.pop("attempts_used")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        deferrals_used = d.pop("deferrals_used")

        endpoint_id = d.pop("endpoint_id")

        environment = Environment(d.pop("environment"))




        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        id = d.pop("id")

        state = MessageState(d.pop("state"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_endpoint_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        endpoint_version = _parse_endpoint_version(d.pop("endpoint_version", UNSET))


        def _parse_event_type_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        event_type_version = _parse_event_type_version(d.pop("event_type_version", UNSET))


        def _parse_last_error_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error_code = _parse_last_error_code(d.pop("last_error_code", UNSET))


        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))


        def _parse_ordering_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ordering_key = _parse_ordering_key(d.pop("ordering_key", UNSET))


        def _parse_terminal_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        terminal_reason = _parse_terminal_reason(d.pop("terminal_reason", UNSET))


        message = cls(
            attempts_used=attempts_used,
            created_at=created_at,
            deferrals_used=deferrals_used,
            endpoint_id=endpoint_id,
            environment=environment,
            event_id=event_id,
            event_type=event_type,
            id=id,
            state=state,
            updated_at=updated_at,
            endpoint_version=endpoint_version,
            event_type_version=event_type_version,
            last_error_code=last_error_code,
            next_attempt_at=next_attempt_at,
            ordering_key=ordering_key,
            terminal_reason=terminal_reason,
        )


        message.additional_properties = d
        return message

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
