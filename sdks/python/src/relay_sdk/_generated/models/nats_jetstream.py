from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.nats_jetstream_content_mode import NatsJetstreamContentMode
from ..models.nats_jetstream_kind import NatsJetstreamKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NatsJetstream")



@_attrs_define
class NatsJetstream:
    """ A NATS JetStream subject: each message is one JetStream publish (the
    CloudEvent structured or binary by `content_mode`, the Standard Webhooks
    values as NATS headers, `Nats-Msg-Id` the event id); the PubAck naming
    the stream and sequence is the acknowledgement. See docs/destinations.md.

        Attributes:
            host (str): A host name or IP address, checked by the outbound guard at
                registration and at every connect.
            kind (NatsJetstreamKind): The destination's kind: `nats_jetstream`.
            subject (str): The subject published to: dot-separated tokens, each a literal
                (printable ASCII without `*`, `>`, `{`, `}`) or a whole-token
                placeholder `{event_type}`, `{environment}`, `{ordering_key}` (the
                event's ordering key, else its subject, as one token: bytes a token
                may not hold written `%XX`; `_` when it has neither); the first token
                does not start with `$`.
            content_mode (NatsJetstreamContentMode | Unset): `structured` (default): the CloudEvents JSON as the payload
                (`content-type: application/cloudevents+json`); `binary`: `data` as
                the payload and each context attribute as a header `ce-<name>` (the
                CloudEvents NATS binding; values percent-encoded), `content-type` =
                `datacontenttype`. Default: NatsJetstreamContentMode.STRUCTURED.
            password (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                user's password, never the password itself. See docs/destinations.md (Credentials: secret references).
            port (int | Unset): Default 4222; the operator's `allow_ports` must include it. Default: 4222.
            stream (None | str | Unset): The stream the subject must be bound to (sent as
                `Nats-Expected-Stream`); a publish that lands elsewhere is refused.
            tls (bool | Unset): Upgrade to TLS after the server's INFO (default false). Default: False.
            token (None | str | Unset): A secret reference to an authentication token (instead of `username`
                and `password`), never the token itself.
            username (None | str | Unset): The NATS user to connect as; needs `password`.
     """

    host: str
    kind: NatsJetstreamKind
    subject: str
    content_mode: NatsJetstreamContentMode | Unset = NatsJetstreamContentMode.STRUCTURED
    password: None | str | Unset = UNSET
    port: int | Unset = 4222
    stream: None | str | Unset = UNSET
    tls: bool | Unset = False
    token: None | str | Unset = UNSET
    username: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        host = self.host

        kind = self.kind.value

        subject = self.subject

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        port = self.port

        stream: None | str | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        tls = self.tls

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "host": host,
            "kind": kind,
            "subject": subject,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if password is not UNSET:
            field_dict["password"] = password
        if port is not UNSET:
            field_dict["port"] = port
        if stream is not UNSET:
            field_dict["stream"] = stream
        if tls is not UNSET:
            field_dict["tls"] = tls
        if token is not UNSET:
            field_dict["token"] = token
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        host = d.pop("host")

        kind = NatsJetstreamKind(d.pop("kind"))




        subject = d.pop("subject")

        _content_mode = d.pop("content_mode", UNSET)
        content_mode: NatsJetstreamContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = NatsJetstreamContentMode(_content_mode)




        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        port = d.pop("port", UNSET)

        def _parse_stream(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))


        tls = d.pop("tls", UNSET)

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))


        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))


        nats_jetstream = cls(
            host=host,
            kind=kind,
            subject=subject,
            content_mode=content_mode,
            password=password,
            port=port,
            stream=stream,
            tls=tls,
            token=token,
            username=username,
        )

        return nats_jetstream

