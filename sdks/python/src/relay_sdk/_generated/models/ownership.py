from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.endpoint_state import EndpointState
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.failure import Failure





T = TypeVar("T", bound="Ownership")



@_attrs_define
class Ownership:
    """ Whether the endpoint's receiver has proven that it wants the traffic.

        Attributes:
            checks (int): Challenges sent for this origin.
            origin (str): The origin (`host:port`) whose receiver proves it.
            proven (bool): Whether the tenant has the proof for this origin.
            state (EndpointState): Whether an endpoint receives deliveries: `active`; `paused` by the
                tenant (messages are held, and released on resume); `disabled` by the
                tenant, by a `410 Gone` answer or after 5 days of continuous failure
                (`disabled_reason` says which; messages are held until recovered);
                `unverified`: its receiver has not yet proven that it wants the
                traffic (the ownership challenge, `docs/security.md`); messages are
                held and released once it has.
            failure (Failure | None | Unset):
            last_checked_at (datetime.datetime | None | Unset):
            next_check_at (datetime.datetime | None | Unset):
            proven_at (datetime.datetime | None | Unset):
     """

    checks: int
    origin: str
    proven: bool
    state: EndpointState
    failure: Failure | None | Unset = UNSET
    last_checked_at: datetime.datetime | None | Unset = UNSET
    next_check_at: datetime.datetime | None | Unset = UNSET
    proven_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.failure import Failure # noqa: PLC0415
        checks = self.checks

        origin = self.origin

        proven = self.proven

        state = self.state.value

        failure: dict[str, Any] | None | Unset
        if isinstance(self.failure, Unset):
            failure = UNSET
        elif isinstance(self.failure, Failure):
            failure = self.failure.to_dict()
        else:
            failure = self.failure

        last_checked_at: None | str | Unset
        if isinstance(self.last_checked_at, Unset):
            last_checked_at = UNSET
        elif isinstance(self.last_checked_at, datetime.datetime):
            last_checked_at = self.last_checked_at.isoformat()
        else:
            last_checked_at = self.last_checked_at

        next_check_at: None | str | Unset
        if isinstance(self.next_check_at, Unset):
            next_check_at = UNSET
        elif isinstance(self.next_check_at, datetime.datetime):
            next_check_at = self.next_check_at.isoformat()
        else:
            next_check_at = self.next_check_at

        proven_at: None | str | Unset
        if isinstance(self.proven_at, Unset):
            proven_at = UNSET
        elif isinstance(self.proven_at, datetime.datetime):
            proven_at = self.proven_at.isoformat()
        else:
            proven_at = self.proven_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "checks": checks,
            "origin": origin,
            "proven": proven,
            "state": state,
        })
        if failure is not UNSET:
            field_dict["failure"] = failure
        if last_checked_at is not UNSET:
            field_dict["last_checked_at"] = last_checked_at
        if next_check_at is not UNSET:
            field_dict["next_check_at"] = next_check_at
        if proven_at is not UNSET:
            field_dict["proven_at"] = proven_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.failure import Failure # noqa: PLC0415
        d = dict(src_dict)
        checks = d.pop("checks")

        origin = d.pop("origin")

        proven = d.pop("proven")

        state = EndpointState(d.pop("state"))




        def _parse_failure(data: object) -> Failure | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failure_type_0 = Failure.from_dict(data)



                return failure_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Failure | None | Unset, data)

        failure = _parse_failure(d.pop("failure", UNSET))


        def _parse_last_checked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_checked_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_checked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_checked_at = _parse_last_checked_at(d.pop("last_checked_at", UNSET))


        def _parse_next_check_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_check_at_type_0 = datetime.datetime.fromisoformat(data)



                return next_check_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_check_at = _parse_next_check_at(d.pop("next_check_at", UNSET))


        def _parse_proven_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proven_at_type_0 = datetime.datetime.fromisoformat(data)



                return proven_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        proven_at = _parse_proven_at(d.pop("proven_at", UNSET))


        ownership = cls(
            checks=checks,
            origin=origin,
            proven=proven,
            state=state,
            failure=failure,
            last_checked_at=last_checked_at,
            next_check_at=next_check_at,
            proven_at=proven_at,
        )


        ownership.additional_properties = d
        return ownership

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
