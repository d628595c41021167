from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="KafkaBootstrapItem")



@_attrs_define
class KafkaBootstrapItem:
    """ One bootstrap broker.

        Attributes:
            host (str): A host name or IP address.
            port (int | Unset): Default 9092; the operator's `allow_ports` must include it (and every
                advertised broker's port). Default: 9092.
     """

    host: str
    port: int | Unset = 9092





    def to_dict(self) -> dict[str, Any]:
        host = self.host

        port = self.port


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "host": host,
        })
        if port is not UNSET:
            field_dict["port"] = port

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        host = d.pop("host")

        port = d.pop("port", UNSET)

        kafka_bootstrap_item = cls(
            host=host,
            port=port,
        )

        return kafka_bootstrap_item

