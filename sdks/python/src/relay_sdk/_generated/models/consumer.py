from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.consumer_kind import ConsumerKind
from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Consumer")



@_attrs_define
class Consumer:
    """ The party that receives events: the tenant itself or one of its customers.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            external_id (str): The tenant's own identifier for this consumer; unique per tenant and environment.
            id (str): The consumer's id (`con_…`).
            source (str): The CloudEvents `source` deliveries to this consumer carry.
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            kind (ConsumerKind | Unset): Whom a consumer stands for. Relay's operational events (about the
                tenant's endpoints: `relay_core::operational`) go only to the endpoints
                of the `tenant` consumer, never to a customer's.
            name (None | str | Unset): A display name, if any.
     """

    created_at: datetime.datetime
    environment: Environment
    external_id: str
    id: str
    source: str
    updated_at: datetime.datetime
    kind: ConsumerKind | Unset = UNSET
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        environment = self.environment.value

        external_id = self.external_id

        id = self.id

        source = self.source

        updated_at = self.updated_at.isoformat()

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value


        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "environment": environment,
            "external_id": external_id,
            "id": id,
            "source": source,
            "updated_at": updated_at,
        })
        if kind is not UNSET:
            field_dict["kind"] = kind
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        environment = Environment(d.pop("environment"))




        external_id = d.pop("external_id")

        id = d.pop("id")

        source = d.pop("source")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        _kind = d.pop("kind", UNSET)
        kind: ConsumerKind | Unset
        if isinstance(_kind,  Unset):
            kind = UNSET
        else:
            kind = ConsumerKind(_kind)




        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        consumer = cls(
            created_at=created_at,
            environment=environment,
            external_id=external_id,
            id=id,
            source=source,
            updated_at=updated_at,
            kind=kind,
            name=name,
        )


        consumer.additional_properties = d
        return consumer

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
