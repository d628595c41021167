from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.azure_service_bus_auth_entra import AzureServiceBusAuthEntra
  from ..models.azure_service_bus_auth_sas import AzureServiceBusAuthSas





T = TypeVar("T", bound="AzureServiceBusAuth")



@_attrs_define
class AzureServiceBusAuth:
    """ How Relay authenticates: `{"sas": {"key_name", "key"}}` or
    `{"entra": {"tenant_id", "client_id", "client_secret"}}`.

        Attributes:
            entra (AzureServiceBusAuthEntra | Unset): Microsoft Entra ID client credentials (an app registration with the
                `Azure Service Bus Data Sender` role on the entity): a token of
                scope `https://servicebus.azure.net/.default`, cached until shortly
                before it expires.
            sas (AzureServiceBusAuthSas | Unset): A shared access authorization rule: its name and its key (a secret
                reference). Each request carries a SAS token signed with the key
                for the entity's URI, renewed before it expires.
     """

    entra: AzureServiceBusAuthEntra | Unset = UNSET
    sas: AzureServiceBusAuthSas | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.azure_service_bus_auth_entra import AzureServiceBusAuthEntra # noqa: PLC0415
        from ..models.azure_service_bus_auth_sas import AzureServiceBusAuthSas # noqa: PLC0415
        entra: dict[str, Any] | Unset = UNSET
        if not isinstance(self.entra, Unset):
            entra = self.entra.to_dict()

        sas: dict[str, Any] | Unset = UNSET
        if not isinstance(self.sas, Unset):
            sas = self.sas.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if entra is not UNSET:
            field_dict["entra"] = entra
        if sas is not UNSET:
            field_dict["sas"] = sas

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.azure_service_bus_auth_entra import AzureServiceBusAuthEntra # noqa: PLC0415
        from ..models.azure_service_bus_auth_sas import AzureServiceBusAuthSas # noqa: PLC0415
        d = dict(src_dict)
        _entra = d.pop("entra", UNSET)
        entra: AzureServiceBusAuthEntra | Unset
        if isinstance(_entra,  Unset):
            entra = UNSET
        else:
            entra = AzureServiceBusAuthEntra.from_dict(_entra)




        _sas = d.pop("sas", UNSET)
        sas: AzureServiceBusAuthSas | Unset
        if isinstance(_sas,  Unset):
            sas = UNSET
        else:
            sas = AzureServiceBusAuthSas.from_dict(_sas)




        azure_service_bus_auth = cls(
            entra=entra,
            sas=sas,
        )

        return azure_service_bus_auth

