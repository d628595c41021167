from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.https_auth_type_0_client_certificate_type_0 import HttpsAuthType0ClientCertificateType0
  from ..models.https_auth_type_0_oauth_2_type_0 import HttpsAuthType0Oauth2Type0





T = TypeVar("T", bound="HttpsAuthType0")



@_attrs_define
class HttpsAuthType0:
    """ Client authentication besides the signature; `null` or absent: none.
    See docs/destinations.md.

        Attributes:
            client_certificate (HttpsAuthType0ClientCertificateType0 | None | Unset): Mutual TLS: the certificate chain and
                private key Relay presents when
                the receiver asks for a client certificate. Both are secret
                references, never the PEM itself; at registration they must resolve,
                the chain must be PEM certificates (leaf first), the key an
                unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) matching
                the leaf.
            oauth2 (HttpsAuthType0Oauth2Type0 | None | Unset): OAuth 2.0 client credentials (RFC 6749 section 4.4): Relay
                fetches a
                token from `token_url` (through the outbound guard, like the
                endpoint), caches it until shortly before it expires, and sends
                `Authorization: Bearer <token>` with every request; a `401` from the
                endpoint fetches a new token and tries once more in the same attempt.
                Cannot be combined with a custom `Authorization` header.
     """

    client_certificate: HttpsAuthType0ClientCertificateType0 | None | Unset = UNSET
    oauth2: HttpsAuthType0Oauth2Type0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.https_auth_type_0_client_certificate_type_0 import HttpsAuthType0ClientCertificateType0 # noqa: PLC0415
        from ..models.https_auth_type_0_oauth_2_type_0 import HttpsAuthType0Oauth2Type0 # noqa: PLC0415
        client_certificate: dict[str, Any] | None | Unset
        if isinstance(self.client_certificate, Unset):
            client_certificate = UNSET
        elif isinstance(self.client_certificate, HttpsAuthType0ClientCertificateType0):
            client_certificate = self.client_certificate.to_dict()
        else:
            client_certificate = self.client_certificate

        oauth2: dict[str, Any] | None | Unset
        if isinstance(self.oauth2, Unset):
            oauth2 = UNSET
        elif isinstance(self.oauth2, HttpsAuthType0Oauth2Type0):
            oauth2 = self.oauth2.to_dict()
        else:
            oauth2 = self.oauth2


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if client_certificate is not UNSET:
            field_dict["client_certificate"] = client_certificate
        if oauth2 is not UNSET:
            field_dict["oauth2"] = oauth2

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.https_auth_type_0_client_certificate_type_0 import HttpsAuthType0ClientCertificateType0 # noqa: PLC0415
        from ..models.https_auth_type_0_oauth_2_type_0 import HttpsAuthType0Oauth2Type0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_client_certificate(data: object) -> HttpsAuthType0ClientCertificateType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                client_certificate_type_0 = HttpsAuthType0ClientCertificateType0.from_dict(data)



                return client_certificate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpsAuthType0ClientCertificateType0 | None | Unset, data)

        client_certificate = _parse_client_certificate(d.pop("client_certificate", UNSET))


        def _parse_oauth2(data: object) -> HttpsAuthType0Oauth2Type0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                oauth2_type_0 = HttpsAuthType0Oauth2Type0.from_dict(data)



                return oauth2_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpsAuthType0Oauth2Type0 | None | Unset, data)

        oauth2 = _parse_oauth2(d.pop("oauth2", UNSET))


        https_auth_type_0 = cls(
            client_certificate=client_certificate,
            oauth2=oauth2,
        )

        return https_auth_type_0

