from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.endpoint_version_event_type_versions import EndpointVersionEventTypeVersions





T = TypeVar("T", bound="EndpointVersion")



@_attrs_define
class EndpointVersion:
    """ One version of an endpoint's payload settings, kept after the next
    opens: the messages produced for it are shaped by it for life.

        Attributes:
            allow_personal_data (bool): Whether this version may send fields marked as personal data.
            event_type_versions (EndpointVersionEventTypeVersions): The event type version that shapes this version's
                payloads, by
                event type.
            snapshot_fields (list[str]): The snapshot allow list of this version (JSON Pointers, or `["*"]`).
            started_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            version (int): The version's number: 1 at creation, then one more per change.
     """

    allow_personal_data: bool
    event_type_versions: EndpointVersionEventTypeVersions
    snapshot_fields: list[str]
    started_at: datetime.datetime
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.endpoint_version_event_type_versions import EndpointVersionEventTypeVersions # noqa: PLC0415
        allow_personal_data = self.allow_personal_data

        event_type_versions = self.event_type_versions.to_dict()

        snapshot_fields = self.snapshot_fields



        started_at = self.started_at.isoformat()

        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allow_personal_data": allow_personal_data,
            "event_type_versions": event_type_versions,
            "snapshot_fields": snapshot_fields,
            "started_at": started_at,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.endpoint_version_event_type_versions import EndpointVersionEventTypeVersions # noqa: PLC0415
        d = dict(src_dict)
        allow_personal_data = d.pop("allow_personal_data")

        event_type_versions = EndpointVersionEventTypeVersions.from_dict(d.pop("event_type_versions"))




        snapshot_fields = cast(list[str], d.pop("snapshot_fields"))


        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))




        version = d.pop("version")

        endpoint_version = cls(
            allow_personal_data=allow_personal_data,
            event_type_versions=event_type_versions,
            snapshot_fields=snapshot_fields,
            started_at=started_at,
            version=version,
        )


        endpoint_version.additional_properties = d
        return endpoint_version

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
