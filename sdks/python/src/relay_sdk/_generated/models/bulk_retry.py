from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.message_state import MessageState
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="BulkRetry")



@_attrs_define
class BulkRetry:
    """ The messages a bulk retry restarts; every field narrows the selection.

        Attributes:
            endpoint_id (None | str | Unset): Only this endpoint's messages.
            error_code (None | str | Unset): Only messages whose last failure had this code (`last_error_code`).
            event_type (None | str | Unset): Only messages of this event type.
            since (datetime.datetime | None | Unset): Created at or after; within the retention period (else
                `outside_retention`). Default: the start of the retention period
                (messages whose event is older are never restarted).
            state (MessageState | None | Unset):
            until (datetime.datetime | None | Unset): Created before; within the retention period.
     """

    endpoint_id: None | str | Unset = UNSET
    error_code: None | str | Unset = UNSET
    event_type: None | str | Unset = UNSET
    since: datetime.datetime | None | Unset = UNSET
    state: MessageState | None | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        endpoint_id: None | str | Unset
        if isinstance(self.endpoint_id, Unset):
            endpoint_id = UNSET
        else:
            endpoint_id = self.endpoint_id

        error_code: None | str | Unset
        if isinstance(self.error_code, Unset):
            error_code = UNSET
        else:
            error_code = self.error_code

        event_type: None | str | Unset
        if isinstance(self.event_type, Unset):
            event_type = UNSET
        else:
            event_type = self.event_type

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, MessageState):
            state = self.state.value
        else:
            state = self.state

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if endpoint_id is not UNSET:
            field_dict["endpoint_id"] = endpoint_id
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if event_type is not UNSET:
            field_dict["event_type"] = event_type
        if since is not UNSET:
            field_dict["since"] = since
        if state is not UNSET:
            field_dict["state"] = state
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_endpoint_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint_id = _parse_endpoint_id(d.pop("endpoint_id", UNSET))


        def _parse_error_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_code = _parse_error_code(d.pop("error_code", UNSET))


        def _parse_event_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_type = _parse_event_type(d.pop("event_type", UNSET))


        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)



                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))


        def _parse_state(data: object) -> MessageState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = MessageState(data)



                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageState | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)



                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        bulk_retry = cls(
            endpoint_id=endpoint_id,
            error_code=error_code,
            event_type=event_type,
            since=since,
            state=state,
            until=until,
        )

        return bulk_retry

