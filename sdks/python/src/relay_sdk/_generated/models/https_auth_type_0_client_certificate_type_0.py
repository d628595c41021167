from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="HttpsAuthType0ClientCertificateType0")



@_attrs_define
class HttpsAuthType0ClientCertificateType0:
    """ Mutual TLS: the certificate chain and private key Relay presents when
    the receiver asks for a client certificate. Both are secret
    references, never the PEM itself; at registration they must resolve,
    the chain must be PEM certificates (leaf first), the key an
    unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) matching
    the leaf.

        Attributes:
            chain (str): A secret reference to the PEM certificate chain, the leaf first.
            key (str): A secret reference to the leaf's PEM private key.
     """

    chain: str
    key: str





    def to_dict(self) -> dict[str, Any]:
        chain = self.chain

        key = self.key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "chain": chain,
            "key": key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chain = d.pop("chain")

        key = d.pop("key")

        https_auth_type_0_client_certificate_type_0 = cls(
            chain=chain,
            key=key,
        )

        return https_auth_type_0_client_certificate_type_0

