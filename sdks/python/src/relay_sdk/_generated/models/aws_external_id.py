from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AwsExternalId")



@_attrs_define
class AwsExternalId:
    """ The trust policy's values for the tenant's roles.

        Attributes:
            external_id (str): The `ExternalId` Relay sends when it assumes one of this tenant's
                roles: require it with the condition
                `"StringEquals": {"sts:ExternalId": "<this value>"}`. Stable for the
                tenant; different for every tenant.
            principal (None | str | Unset): The AWS principal Relay assumes roles as (the role of its own web
                identity), for the trust policy's `Principal`; `null` when the
                operator configured static keys (ask the operator for their ARN).
     """

    external_id: str
    principal: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        external_id = self.external_id

        principal: None | str | Unset
        if isinstance(self.principal, Unset):
            principal = UNSET
        else:
            principal = self.principal


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "external_id": external_id,
        })
        if principal is not UNSET:
            field_dict["principal"] = principal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        external_id = d.pop("external_id")

        def _parse_principal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        principal = _parse_principal(d.pop("principal", UNSET))


        aws_external_id = cls(
            external_id=external_id,
            principal=principal,
        )


        aws_external_id.additional_properties = d
        return aws_external_id

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
