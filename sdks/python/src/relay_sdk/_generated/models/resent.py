from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.attempt import Attempt
  from ..models.message import Message





T = TypeVar("T", bound="Resent")



@_attrs_define
class Resent:
    """ A resend's result: the message after the attempt, and the attempt.

        Attributes:
            message (Message): The job of delivering one event to one endpoint.
            attempt (Attempt | None | Unset):
     """

    message: Message
    attempt: Attempt | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt import Attempt # noqa: PLC0415
        from ..models.message import Message # noqa: PLC0415
        message = self.message.to_dict()

        attempt: dict[str, Any] | None | Unset
        if isinstance(self.attempt, Unset):
            attempt = UNSET
        elif isinstance(self.attempt, Attempt):
            attempt = self.attempt.to_dict()
        else:
            attempt = self.attempt


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "message": message,
        })
        if attempt is not UNSET:
            field_dict["attempt"] = attempt

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt import Attempt # noqa: PLC0415
        from ..models.message import Message # noqa: PLC0415
        d = dict(src_dict)
        message = Message.from_dict(d.pop("message"))




        def _parse_attempt(data: object) -> Attempt | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                attempt_type_0 = Attempt.from_dict(data)



                return attempt_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Attempt | None | Unset, data)

        attempt = _parse_attempt(d.pop("attempt", UNSET))


        resent = cls(
            message=message,
            attempt=attempt,
        )


        resent.additional_properties = d
        return resent

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
