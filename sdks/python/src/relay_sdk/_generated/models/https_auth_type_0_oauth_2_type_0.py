from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.https_auth_type_0_oauth_2_type_0_method import HttpsAuthType0Oauth2Type0Method
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="HttpsAuthType0Oauth2Type0")



@_attrs_define
class HttpsAuthType0Oauth2Type0:
    """ OAuth 2.0 client credentials (RFC 6749 section 4.4): Relay fetches a
    token from `token_url` (through the outbound guard, like the
    endpoint), caches it until shortly before it expires, and sends
    `Authorization: Bearer <token>` with every request; a `401` from the
    endpoint fetches a new token and tries once more in the same attempt.
    Cannot be combined with a custom `Authorization` header.

        Attributes:
            client_id (str): Printable ASCII (RFC 6749 VSCHAR).
            client_secret (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                client secret, never the secret itself. See docs/destinations.md (Credentials: secret references).
            token_url (str): The token endpoint: `https://`, a port the operator allows, no
                credentials in it.
            audience (None | str | Unset): Sent as the `audience` parameter when set (printable ASCII).
            method (HttpsAuthType0Oauth2Type0Method | Unset): `client_secret_basic` (default): HTTP Basic with the form-
                urlencoded
                id and secret; `client_secret_post`: both in the form body. Default:
                HttpsAuthType0Oauth2Type0Method.CLIENT_SECRET_BASIC.
            scopes (list[str] | Unset): Scope tokens (RFC 6749 NQCHAR, no spaces), sent space-separated as
                `scope`; default none.
     """

    client_id: str
    client_secret: str
    token_url: str
    audience: None | str | Unset = UNSET
    method: HttpsAuthType0Oauth2Type0Method | Unset = HttpsAuthType0Oauth2Type0Method.CLIENT_SECRET_BASIC
    scopes: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        client_secret = self.client_secret

        token_url = self.token_url

        audience: None | str | Unset
        if isinstance(self.audience, Unset):
            audience = UNSET
        else:
            audience = self.audience

        method: str | Unset = UNSET
        if not isinstance(self.method, Unset):
            method = self.method.value


        scopes: list[str] | Unset = UNSET
        if not isinstance(self.scopes, Unset):
            scopes = self.scopes




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "client_id": client_id,
            "client_secret": client_secret,
            "token_url": token_url,
        })
        if audience is not UNSET:
            field_dict["audience"] = audience
        if method is not UNSET:
            field_dict["method"] = method
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = d.pop("client_id")

        client_secret = d.pop("client_secret")

        token_url = d.pop("token_url")

        def _parse_audience(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        audience = _parse_audience(d.pop("audience", UNSET))


        _method = d.pop("method", UNSET)
        method: HttpsAuthType0Oauth2Type0Method | Unset
        if isinstance(_method,  Unset):
            method = UNSET
        else:
            method = HttpsAuthType0Oauth2Type0Method(_method)




        scopes = cast(list[str], d.pop("scopes", UNSET))


        https_auth_type_0_oauth_2_type_0 = cls(
            client_id=client_id,
            client_secret=client_secret,
            token_url=token_url,
            audience=audience,
            method=method,
            scopes=scopes,
        )

        return https_auth_type_0_oauth_2_type_0

