from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="AzureServiceBusAuthSas")



@_attrs_define
class AzureServiceBusAuthSas:
    """ A shared access authorization rule: its name and its key (a secret
    reference). Each request carries a SAS token signed with the key
    for the entity's URI, renewed before it expires.

        Attributes:
            key (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                rule's key (`SharedAccessKey`), never the key itself, never a
                connection string.
            key_name (str): The rule's name (`SharedAccessKeyName`, e.g. `RootManageSharedAccessKey`;
                a rule with the `Send` claim is enough).
     """

    key: str
    key_name: str





    def to_dict(self) -> dict[str, Any]:
        key = self.key

        key_name = self.key_name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "key": key,
            "key_name": key_name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        key_name = d.pop("key_name")

        azure_service_bus_auth_sas = cls(
            key=key,
            key_name=key_name,
        )

        return azure_service_bus_auth_sas

