from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.consumer_kind import ConsumerKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateConsumer")



@_attrs_define
class CreateConsumer:
    """ A new consumer.

        Attributes:
            external_id (str): Your identifier for this consumer; unique per tenant and environment.
            kind (ConsumerKind | None | Unset):
            name (None | str | Unset): A display name, at most 200 characters.
            source (None | str | Unset): CloudEvents `source` for deliveries to this consumer: a URI reference
                (RFC 3986) of at most 512 bytes; defaults to `/consumers/{external_id}`.
     """

    external_id: str
    kind: ConsumerKind | None | Unset = UNSET
    name: None | str | Unset = UNSET
    source: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        external_id = self.external_id

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, ConsumerKind):
            kind = self.kind.value
        else:
            kind = self.kind

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "external_id": external_id,
        })
        if kind is not UNSET:
            field_dict["kind"] = kind
        if name is not UNSET:
            field_dict["name"] = name
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        external_id = d.pop("external_id")

        def _parse_kind(data: object) -> ConsumerKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_0 = ConsumerKind(data)



                return kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConsumerKind | None | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))


        create_consumer = cls(
            external_id=external_id,
            kind=kind,
            name=name,
            source=source,
        )

        return create_consumer

