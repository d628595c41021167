from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.circuit_type_2_state import CircuitType2State






T = TypeVar("T", bound="CircuitType2")



@_attrs_define
class CircuitType2:
    """ Probes may go, up to the configured number at once.

        Attributes:
            probes_in_flight (int): Probes being attempted now.
            state (CircuitType2State): `half_open`: this member's `state`.
     """

    probes_in_flight: int
    state: CircuitType2State
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        probes_in_flight = self.probes_in_flight

        state = self.state.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "probes_in_flight": probes_in_flight,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        probes_in_flight = d.pop("probes_in_flight")

        state = CircuitType2State(d.pop("state"))




        circuit_type_2 = cls(
            probes_in_flight=probes_in_flight,
            state=state,
        )


        circuit_type_2.additional_properties = d
        return circuit_type_2

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
