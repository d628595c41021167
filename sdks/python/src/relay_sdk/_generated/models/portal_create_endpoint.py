from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.signature_scheme import SignatureScheme
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PortalCreateEndpoint")



@_attrs_define
class PortalCreateEndpoint:
    """ A new endpoint of the token's consumer.

        Attributes:
            event_types (list[str]): Event types to receive (at most 256); `["*"]` receives all.
            url (str): The `https://` URL deliveries go to.
            auto_disable (bool | None | Unset): Disable automatically after 5 days of continuous failure (default true).
            description (None | str | Unset): A note for people, at most 500 characters.
            rate_limit_per_second (int | None | Unset): Attempts started per second at most, 1 to 100,000; absent: no limit.
            signature_scheme (None | SignatureScheme | Unset):
     """

    event_types: list[str]
    url: str
    auto_disable: bool | None | Unset = UNSET
    description: None | str | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    signature_scheme: None | SignatureScheme | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_types = self.event_types



        url = self.url

        auto_disable: bool | None | Unset
        if isinstance(self.auto_disable, Unset):
            auto_disable = UNSET
        else:
            auto_disable = self.auto_disable

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        rate_limit_per_second: int | None | Unset
        if isinstance(self.rate_limit_per_second, Unset):
            rate_limit_per_second = UNSET
        else:
            rate_limit_per_second = self.rate_limit_per_second

        signature_scheme: None | str | Unset
        if isinstance(self.signature_scheme, Unset):
            signature_scheme = UNSET
        elif isinstance(self.signature_scheme, SignatureScheme):
            signature_scheme = self.signature_scheme.value
        else:
            signature_scheme = self.signature_scheme


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_types": event_types,
            "url": url,
        })
        if auto_disable is not UNSET:
            field_dict["auto_disable"] = auto_disable
        if description is not UNSET:
            field_dict["description"] = description
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if signature_scheme is not UNSET:
            field_dict["signature_scheme"] = signature_scheme

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_types = cast(list[str], d.pop("event_types"))


        url = d.pop("url")

        def _parse_auto_disable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        auto_disable = _parse_auto_disable(d.pop("auto_disable", UNSET))


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_rate_limit_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_second = _parse_rate_limit_per_second(d.pop("rate_limit_per_second", UNSET))


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


        portal_create_endpoint = cls(
            event_types=event_types,
            url=url,
            auto_disable=auto_disable,
            description=description,
            rate_limit_per_second=rate_limit_per_second,
            signature_scheme=signature_scheme,
        )

        return portal_create_endpoint

