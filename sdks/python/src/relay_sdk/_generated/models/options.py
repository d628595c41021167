from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.generic_options import GenericOptions





T = TypeVar("T", bound="Options")



@_attrs_define
class Options:
    """ Options of one source; which apply depends on its [`Preset`].

        Attributes:
            generic (GenericOptions | None | Unset):
            signed_url (None | str | Unset): Twilio: the exact URL configured at Twilio, when it differs from
                the URL the request reached (a proxy in front of Relay). The query
                string of the request is not added to it.
            tolerance_seconds (int | None | Unset): Replay window in seconds either side of now, for the schemes that
                sign a timestamp (Standard Webhooks, Stripe, SendGrid, Mailgun);
                default 300, at most 86,400.
     """

    generic: GenericOptions | None | Unset = UNSET
    signed_url: None | str | Unset = UNSET
    tolerance_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.generic_options import GenericOptions # noqa: PLC0415
        generic: dict[str, Any] | None | Unset
        if isinstance(self.generic, Unset):
            generic = UNSET
        elif isinstance(self.generic, GenericOptions):
            generic = self.generic.to_dict()
        else:
            generic = self.generic

        signed_url: None | str | Unset
        if isinstance(self.signed_url, Unset):
            signed_url = UNSET
        else:
            signed_url = self.signed_url

        tolerance_seconds: int | None | Unset
        if isinstance(self.tolerance_seconds, Unset):
            tolerance_seconds = UNSET
        else:
            tolerance_seconds = self.tolerance_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if generic is not UNSET:
            field_dict["generic"] = generic
        if signed_url is not UNSET:
            field_dict["signed_url"] = signed_url
        if tolerance_seconds is not UNSET:
            field_dict["tolerance_seconds"] = tolerance_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generic_options import GenericOptions # noqa: PLC0415
        d = dict(src_dict)
        def _parse_generic(data: object) -> GenericOptions | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                generic_type_0 = GenericOptions.from_dict(data)



                return generic_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GenericOptions | None | Unset, data)

        generic = _parse_generic(d.pop("generic", UNSET))


        def _parse_signed_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signed_url = _parse_signed_url(d.pop("signed_url", UNSET))


        def _parse_tolerance_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tolerance_seconds = _parse_tolerance_seconds(d.pop("tolerance_seconds", UNSET))


        options = cls(
            generic=generic,
            signed_url=signed_url,
            tolerance_seconds=tolerance_seconds,
        )

        return options

