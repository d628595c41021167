from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Failure")



@_attrs_define
class Failure:
    """ Why a receiver has not proven ownership: a stable `code` and a message
    for people. Never holds the receiver's answer body.

        Attributes:
            code (str): `unreachable` (no answer: connection, TLS, time-out), `refused`
                (the outbound rules refuse the address), `redirect` (a `3xx`; never
                followed), `status` (another non-`2xx` answer), `no_echo` (a `2xx`
                without the challenge as its body), `origin_refused` (a
                `WebHook-Allowed-Origin` naming another origin), `unavailable` (the
                endpoint's keys or settings could not be read now).
            message (str): What happened, for people.
     """

    code: str
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        failure = cls(
            code=code,
            message=message,
        )


        failure.additional_properties = d
        return failure

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
