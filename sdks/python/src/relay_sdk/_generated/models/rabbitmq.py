from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.rabbitmq_content_mode import RabbitmqContentMode
from ..models.rabbitmq_kind import RabbitmqKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Rabbitmq")



@_attrs_define
class Rabbitmq:
    """ A RabbitMQ (AMQP 0-9-1) exchange: each message is one persistent publish
    with `mandatory` set, on a channel in confirm mode; the broker's
    `basic.ack` of that publish is the acknowledgement, a `basic.nack` a
    failure, a `basic.return` (unroutable) not a success. The Standard
    Webhooks values are message headers. See docs/destinations.md.

        Attributes:
            exchange (str): The exchange published to; `""` is the default exchange (the routing
                key names a queue).
            host (str): A host name or IP address, checked by the outbound guard at
                registration and at every connect.
            kind (RabbitmqKind): The destination's kind: `rabbitmq`.
            content_mode (RabbitmqContentMode | Unset): `structured` (default): the CloudEvents JSON as the body
                (`application/cloudevents+json`); `binary`: `data` as the body,
                `content-type` = `datacontenttype`, and each other context attribute
                as a header `cloudEvents_<name>` (the CloudEvents AMQP binding). Default: RabbitmqContentMode.STRUCTURED.
            password (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
                the password itself; needs `username`. See docs/destinations.md (Credentials: secret references).
            port (int | Unset): Default 5672; the operator's `allow_ports` must include it. Default: 5672.
            routing_key (str | Unset): The routing key, a template: `{event_type}` (the event type),
                `{environment}` (`live` or `test`) and `{ordering_key}` (the event's
                ordering key, else its subject) are filled in per message, `{{` and
                `}}` are literal braces; at most 255 bytes once filled in. Default
                `{event_type}`. Default: '{event_type}'.
            tls (bool | Unset): Connect with TLS (default false; usually port 5671). Default: False.
            username (None | str | Unset): The user to log in as (PLAIN); needs `password`. Both `null`: the
                broker's default `guest`/`guest`.
            virtual_host (str | Unset): Default `/`. Default: '/'.
     """

    exchange: str
    host: str
    kind: RabbitmqKind
    content_mode: RabbitmqContentMode | Unset = RabbitmqContentMode.STRUCTURED
    password: None | str | Unset = UNSET
    port: int | Unset = 5672
    routing_key: str | Unset = '{event_type}'
    tls: bool | Unset = False
    username: None | str | Unset = UNSET
    virtual_host: str | Unset = '/'





    def to_dict(self) -> dict[str, Any]:
        exchange = self.exchange

        host = self.host

        kind = self.kind.value

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        port = self.port

        routing_key = self.routing_key

        tls = self.tls

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username

        virtual_host = self.virtual_host


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "exchange": exchange,
            "host": host,
            "kind": kind,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if password is not UNSET:
            field_dict["password"] = password
        if port is not UNSET:
            field_dict["port"] = port
        if routing_key is not UNSET:
            field_dict["routing_key"] = routing_key
        if tls is not UNSET:
            field_dict["tls"] = tls
        if username is not UNSET:
            field_dict["username"] = username
        if virtual_host is not UNSET:
            field_dict["virtual_host"] = virtual_host

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        exchange = d.pop("exchange")

        host = d.pop("host")

        kind = RabbitmqKind(d.pop("kind"))




        _content_mode = d.pop("content_mode", UNSET)
        content_mode: RabbitmqContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = RabbitmqContentMode(_content_mode)




        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        port = d.pop("port", UNSET)

        routing_key = d.pop("routing_key", UNSET)

        tls = d.pop("tls", UNSET)

        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))


        virtual_host = d.pop("virtual_host", UNSET)

        rabbitmq = cls(
            exchange=exchange,
            host=host,
            kind=kind,
            content_mode=content_mode,
            password=password,
            port=port,
            routing_key=routing_key,
            tls=tls,
            username=username,
            virtual_host=virtual_host,
        )

        return rabbitmq

