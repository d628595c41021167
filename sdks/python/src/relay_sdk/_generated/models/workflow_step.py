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






T = TypeVar("T", bound="WorkflowStep")



@_attrs_define
class WorkflowStep:
    """ A workflow step: one event delivered to one registered endpoint on
    behalf of a workflow engine, and what the engine learns of it: the
    delivery's state, the last attempt's status code, how many attempts were
    made and when. Never the receiver's body, headers or redirect target.

        Attributes:
            attempts (int): How many attempts were made (scheduled and manual alike).
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            endpoint_id (str): The endpoint the event is delivered to.
            event_id (str): The event the step published (`evt_…`).
            message_id (str): The message that delivers it (`msg_…`).
            state (MessageState): The life of a message (one event for one endpoint).

                `scheduled`, `in_flight`, `held` and `blocked` are live states; every
                other state is terminal. See `docs/state-machine.md`.
            step_key (str): The step's key, chosen by the workflow engine (unique per tenant and
                environment).
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            last_attempt_at (datetime.datetime | None | Unset):
            status_code (int | None | Unset): The status code of the last attempt's answer (HTTPS); `null` before
                any answer, after a failure without one, or for other kinds.
     """

    attempts: int
    created_at: datetime.datetime
    endpoint_id: str
    event_id: str
    message_id: str
    state: MessageState
    step_key: str
    updated_at: datetime.datetime
    last_attempt_at: datetime.datetime | None | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        endpoint_id = self.endpoint_id

        event_id = self.event_id

        message_id = self.message_id

        state = self.state.value

        step_key = self.step_key

        updated_at = self.updated_at.isoformat()

        last_attempt_at: None | str | Unset
        if isinstance(self.last_attempt_at, Unset):
            last_attempt_at = UNSET
        elif isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "created_at": created_at,
            "endpoint_id": endpoint_id,
            "event_id": event_id,
            "message_id": message_id,
            "state": state,
            "step_key": step_key,
            "updated_at": updated_at,
        })
        if last_attempt_at is not UNSET:
            field_dict["last_attempt_at"] = last_attempt_at
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        endpoint_id = d.pop("endpoint_id")

        event_id = d.pop("event_id")

        message_id = d.pop("message_id")

        state = MessageState(d.pop("state"))




        step_key = d.pop("step_key")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_last_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at", UNSET))


        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))


        workflow_step = cls(
            attempts=attempts,
            created_at=created_at,
            endpoint_id=endpoint_id,
            event_id=event_id,
            message_id=message_id,
            state=state,
            step_key=step_key,
            updated_at=updated_at,
            last_attempt_at=last_attempt_at,
            status_code=status_code,
        )


        workflow_step.additional_properties = d
        return workflow_step

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
