from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.audience import Audience
from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.event_type_version import EventTypeVersion





T = TypeVar("T", bound="EventTypeOut")



@_attrs_define
class EventTypeOut:
    """ An event type as `PUT` answers it, with the warnings its current version
    deserves.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            current_version (int): The version new events are validated against and shaped by.
            description (str): What the type's events mean, for the people who subscribe to them.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            name (str): The type's name, as events carry it in `type` (`order.paid`).
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            versions (list[EventTypeVersion]): Every version of the type's schema, oldest first.
            warnings (list[str]): What deserves a second look (a sample whose thin payload is over the
                20 kB a thin event should stay under); empty when nothing does.
            audience (Audience | Unset): Whom an event type's events published without a `consumer_id` are for.
     """

    created_at: datetime.datetime
    current_version: int
    description: str
    environment: Environment
    name: str
    updated_at: datetime.datetime
    versions: list[EventTypeVersion]
    warnings: list[str]
    audience: Audience | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_version import EventTypeVersion # noqa: PLC0415
        created_at = self.created_at.isoformat()

        current_version = self.current_version

        description = self.description

        environment = self.environment.value

        name = self.name

        updated_at = self.updated_at.isoformat()

        versions = []
        for versions_item_data in self.versions:
            versions_item = versions_item_data.to_dict()
            versions.append(versions_item)



        warnings = self.warnings



        audience: str | Unset = UNSET
        if not isinstance(self.audience, Unset):
            audience = self.audience.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "current_version": current_version,
            "description": description,
            "environment": environment,
            "name": name,
            "updated_at": updated_at,
            "versions": versions,
            "warnings": warnings,
        })
        if audience is not UNSET:
            field_dict["audience"] = audience

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_version import EventTypeVersion # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        current_version = d.pop("current_version")

        description = d.pop("description")

        environment = Environment(d.pop("environment"))




        name = d.pop("name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        versions = []
        _versions = d.pop("versions")
        for versions_item_data in (_versions):
            versions_item = EventTypeVersion.from_dict(versions_item_data)



            versions.append(versions_item)


        warnings = cast(list[str], d.pop("warnings"))


        _audience = d.pop("audience", UNSET)
        audience: Audience | Unset
        if isinstance(_audience,  Unset):
            audience = UNSET
        else:
            audience = Audience(_audience)




        event_type_out = cls(
            created_at=created_at,
            current_version=current_version,
            description=description,
            environment=environment,
            name=name,
            updated_at=updated_at,
            versions=versions,
            warnings=warnings,
            audience=audience,
        )


        event_type_out.additional_properties = d
        return event_type_out

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
