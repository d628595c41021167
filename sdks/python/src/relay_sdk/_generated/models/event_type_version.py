from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.event_type_version_sample_type_0 import EventTypeVersionSampleType0
  from ..models.event_type_version_schema_type_0 import EventTypeVersionSchemaType0





T = TypeVar("T", bound="EventTypeVersion")



@_attrs_define
class EventTypeVersion:
    """ One version of an event type's schema.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            personal_data_fields (list[str]): Fields (field paths such as `/customer/email`) that carry personal
                data: an endpoint's allow list takes them only by explicit choice.
            schema (bool | EventTypeVersionSchemaType0): The JSON Schema that published payloads must satisfy: an object, or
                `true` (every payload) or `false` (none).
            thin_fields (list[str]): Fields always sent, even to a thin endpoint: identifiers a consumer
                needs to fetch the rest (JSON Pointers such as `/id`, `/customer/id`).
                Never personal data.
            version (int): The version's number: 1, then one more for each new version.
            sample (EventTypeVersionSampleType0 | None | Unset): A sample payload (valid against `schema`), used by the test
                action and the portal.
     """

    created_at: datetime.datetime
    personal_data_fields: list[str]
    schema: bool | EventTypeVersionSchemaType0
    thin_fields: list[str]
    version: int
    sample: EventTypeVersionSampleType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_version_sample_type_0 import EventTypeVersionSampleType0 # noqa: PLC0415
        from ..models.event_type_version_schema_type_0 import EventTypeVersionSchemaType0 # noqa: PLC0415
        created_at = self.created_at.isoformat()

        personal_data_fields = self.personal_data_fields



        schema: bool | dict[str, Any]
        if isinstance(self.schema, EventTypeVersionSchemaType0):
            schema = self.schema.to_dict()
        else:
            schema = self.schema

        thin_fields = self.thin_fields



        version = self.version

        sample: dict[str, Any] | None | Unset
        if isinstance(self.sample, Unset):
            sample = UNSET
        elif isinstance(self.sample, EventTypeVersionSampleType0):
            sample = self.sample.to_dict()
        else:
            sample = self.sample


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "personal_data_fields": personal_data_fields,
            "schema": schema,
            "thin_fields": thin_fields,
            "version": version,
        })
        if sample is not UNSET:
            field_dict["sample"] = sample

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_version_sample_type_0 import EventTypeVersionSampleType0 # noqa: PLC0415
        from ..models.event_type_version_schema_type_0 import EventTypeVersionSchemaType0 # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        personal_data_fields = cast(list[str], d.pop("personal_data_fields"))


        def _parse_schema(data: object) -> bool | EventTypeVersionSchemaType0:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schema_type_0 = EventTypeVersionSchemaType0.from_dict(data)



                return schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | EventTypeVersionSchemaType0, data)

        schema = _parse_schema(d.pop("schema"))


        thin_fields = cast(list[str], d.pop("thin_fields"))


        version = d.pop("version")

        def _parse_sample(data: object) -> EventTypeVersionSampleType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sample_type_0 = EventTypeVersionSampleType0.from_dict(data)



                return sample_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventTypeVersionSampleType0 | None | Unset, data)

        sample = _parse_sample(d.pop("sample", UNSET))


        event_type_version = cls(
            created_at=created_at,
            personal_data_fields=personal_data_fields,
            schema=schema,
            thin_fields=thin_fields,
            version=version,
            sample=sample,
        )


        event_type_version.additional_properties = d
        return event_type_version

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
