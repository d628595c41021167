from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.portal_brand import PortalBrand





T = TypeVar("T", bound="PortalBrandOut")



@_attrs_define
class PortalBrandOut:
    """ The brand a tenant's portal shows.

        Attributes:
            brand (PortalBrand): The tenant's brand for its portal, applied through CSS custom
                properties (`--relay-primary`, …; docs/portal.md). A host page may
                override any of them.
            tenant_id (None | str | Unset): Whose brand it is: this tenant's, its parent's (inherited), or
                `null` (none set: Relay's defaults).
     """

    brand: PortalBrand
    tenant_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.portal_brand import PortalBrand # noqa: PLC0415
        brand = self.brand.to_dict()

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        else:
            tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "brand": brand,
        })
        if tenant_id is not UNSET:
            field_dict["tenant_id"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.portal_brand import PortalBrand # noqa: PLC0415
        d = dict(src_dict)
        brand = PortalBrand.from_dict(d.pop("brand"))




        def _parse_tenant_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant_id = _parse_tenant_id(d.pop("tenant_id", UNSET))


        portal_brand_out = cls(
            brand=brand,
            tenant_id=tenant_id,
        )


        portal_brand_out.additional_properties = d
        return portal_brand_out

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
