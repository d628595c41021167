from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.audience import Audience
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.put_event_type_body_sample_type_0 import PutEventTypeBodySampleType0
  from ..models.put_event_type_body_schema_type_0 import PutEventTypeBodySchemaType0





T = TypeVar("T", bound="PutEventTypeBody")



@_attrs_define
class PutEventTypeBody:
    """ An event type's definition: its schema and field lists (a new version
    when they change), its description and audience.

        Attributes:
            schema (bool | PutEventTypeBodySchemaType0): The JSON Schema that published payloads must satisfy: an object, or
                `true` (every payload) or `false` (none).
            audience (Audience | Unset): Whom an event type's events published without a `consumer_id` are for.
            description (str | Unset): What the type's events mean, for the people who subscribe to them;
                at most 2000 characters. Default: empty.
            personal_data_fields (list[str] | Unset): Fields that carry personal data: JSON Pointers the schema declares,
                as for `thin_fields`. An endpoint's snapshot takes them only with
                `allow_personal_data`, and with a warning.
            sample (None | PutEventTypeBodySampleType0 | Unset): A sample payload; it must satisfy `schema`.
            thin_fields (list[str] | Unset): Fields always sent, even to a thin endpoint: identifiers a consumer
                needs to fetch the full event (`GET /v1/events/{id}`). JSON Pointers
                through object members that the schema declares (a pointer through an
                array applies to each element); at most 64; never personal data.
                Changing them opens a new version.
     """

    schema: bool | PutEventTypeBodySchemaType0
    audience: Audience | Unset = UNSET
    description: str | Unset = UNSET
    personal_data_fields: list[str] | Unset = UNSET
    sample: None | PutEventTypeBodySampleType0 | Unset = UNSET
    thin_fields: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.put_event_type_body_sample_type_0 import PutEventTypeBodySampleType0 # noqa: PLC0415
        from ..models.put_event_type_body_schema_type_0 import PutEventTypeBodySchemaType0 # noqa: PLC0415
        schema: bool | dict[str, Any]
        if isinstance(self.schema, PutEventTypeBodySchemaType0):
            schema = self.schema.to_dict()
        else:
            schema = self.schema

        audience: str | Unset = UNSET
        if not isinstance(self.audience, Unset):
            audience = self.audience.value


        description = self.description

        personal_data_fields: list[str] | Unset = UNSET
        if not isinstance(self.personal_data_fields, Unset):
            personal_data_fields = self.personal_data_fields



        sample: dict[str, Any] | None | Unset
        if isinstance(self.sample, Unset):
            sample = UNSET
        elif isinstance(self.sample, PutEventTypeBodySampleType0):
            sample = self.sample.to_dict()
        else:
            sample = self.sample

        thin_fields: list[str] | Unset = UNSET
        if not isinstance(self.thin_fields, Unset):
            thin_fields = self.thin_fields




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "schema": schema,
        })
        if audience is not UNSET:
            field_dict["audience"] = audience
        if description is not UNSET:
            field_dict["description"] = description
        if personal_data_fields is not UNSET:
            field_dict["personal_data_fields"] = personal_data_fields
        if sample is not UNSET:
            field_dict["sample"] = sample
        if thin_fields is not UNSET:
            field_dict["thin_fields"] = thin_fields

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.put_event_type_body_sample_type_0 import PutEventTypeBodySampleType0 # noqa: PLC0415
        from ..models.put_event_type_body_schema_type_0 import PutEventTypeBodySchemaType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_schema(data: object) -> bool | PutEventTypeBodySchemaType0:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schema_type_0 = PutEventTypeBodySchemaType0.from_dict(data)



                return schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | PutEventTypeBodySchemaType0, data)

        schema = _parse_schema(d.pop("schema"))


        _audience = d.pop("audience", UNSET)
        audience: Audience | Unset
        if isinstance(_audience,  Unset):
            audience = UNSET
        else:
            audience = Audience(_audience)




        description = d.pop("description", UNSET)

        personal_data_fields = cast(list[str], d.pop("personal_data_fields", UNSET))


        def _parse_sample(data: object) -> None | PutEventTypeBodySampleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sample_type_0 = PutEventTypeBodySampleType0.from_dict(data)



                return sample_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutEventTypeBodySampleType0 | Unset, data)

        sample = _parse_sample(d.pop("sample", UNSET))


        thin_fields = cast(list[str], d.pop("thin_fields", UNSET))


        put_event_type_body = cls(
            schema=schema,
            audience=audience,
            description=description,
            personal_data_fields=personal_data_fields,
            sample=sample,
            thin_fields=thin_fields,
        )

        return put_event_type_body

