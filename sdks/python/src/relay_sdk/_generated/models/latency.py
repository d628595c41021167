from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Latency")



@_attrs_define
class Latency:
    """ Percentiles from the latency histogram (`relay_core::histogram`): each
    is the upper bound of the bucket the percentile falls in, or the largest
    duration seen when that is smaller.

        Attributes:
            max_ms (int): The longest attempt, in milliseconds.
            p50_ms (int): The median attempt duration, in milliseconds.
            p90_ms (int): The 90th percentile, in milliseconds.
            p99_ms (int): The 99th percentile, in milliseconds.
            samples (int): How many attempts the histogram counts.
     """

    max_ms: int
    p50_ms: int
    p90_ms: int
    p99_ms: int
    samples: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        max_ms = self.max_ms

        p50_ms = self.p50_ms

        p90_ms = self.p90_ms

        p99_ms = self.p99_ms

        samples = self.samples


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "max_ms": max_ms,
            "p50_ms": p50_ms,
            "p90_ms": p90_ms,
            "p99_ms": p99_ms,
            "samples": samples,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_ms = d.pop("max_ms")

        p50_ms = d.pop("p50_ms")

        p90_ms = d.pop("p90_ms")

        p99_ms = d.pop("p99_ms")

        samples = d.pop("samples")

        latency = cls(
            max_ms=max_ms,
            p50_ms=p50_ms,
            p90_ms=p90_ms,
            p99_ms=p99_ms,
            samples=samples,
        )


        latency.additional_properties = d
        return latency

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
