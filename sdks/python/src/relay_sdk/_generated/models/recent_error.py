from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.attempt_outcome import AttemptOutcome
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="RecentError")



@_attrs_define
class RecentError:
    """ One failed attempt, as the health view lists it.

        Attributes:
            at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            attempt_id (str): The attempt's id.
            message_id (str): The message attempted.
            outcome (AttemptOutcome): What one attempt meant for its message: `delivered`, `retry`,
                `deferred` (a retry the destination timed, which used no attempt),
                `exhausted` (a retry on the schedule's last attempt), `permanent`, or
                `dead_lettered` (the destination refused the message, or is no longer
                acceptable).
            error_kind (None | str | Unset): The kind of failure without a usable answer (`connect`, `timeout`,
                `tls`, `blocked_address`, …); `null` when there was an answer.
            status_code (int | None | Unset): HTTPS: the answer's status code; `null` without an answer or for
                other kinds.
     """

    at: datetime.datetime
    attempt_id: str
    message_id: str
    outcome: AttemptOutcome
    error_kind: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        attempt_id = self.attempt_id

        message_id = self.message_id

        outcome = self.outcome.value

        error_kind: None | str | Unset
        if isinstance(self.error_kind, Unset):
            error_kind = UNSET
        else:
            error_kind = self.error_kind

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "attempt_id": attempt_id,
            "message_id": message_id,
            "outcome": outcome,
        })
        if error_kind is not UNSET:
            field_dict["error_kind"] = error_kind
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        attempt_id = d.pop("attempt_id")

        message_id = d.pop("message_id")

        outcome = AttemptOutcome(d.pop("outcome"))




        def _parse_error_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_kind = _parse_error_kind(d.pop("error_kind", UNSET))


        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))


        recent_error = cls(
            at=at,
            attempt_id=attempt_id,
            message_id=message_id,
            outcome=outcome,
            error_kind=error_kind,
            status_code=status_code,
        )


        recent_error.additional_properties = d
        return recent_error

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
