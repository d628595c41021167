from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.signing_key_out import SigningKeyOut





T = TypeVar("T", bound="KeyRotated")



@_attrs_define
class KeyRotated:
    """ The rotation result: the `v1` secret appears here once and never again.

        Attributes:
            endpoint_id (str): The endpoint whose key was rotated.
            keys (list[SigningKeyOut]): Every key, newest first, with retirement times.
            secret (None | str | Unset): `whsec_…` of the new key when it is `v1`.
     """

    endpoint_id: str
    keys: list[SigningKeyOut]
    secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.signing_key_out import SigningKeyOut # noqa: PLC0415
        endpoint_id = self.endpoint_id

        keys = []
        for keys_item_data in self.keys:
            keys_item = keys_item_data.to_dict()
            keys.append(keys_item)



        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "endpoint_id": endpoint_id,
            "keys": keys,
        })
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.signing_key_out import SigningKeyOut # noqa: PLC0415
        d = dict(src_dict)
        endpoint_id = d.pop("endpoint_id")

        keys = []
        _keys = d.pop("keys")
        for keys_item_data in (_keys):
            keys_item = SigningKeyOut.from_dict(keys_item_data)



            keys.append(keys_item)


        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))


        key_rotated = cls(
            endpoint_id=endpoint_id,
            keys=keys,
            secret=secret,
        )


        key_rotated.additional_properties = d
        return key_rotated

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
