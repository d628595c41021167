from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="ApiKeyCreated")



@_attrs_define
class ApiKeyCreated:
    """ A new API key: `key` is shown here once and never again.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            id (str): The key's id (`key_…`), not the key itself.
            prefix (str): The first characters of the key (`rk_live_ab12`), enough to recognise it.
            tenant_id (str): The tenant the key acts for.
            key (str): The key itself (`rk_live_…` or `rk_test_…`), the bearer token for
                the tenant's API: shown in this answer only (Relay keeps its SHA-256).
            name (None | str | Unset): The label given at creation, if any.
            revoked_at (datetime.datetime | None | Unset):
     """

    created_at: datetime.datetime
    environment: Environment
    id: str
    prefix: str
    tenant_id: str
    key: str
    name: None | str | Unset = UNSET
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        environment = self.environment.value

        id = self.id

        prefix = self.prefix

        tenant_id = self.tenant_id

        key = self.key

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "environment": environment,
            "id": id,
            "prefix": prefix,
            "tenant_id": tenant_id,
            "key": key,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        environment = Environment(d.pop("environment"))




        id = d.pop("id")

        prefix = d.pop("prefix")

        tenant_id = d.pop("tenant_id")

        key = d.pop("key")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))


        api_key_created = cls(
            created_at=created_at,
            environment=environment,
            id=id,
            prefix=prefix,
            tenant_id=tenant_id,
            key=key,
            name=name,
            revoked_at=revoked_at,
        )


        api_key_created.additional_properties = d
        return api_key_created

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
