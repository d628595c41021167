from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.options import Options





T = TypeVar("T", bound="UpdateInboundSource")



@_attrs_define
class UpdateInboundSource:
    """ Changes to an inbound source; absent fields stay as they are. The
    preset, the provider and the path never change.

        Attributes:
            max_body_bytes (int | None | Unset): Largest body accepted, in bytes, 1 to 1,048,576.
            name (None | str | Unset): What the source is for, 1 to 200 characters.
            options (None | Options | Unset):
            rate_limit_per_second (int | None | Unset): Requests per second accepted, 1 to 10,000.
     """

    max_body_bytes: int | None | Unset = UNSET
    name: None | str | Unset = UNSET
    options: None | Options | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.options import Options # noqa: PLC0415
        max_body_bytes: int | None | Unset
        if isinstance(self.max_body_bytes, Unset):
            max_body_bytes = UNSET
        else:
            max_body_bytes = self.max_body_bytes

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        options: dict[str, Any] | None | Unset
        if isinstance(self.options, Unset):
            options = UNSET
        elif isinstance(self.options, Options):
            options = self.options.to_dict()
        else:
            options = self.options

        rate_limit_per_second: int | None | Unset
        if isinstance(self.rate_limit_per_second, Unset):
            rate_limit_per_second = UNSET
        else:
            rate_limit_per_second = self.rate_limit_per_second


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if max_body_bytes is not UNSET:
            field_dict["max_body_bytes"] = max_body_bytes
        if name is not UNSET:
            field_dict["name"] = name
        if options is not UNSET:
            field_dict["options"] = options
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.options import Options # noqa: PLC0415
        d = dict(src_dict)
        def _parse_max_body_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_body_bytes = _parse_max_body_bytes(d.pop("max_body_bytes", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_options(data: object) -> None | Options | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                options_type_0 = Options.from_dict(data)



                return options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Options | Unset, data)

        options = _parse_options(d.pop("options", UNSET))


        def _parse_rate_limit_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_second = _parse_rate_limit_per_second(d.pop("rate_limit_per_second", UNSET))


        update_inbound_source = cls(
            max_body_bytes=max_body_bytes,
            name=name,
            options=options,
            rate_limit_per_second=rate_limit_per_second,
        )

        return update_inbound_source

