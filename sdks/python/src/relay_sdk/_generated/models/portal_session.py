from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.capability import Capability
from ..models.environment import Environment
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.portal_brand import PortalBrand





T = TypeVar("T", bound="PortalSession")



@_attrs_define
class PortalSession:
    """ What the portal shows about its own session.

        Attributes:
            allowed_origins (list[str]): Origins whose pages may use the token.
            brand (PortalBrand): The tenant's brand for its portal, applied through CSS custom
                properties (`--relay-primary`, …; docs/portal.md). A host page may
                override any of them.
            capabilities (list[Capability]): What the token allows beyond reading.
            consumer_id (str): The consumer whose portal this is.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            expires_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            token_id (str): The portal token's id (`ptk_…`).
            consumer_name (None | str | Unset): The consumer's name, if it has one.
     """

    allowed_origins: list[str]
    brand: PortalBrand
    capabilities: list[Capability]
    consumer_id: str
    environment: Environment
    expires_at: datetime.datetime
    token_id: str
    consumer_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.portal_brand import PortalBrand # noqa: PLC0415
        allowed_origins = self.allowed_origins



        brand = self.brand.to_dict()

        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        environment = self.environment.value

        expires_at = self.expires_at.isoformat()

        token_id = self.token_id

        consumer_name: None | str | Unset
        if isinstance(self.consumer_name, Unset):
            consumer_name = UNSET
        else:
            consumer_name = self.consumer_name


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allowed_origins": allowed_origins,
            "brand": brand,
            "capabilities": capabilities,
            "consumer_id": consumer_id,
            "environment": environment,
            "expires_at": expires_at,
            "token_id": token_id,
        })
        if consumer_name is not UNSET:
            field_dict["consumer_name"] = consumer_name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.portal_brand import PortalBrand # noqa: PLC0415
        d = dict(src_dict)
        allowed_origins = cast(list[str], d.pop("allowed_origins"))


        brand = PortalBrand.from_dict(d.pop("brand"))




        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = Capability(capabilities_item_data)



            capabilities.append(capabilities_item)


        consumer_id = d.pop("consumer_id")

        environment = Environment(d.pop("environment"))




        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        token_id = d.pop("token_id")

        def _parse_consumer_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_name = _parse_consumer_name(d.pop("consumer_name", UNSET))


        portal_session = cls(
            allowed_origins=allowed_origins,
            brand=brand,
            capabilities=capabilities,
            consumer_id=consumer_id,
            environment=environment,
            expires_at=expires_at,
            token_id=token_id,
            consumer_name=consumer_name,
        )


        portal_session.additional_properties = d
        return portal_session

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
