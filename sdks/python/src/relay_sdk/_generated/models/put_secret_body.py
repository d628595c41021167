from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PutSecretBody")



@_attrs_define
class PutSecretBody:
    """ A secret's value, written once and never shown again.

        Attributes:
            value (str): The value (a password, a token, a PEM private key): 1 byte to 64 KiB
                of text, sealed under the installation's master key. No answer ever
                returns it.
     """

    value: str





    def to_dict(self) -> dict[str, Any]:
        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        put_secret_body = cls(
            value=value,
        )

        return put_secret_body

