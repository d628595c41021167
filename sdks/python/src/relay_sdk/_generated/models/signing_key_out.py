from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.signature_scheme import SignatureScheme
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="SigningKeyOut")



@_attrs_define
class SigningKeyOut:
    """ One signing key as a consumer may see it: never a secret.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            id (str): The key's id (`whk_…`).
            scheme (SignatureScheme): How deliveries to an endpoint are signed (Standard Webhooks'
                `webhook-signature`): `v1a`, Ed25519 with a key pair whose public key
                (`whpk_…`) can be read at any time, or `v1`, HMAC-SHA256 with a shared
                secret (`whsec_…`) shown once. See `docs/verifying-webhooks.md`.
            public_key (None | str | Unset): `whpk_…` for `v1a`; `null` for `v1` (the HMAC secret is never readable).
            retires_at (datetime.datetime | None | Unset):
     """

    created_at: datetime.datetime
    id: str
    scheme: SignatureScheme
    public_key: None | str | Unset = UNSET
    retires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = self.id

        scheme = self.scheme.value

        public_key: None | str | Unset
        if isinstance(self.public_key, Unset):
            public_key = UNSET
        else:
            public_key = self.public_key

        retires_at: None | str | Unset
        if isinstance(self.retires_at, Unset):
            retires_at = UNSET
        elif isinstance(self.retires_at, datetime.datetime):
            retires_at = self.retires_at.isoformat()
        else:
            retires_at = self.retires_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "scheme": scheme,
        })
        if public_key is not UNSET:
            field_dict["public_key"] = public_key
        if retires_at is not UNSET:
            field_dict["retires_at"] = retires_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        scheme = SignatureScheme(d.pop("scheme"))




        def _parse_public_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        public_key = _parse_public_key(d.pop("public_key", UNSET))


        def _parse_retires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                retires_at_type_0 = datetime.datetime.fromisoformat(data)



                return retires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        retires_at = _parse_retires_at(d.pop("retires_at", UNSET))


        signing_key_out = cls(
            created_at=created_at,
            id=id,
            scheme=scheme,
            public_key=public_key,
            retires_at=retires_at,
        )


        signing_key_out.additional_properties = d
        return signing_key_out

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
