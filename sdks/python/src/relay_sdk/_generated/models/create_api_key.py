from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateApiKey")



@_attrs_define
class CreateApiKey:
    """ A new API key of a tenant.

        Attributes:
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            name (None | str | Unset): A label to recognise the key by in listings.
     """

    environment: Environment
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        environment = self.environment.value

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "environment": environment,
        })
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        environment = Environment(d.pop("environment"))




        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        create_api_key = cls(
            environment=environment,
            name=name,
        )

        return create_api_key

