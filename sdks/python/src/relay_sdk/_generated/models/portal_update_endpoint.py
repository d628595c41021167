from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PortalUpdateEndpoint")



@_attrs_define
class PortalUpdateEndpoint:
    """ Changes to an endpoint; absent fields stay as they are.

        Attributes:
            auto_disable (bool | None | Unset): Whether 5 days of continuous failure disable the endpoint.
            description (None | str | Unset): A note for people (at most 500 characters), or `null` to clear it.
            event_types (list[str] | None | Unset): Event types to receive, at most 256; `["*"]` receives all.
            rate_limit_per_second (int | None | Unset): Attempts started per second at most (1 to 100,000), or `null` for no
                limit.
            url (None | str | Unset): A new `https://` URL. Refused when it moves to another host an
                endpoint whose tenant set credentials (secret headers, client
                authentication) for the current one.
     """

    auto_disable: bool | None | Unset = UNSET
    description: None | str | Unset = UNSET
    event_types: list[str] | None | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
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

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types


        else:
            event_types = self.event_types

        rate_limit_per_second: int | None | Unset
        if isinstance(self.rate_limit_per_second, Unset):
            rate_limit_per_second = UNSET
        else:
            rate_limit_per_second = self.rate_limit_per_second

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if auto_disable is not UNSET:
            field_dict["auto_disable"] = auto_disable
        if description is not UNSET:
            field_dict["description"] = description
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
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


        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))


        def _parse_rate_limit_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_second = _parse_rate_limit_per_second(d.pop("rate_limit_per_second", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        portal_update_endpoint = cls(
            auto_disable=auto_disable,
            description=description,
            event_types=event_types,
            rate_limit_per_second=rate_limit_per_second,
            url=url,
        )

        return portal_update_endpoint

