from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.audit_entry_parameters import AuditEntryParameters





T = TypeVar("T", bound="AuditEntry")



@_attrs_define
class AuditEntry:
    """ One audited action.

        Attributes:
            action (str): e.g. `endpoint.created`, `endpoint.key_rotated`.
            actor (str): The API key id (or `operator`) that acted.
            at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            id (str): The entry's id (`aud_…`).
            parameters (AuditEntryParameters): What the action was given, never a secret: the fields changed, the
                overlap of a rotation, … (by action).
            target (str): The object acted on (an endpoint id, …).
     """

    action: str
    actor: str
    at: datetime.datetime
    id: str
    parameters: AuditEntryParameters
    target: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_entry_parameters import AuditEntryParameters # noqa: PLC0415
        action = self.action

        actor = self.actor

        at = self.at.isoformat()

        id = self.id

        parameters = self.parameters.to_dict()

        target = self.target


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "actor": actor,
            "at": at,
            "id": id,
            "parameters": parameters,
            "target": target,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_entry_parameters import AuditEntryParameters # noqa: PLC0415
        d = dict(src_dict)
        action = d.pop("action")

        actor = d.pop("actor")

        at = datetime.datetime.fromisoformat(d.pop("at"))




        id = d.pop("id")

        parameters = AuditEntryParameters.from_dict(d.pop("parameters"))




        target = d.pop("target")

        audit_entry = cls(
            action=action,
            actor=actor,
            at=at,
            id=id,
            parameters=parameters,
            target=target,
        )


        audit_entry.additional_properties = d
        return audit_entry

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
