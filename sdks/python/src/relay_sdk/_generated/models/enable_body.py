from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="EnableBody")



@_attrs_define
class EnableBody:
    """ Enable's options (the body may be absent): whether to recover what was
    missed at once.

        Attributes:
            recover (bool | Unset): Also queue what was missed while disabled, as `recover` does from
                `since` (default: the start of the retention period): paced recovery
                traffic, never a flood of live traffic. Without it, held messages
                stay held (listed by `GET /v1/endpoints/{id}/missed`) until a recover.
            since (datetime.datetime | None | Unset): Where that recover starts (only with `recover`).
     """

    recover: bool | Unset = UNSET
    since: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        recover = self.recover

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if recover is not UNSET:
            field_dict["recover"] = recover
        if since is not UNSET:
            field_dict["since"] = since

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        recover = d.pop("recover", UNSET)

        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)



                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))


        enable_body = cls(
            recover=recover,
            since=since,
        )

        return enable_body

