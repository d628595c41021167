from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RotateInboundSecret")



@_attrs_define
class RotateInboundSecret:
    """ A source's new secret, and how long the current one keeps verifying.

        Attributes:
            overlap_hours (int | None | Unset): How long the current secret keeps verifying beside the new one,
                0 to 168 hours (default 24): the time the provider takes to switch.
            secret (None | str | Unset): The new secret (write-only, like at creation). Give this or `secret_ref`.
            secret_ref (None | str | Unset): Instead of `secret`: the new secret as a secret reference. Example:
                secret:stripe-signing-2.
     """

    overlap_hours: int | None | Unset = UNSET
    secret: None | str | Unset = UNSET
    secret_ref: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        overlap_hours: int | None | Unset
        if isinstance(self.overlap_hours, Unset):
            overlap_hours = UNSET
        else:
            overlap_hours = self.overlap_hours

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        secret_ref: None | str | Unset
        if isinstance(self.secret_ref, Unset):
            secret_ref = UNSET
        else:
            secret_ref = self.secret_ref


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if overlap_hours is not UNSET:
            field_dict["overlap_hours"] = overlap_hours
        if secret is not UNSET:
            field_dict["secret"] = secret
        if secret_ref is not UNSET:
            field_dict["secret_ref"] = secret_ref

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_overlap_hours(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        overlap_hours = _parse_overlap_hours(d.pop("overlap_hours", UNSET))


        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))


        def _parse_secret_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret_ref = _parse_secret_ref(d.pop("secret_ref", UNSET))


        rotate_inbound_secret = cls(
            overlap_hours=overlap_hours,
            secret=secret,
            secret_ref=secret_ref,
        )

        return rotate_inbound_secret

