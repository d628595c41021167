from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="HttpsHeadersItem")



@_attrs_define
class HttpsHeadersItem:
    """ One custom header of an HTTPS endpoint: its `name` and either a literal
    `value` or a `secret` reference to the value (exactly one of them; the
    kind checks it at registration).

        Attributes:
            name (str): The header's name (an HTTP token, unique ignoring case).
            secret (str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                header's value, never the value itself. See docs/destinations.md (Credentials: secret references).
            value (str | Unset): The header's literal value (printable ASCII, no leading or trailing
                space); not for credentials: use `secret` for those.
     """

    name: str
    secret: str | Unset = UNSET
    value: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        secret = self.secret

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if secret is not UNSET:
            field_dict["secret"] = secret
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        secret = d.pop("secret", UNSET)

        value = d.pop("value", UNSET)

        https_headers_item = cls(
            name=name,
            secret=secret,
            value=value,
        )

        return https_headers_item

