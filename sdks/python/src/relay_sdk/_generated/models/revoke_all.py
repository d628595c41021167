from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RevokeAll")



@_attrs_define
class RevokeAll:
    """ Whose portal tokens to revoke.

        Attributes:
            consumer_id (str): The consumer whose every token is revoked.
     """

    consumer_id: str





    def to_dict(self) -> dict[str, Any]:
        consumer_id = self.consumer_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "consumer_id": consumer_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer_id = d.pop("consumer_id")

        revoke_all = cls(
            consumer_id=consumer_id,
        )

        return revoke_all

