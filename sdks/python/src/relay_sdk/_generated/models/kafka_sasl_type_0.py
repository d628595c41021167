from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.kafka_sasl_type_0_mechanism import KafkaSaslType0Mechanism






T = TypeVar("T", bound="KafkaSaslType0")



@_attrs_define
class KafkaSaslType0:
    """ SASL authentication (default none).

        Attributes:
            mechanism (KafkaSaslType0Mechanism): The SASL mechanisms Relay speaks to Kafka.
            password (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
                the password itself. See docs/destinations.md (Credentials: secret references).
            username (str): The SASL user name.
     """

    mechanism: KafkaSaslType0Mechanism
    password: str
    username: str





    def to_dict(self) -> dict[str, Any]:
        mechanism = self.mechanism.value

        password = self.password

        username = self.username


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "mechanism": mechanism,
            "password": password,
            "username": username,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mechanism = KafkaSaslType0Mechanism(d.pop("mechanism"))




        password = d.pop("password")

        username = d.pop("username")

        kafka_sasl_type_0 = cls(
            mechanism=mechanism,
            password=password,
            username=username,
        )

        return kafka_sasl_type_0

