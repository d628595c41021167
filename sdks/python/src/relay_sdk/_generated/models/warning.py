from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="Warning_")



@_attrs_define
class Warning_:
    """ A health warning: something about the endpoint that needs a person.

        Attributes:
            at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            detail (str): What happened, for people.
            kind (str): `blocked_address`, `redirect_not_followed`, `oauth_token_refused`,
                `secret_unresolved` or `failing_for_72_hours`.
     """

    at: datetime.datetime
    detail: str
    kind: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        detail = self.detail

        kind = self.kind


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "detail": detail,
            "kind": kind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        detail = d.pop("detail")

        kind = d.pop("kind")

        warning = cls(
            at=at,
            detail=detail,
            kind=kind,
        )


        warning.additional_properties = d
        return warning

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
