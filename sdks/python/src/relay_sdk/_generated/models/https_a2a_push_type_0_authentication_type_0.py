from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="HttpsA2APushType0AuthenticationType0")



@_attrs_define
class HttpsA2APushType0AuthenticationType0:
    """ The config's `authentication`, sent as `Authorization: {scheme}
    {credentials}`; absent: no such header.

        Attributes:
            credentials (str): A secret reference to the credentials (for `Bearer`, the token).
            scheme (str): The HTTP authentication scheme (`Bearer`, `Basic`, …): an HTTP token.
     """

    credentials: str
    scheme: str





    def to_dict(self) -> dict[str, Any]:
        credentials = self.credentials

        scheme = self.scheme


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "credentials": credentials,
            "scheme": scheme,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        credentials = d.pop("credentials")

        scheme = d.pop("scheme")

        https_a2a_push_type_0_authentication_type_0 = cls(
            credentials=credentials,
            scheme=scheme,
        )

        return https_a2a_push_type_0_authentication_type_0

