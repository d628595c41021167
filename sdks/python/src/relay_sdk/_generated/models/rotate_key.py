from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.signature_scheme import SignatureScheme
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RotateKey")



@_attrs_define
class RotateKey:
    """ A key rotation: how long the old key keeps signing, and the new key's scheme.

        Attributes:
            overlap_hours (int | None | Unset): How long the old key keeps signing beside the new one, 0 to 168 hours
                (default 24).
            signature_scheme (None | SignatureScheme | Unset):
     """

    overlap_hours: int | None | Unset = UNSET
    signature_scheme: None | SignatureScheme | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        overlap_hours: int | None | Unset
        if isinstance(self.overlap_hours, Unset):
            overlap_hours = UNSET
        else:
            overlap_hours = self.overlap_hours

        signature_scheme: None | str | Unset
        if isinstance(self.signature_scheme, Unset):
            signature_scheme = UNSET
        elif isinstance(self.signature_scheme, SignatureScheme):
            signature_scheme = self.signature_scheme.value
        else:
            signature_scheme = self.signature_scheme


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if overlap_hours is not UNSET:
            field_dict["overlap_hours"] = overlap_hours
        if signature_scheme is not UNSET:
            field_dict["signature_scheme"] = signature_scheme

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


        def _parse_signature_scheme(data: object) -> None | SignatureScheme | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                signature_scheme_type_0 = SignatureScheme(data)



                return signature_scheme_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SignatureScheme | Unset, data)

        signature_scheme = _parse_signature_scheme(d.pop("signature_scheme", UNSET))


        rotate_key = cls(
            overlap_hours=overlap_hours,
            signature_scheme=signature_scheme,
        )

        return rotate_key

