from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.https_a2a_push_type_0_authentication_type_0 import HttpsA2APushType0AuthenticationType0





T = TypeVar("T", bound="HttpsA2APushType0")



@_attrs_define
class HttpsA2APushType0:
    """ The A2A push profile: the endpoint is an A2A task's push
    notification configuration and receives that task's updates as the
    A2A `StreamResponse` JSON (`application/a2a+json`), with the config's
    `Authorization` and `X-A2A-Notification-Token`. Absent: CloudEvents,
    as every endpoint. See docs/a2a.md.

        Attributes:
            task_id (str): The A2A task whose updates the endpoint receives (the config's
                `taskId`): an update of any other task is never sent to it.
            authentication (HttpsA2APushType0AuthenticationType0 | None | Unset): The config's `authentication`, sent as
                `Authorization: {scheme}
                {credentials}`; absent: no such header.
            token (str | Unset): A secret reference to the config's `token`, sent as
                `X-A2A-Notification-Token`; absent: no such header.
     """

    task_id: str
    authentication: HttpsA2APushType0AuthenticationType0 | None | Unset = UNSET
    token: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.https_a2a_push_type_0_authentication_type_0 import HttpsA2APushType0AuthenticationType0 # noqa: PLC0415
        task_id = self.task_id

        authentication: dict[str, Any] | None | Unset
        if isinstance(self.authentication, Unset):
            authentication = UNSET
        elif isinstance(self.authentication, HttpsA2APushType0AuthenticationType0):
            authentication = self.authentication.to_dict()
        else:
            authentication = self.authentication

        token = self.token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "task_id": task_id,
        })
        if authentication is not UNSET:
            field_dict["authentication"] = authentication
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.https_a2a_push_type_0_authentication_type_0 import HttpsA2APushType0AuthenticationType0 # noqa: PLC0415
        d = dict(src_dict)
        task_id = d.pop("task_id")

        def _parse_authentication(data: object) -> HttpsA2APushType0AuthenticationType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                authentication_type_0 = HttpsA2APushType0AuthenticationType0.from_dict(data)



                return authentication_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpsA2APushType0AuthenticationType0 | None | Unset, data)

        authentication = _parse_authentication(d.pop("authentication", UNSET))


        token = d.pop("token", UNSET)

        https_a2a_push_type_0 = cls(
            task_id=task_id,
            authentication=authentication,
            token=token,
        )

        return https_a2a_push_type_0

