from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.https_kind import HttpsKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.https_a2a_push_type_0 import HttpsA2APushType0
  from ..models.https_auth_type_0 import HttpsAuthType0
  from ..models.https_headers_item import HttpsHeadersItem





T = TypeVar("T", bound="Https")



@_attrs_define
class Https:
    """ An HTTPS URL that receives each message as a signed POST.

        Attributes:
            kind (HttpsKind): The destination's kind: `https`.
            url (str): The `https://` URL Relay POSTs each message to. Checked against the
                operator's outbound policy at registration and at every connection.
            a2a_push (HttpsA2APushType0 | None | Unset): The A2A push profile: the endpoint is an A2A task's push
                notification configuration and receives that task's updates as the
                A2A `StreamResponse` JSON (`application/a2a+json`), with the config's
                `Authorization` and `X-A2A-Notification-Token`. Absent: CloudEvents,
                as every endpoint. See docs/a2a.md.
            auth (HttpsAuthType0 | None | Unset): Client authentication besides the signature; `null` or absent: none.
                See docs/destinations.md.
            headers (list[HttpsHeadersItem] | Unset): Static headers sent with every request, in order. Each has a `name`
                (an HTTP token, at most 256 bytes, unique ignoring case) and exactly
                one of `value` (printable ASCII, at most 1024 bytes, no leading or
                trailing space) or `secret` (a secret reference to the value, which
                must satisfy the same rule once resolved). They cannot set `Host`,
                `Content-Type`, `Content-Length`, `Content-Encoding`, hop-by-hop
                headers (`Connection`, `Transfer-Encoding`, `TE`, `Trailer`,
                `Upgrade`, `Keep-Alive`, `Expect`, `Proxy-*`), the Standard Webhooks
                headers (`webhook-*`) or Relay's own (`relay-*`). Absent when empty.
     """

    kind: HttpsKind
    url: str
    a2a_push: HttpsA2APushType0 | None | Unset = UNSET
    auth: HttpsAuthType0 | None | Unset = UNSET
    headers: list[HttpsHeadersItem] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.https_a2a_push_type_0 import HttpsA2APushType0 # noqa: PLC0415
        from ..models.https_auth_type_0 import HttpsAuthType0 # noqa: PLC0415
        from ..models.https_headers_item import HttpsHeadersItem # noqa: PLC0415
        kind = self.kind.value

        url = self.url

        a2a_push: dict[str, Any] | None | Unset
        if isinstance(self.a2a_push, Unset):
            a2a_push = UNSET
        elif isinstance(self.a2a_push, HttpsA2APushType0):
            a2a_push = self.a2a_push.to_dict()
        else:
            a2a_push = self.a2a_push

        auth: dict[str, Any] | None | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, HttpsAuthType0):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        headers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = []
            for headers_item_data in self.headers:
                headers_item = headers_item_data.to_dict()
                headers.append(headers_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "url": url,
        })
        if a2a_push is not UNSET:
            field_dict["a2a_push"] = a2a_push
        if auth is not UNSET:
            field_dict["auth"] = auth
        if headers is not UNSET:
            field_dict["headers"] = headers

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.https_a2a_push_type_0 import HttpsA2APushType0 # noqa: PLC0415
        from ..models.https_auth_type_0 import HttpsAuthType0 # noqa: PLC0415
        from ..models.https_headers_item import HttpsHeadersItem # noqa: PLC0415
        d = dict(src_dict)
        kind = HttpsKind(d.pop("kind"))




        url = d.pop("url")

        def _parse_a2a_push(data: object) -> HttpsA2APushType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                a2a_push_type_0 = HttpsA2APushType0.from_dict(data)



                return a2a_push_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpsA2APushType0 | None | Unset, data)

        a2a_push = _parse_a2a_push(d.pop("a2a_push", UNSET))


        def _parse_auth(data: object) -> HttpsAuthType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0 = HttpsAuthType0.from_dict(data)



                return auth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HttpsAuthType0 | None | Unset, data)

        auth = _parse_auth(d.pop("auth", UNSET))


        _headers = d.pop("headers", UNSET)
        headers: list[HttpsHeadersItem] | Unset = UNSET
        if _headers is not UNSET:
            headers = []
            for headers_item_data in _headers:
                headers_item = HttpsHeadersItem.from_dict(headers_item_data)



                headers.append(headers_item)


        https = cls(
            kind=kind,
            url=url,
            a2a_push=a2a_push,
            auth=auth,
            headers=headers,
        )

        return https

