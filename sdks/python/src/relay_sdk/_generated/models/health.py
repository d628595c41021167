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
  from ..models.backlog import Backlog
  from ..models.circuit_type_0 import CircuitType0
  from ..models.circuit_type_1 import CircuitType1
  from ..models.circuit_type_2 import CircuitType2
  from ..models.latency import Latency
  from ..models.ownership import Ownership
  from ..models.recent_error import RecentError
  from ..models.warning import Warning_





T = TypeVar("T", bound="Health")



@_attrs_define
class Health:
    """ An endpoint's health: how its deliveries fare now and lately.

        Attributes:
            attempts_last_24h (int): Attempts over the last 24 hours.
            attempts_last_hour (int): Attempts over the last hour.
            backlog (Backlog): What the endpoint has still to deliver.
            circuit (CircuitType0 | CircuitType1 | CircuitType2): An endpoint's circuit breaker, by `state`: `closed`
                (attempts go;
                failures are counted), `open` (no attempt until `until`), `half_open`
                (a few probes go; the first success closes it, a failure opens it again).
            endpoint_id (str): The endpoint.
            recent_errors (list[RecentError]): The last 20 failed attempts, newest first.
            state (EndpointState): Whether an endpoint receives deliveries: `active`; `paused` by the
                tenant (messages are held, and released on resume); `disabled` by the
                tenant, by a `410 Gone` answer or after 5 days of continuous failure
                (`disabled_reason` says which; messages are held until recovered);
                `unverified`: its receiver has not yet proven that it wants the
                traffic (the ownership challenge, `docs/security.md`); messages are
                held and released once it has.
            warnings (list[Warning_]): The last 20 health warnings, newest first.
            disabled_reason (None | str | Unset): Why it is disabled, when it is.
            last_success_at (datetime.datetime | None | Unset):
            latency (Latency | None | Unset):
            ownership (None | Ownership | Unset):
            success_rate_last_24h (float | None | Unset): Delivered attempts ÷ attempts over the last 24 hours; `null`
                without attempts.
            success_rate_last_hour (float | None | Unset): Delivered attempts ÷ attempts over the last hour; `null` without
                attempts.
     """

    attempts_last_24h: int
    attempts_last_hour: int
    backlog: Backlog
    circuit: CircuitType0 | CircuitType1 | CircuitType2
    endpoint_id: str
    recent_errors: list[RecentError]
    state: EndpointState
    warnings: list[Warning_]
    disabled_reason: None | str | Unset = UNSET
    last_success_at: datetime.datetime | None | Unset = UNSET
    latency: Latency | None | Unset = UNSET
    ownership: None | Ownership | Unset = UNSET
    success_rate_last_24h: float | None | Unset = UNSET
    success_rate_last_hour: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.backlog import Backlog # noqa: PLC0415
        from ..models.circuit_type_0 import CircuitType0 # noqa: PLC0415
        from ..models.circuit_type_1 import CircuitType1 # noqa: PLC0415
        from ..models.circuit_type_2 import CircuitType2 # noqa: PLC0415
        from ..models.latency import Latency # noqa: PLC0415
        from ..models.ownership import Ownership # noqa: PLC0415
        from ..models.recent_error import RecentError # noqa: PLC0415
        from ..models.warning import Warning_ # noqa: PLC0415
        attempts_last_24h = self.attempts_last_24h

        attempts_last_hour = self.attempts_last_hour

        backlog = self.backlog.to_dict()

        circuit: dict[str, Any]
        if isinstance(self.circuit, CircuitType0):
            circuit = self.circuit.to_dict()
        elif isinstance(self.circuit, CircuitType1):
            circuit = self.circuit.to_dict()
        else:
            circuit = self.circuit.to_dict()


        endpoint_id = self.endpoint_id

        recent_errors = []
        for recent_errors_item_data in self.recent_errors:
            recent_errors_item = recent_errors_item_data.to_dict()
            recent_errors.append(recent_errors_item)



        state = self.state.value

        warnings = []
        for warnings_item_data in self.warnings:
            warnings_item = warnings_item_data.to_dict()
            warnings.append(warnings_item)



        disabled_reason: None | str | Unset
        if isinstance(self.disabled_reason, Unset):
            disabled_reason = UNSET
        else:
            disabled_reason = self.disabled_reason

        last_success_at: None | str | Unset
        if isinstance(self.last_success_at, Unset):
            last_success_at = UNSET
        elif isinstance(self.last_success_at, datetime.datetime):
            last_success_at = self.last_success_at.isoformat()
        else:
            last_success_at = self.last_success_at

        latency: dict[str, Any] | None | Unset
        if isinstance(self.latency, Unset):
            latency = UNSET
        elif isinstance(self.latency, Latency):
            latency = self.latency.to_dict()
        else:
            latency = self.latency

        ownership: dict[str, Any] | None | Unset
        if isinstance(self.ownership, Unset):
            ownership = UNSET
        elif isinstance(self.ownership, Ownership):
            ownership = self.ownership.to_dict()
        else:
            ownership = self.ownership

        success_rate_last_24h: float | None | Unset
        if isinstance(self.success_rate_last_24h, Unset):
            success_rate_last_24h = UNSET
        else:
            success_rate_last_24h = self.success_rate_last_24h

        success_rate_last_hour: float | None | Unset
        if isinstance(self.success_rate_last_hour, Unset):
            success_rate_last_hour = UNSET
        else:
            success_rate_last_hour = self.success_rate_last_hour


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts_last_24h": attempts_last_24h,
            "attempts_last_hour": attempts_last_hour,
            "backlog": backlog,
            "circuit": circuit,
            "endpoint_id": endpoint_id,
            "recent_errors": recent_errors,
            "state": state,
            "warnings": warnings,
        })
        if disabled_reason is not UNSET:
            field_dict["disabled_reason"] = disabled_reason
        if last_success_at is not UNSET:
            field_dict["last_success_at"] = last_success_at
        if latency is not UNSET:
            field_dict["latency"] = latency
        if ownership is not UNSET:
            field_dict["ownership"] = ownership
        if success_rate_last_24h is not UNSET:
            field_dict["success_rate_last_24h"] = success_rate_last_24h
        if success_rate_last_hour is not UNSET:
            field_dict["success_rate_last_hour"] = success_rate_last_hour

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.backlog import Backlog # noqa: PLC0415
        from ..models.circuit_type_0 import CircuitType0 # noqa: PLC0415
        from ..models.circuit_type_1 import CircuitType1 # noqa: PLC0415
        from ..models.circuit_type_2 import CircuitType2 # noqa: PLC0415
        from ..models.latency import Latency # noqa: PLC0415
        from ..models.ownership import Ownership # noqa: PLC0415
        from ..models.recent_error import RecentError # noqa: PLC0415
        from ..models.warning import Warning_ # noqa: PLC0415
        d = dict(src_dict)
        attempts_last_24h = d.pop("attempts_last_24h")

        attempts_last_hour = d.pop("attempts_last_hour")

        backlog = Backlog.from_dict(d.pop("backlog"))




        def _parse_circuit(data: object) -> CircuitType0 | CircuitType1 | CircuitType2:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_circuit_type_0 = CircuitType0.from_dict(data)



                return componentsschemas_circuit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_circuit_type_1 = CircuitType1.from_dict(data)



                return componentsschemas_circuit_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_circuit_type_2 = CircuitType2.from_dict(data)



            return componentsschemas_circuit_type_2

        circuit = _parse_circuit(d.pop("circuit"))


        endpoint_id = d.pop("endpoint_id")

        recent_errors = []
        _recent_errors = d.pop("recent_errors")
        for recent_errors_item_data in (_recent_errors):
            recent_errors_item = RecentError.from_dict(recent_errors_item_data)



            recent_errors.append(recent_errors_item)


        state = EndpointState(d.pop("state"))




        warnings = []
        _warnings = d.pop("warnings")
        for warnings_item_data in (_warnings):
            warnings_item = Warning_.from_dict(warnings_item_data)



            warnings.append(warnings_item)


        def _parse_disabled_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason", UNSET))


        def _parse_last_success_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_success_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_success_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_success_at = _parse_last_success_at(d.pop("last_success_at", UNSET))


        def _parse_latency(data: object) -> Latency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latency_type_0 = Latency.from_dict(data)



                return latency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Latency | None | Unset, data)

        latency = _parse_latency(d.pop("latency", UNSET))


        def _parse_ownership(data: object) -> None | Ownership | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ownership_type_0 = Ownership.from_dict(data)



                return ownership_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Ownership | Unset, data)

        ownership = _parse_ownership(d.pop("ownership", UNSET))


        def _parse_success_rate_last_24h(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        success_rate_last_24h = _parse_success_rate_last_24h(d.pop("success_rate_last_24h", UNSET))


        def _parse_success_rate_last_hour(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        success_rate_last_hour = _parse_success_rate_last_hour(d.pop("success_rate_last_hour", UNSET))


        health = cls(
            attempts_last_24h=attempts_last_24h,
            attempts_last_hour=attempts_last_hour,
            backlog=backlog,
            circuit=circuit,
            endpoint_id=endpoint_id,
            recent_errors=recent_errors,
            state=state,
            warnings=warnings,
            disabled_reason=disabled_reason,
            last_success_at=last_success_at,
            latency=latency,
            ownership=ownership,
            success_rate_last_24h=success_rate_last_24h,
            success_rate_last_hour=success_rate_last_hour,
        )


        health.additional_properties = d
        return health

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
