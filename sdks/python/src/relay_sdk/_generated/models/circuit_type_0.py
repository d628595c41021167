from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.circuit_type_0_state import CircuitType0State






T = TypeVar("T", bound="CircuitType0")



@_attrs_define
class CircuitType0:
    """ Attempts go.

        Attributes:
            consecutive_failures (int): Failures in a row since the last success; at the threshold (5 by
                default) the circuit opens.
            state (CircuitType0State): `closed`: this member's `state`.
     """

    consecutive_failures: int
    state: CircuitType0State
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        consecutive_failures = self.consecutive_failures

        state = self.state.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consecutive_failures": consecutive_failures,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consecutive_failures = d.pop("consecutive_failures")

        state = CircuitType0State(d.pop("state"))




        circuit_type_0 = cls(
            consecutive_failures=consecutive_failures,
            state=state,
        )


        circuit_type_0.additional_properties = d
        return circuit_type_0

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
