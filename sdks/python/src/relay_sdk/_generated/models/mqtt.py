from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.mqtt_content_mode import MqttContentMode
from ..models.mqtt_kind import MqttKind
from ..models.mqtt_protocol_version import MqttProtocolVersion
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Mqtt")



@_attrs_define
class Mqtt:
    """ An MQTT topic (MQTT 5 or 3.1.1): each message is one QoS 1 PUBLISH; the
    broker's PUBACK of that very packet identifier is the acknowledgement
    (MQTT 5: a reason code of 0x80 or more is a failure; 0x10 "no matching
    subscribers" is a success). MQTT 5 carries the Standard Webhooks values
    as user properties; MQTT 3.1.1 has no properties and carries no
    signature. See docs/destinations.md.

        Attributes:
            host (str): A host name or IP address, checked by the outbound guard at
                registration and at every connect.
            kind (MqttKind): The destination's kind: `mqtt`.
            topic (str): The topic published to, a template: `{event_type}`, `{environment}`
                (`live` or `test`) and `{ordering_key}` (the event's ordering key,
                else its subject) are filled in per message, `{{` and `}}` are
                literal braces. No wildcards (`+`, `#`), no NUL, not starting with
                `$`.
            client_id (None | str | Unset): The connection's client identifier (printable ASCII without spaces);
                `null` (default): `relay` and 18 random hex digits, new per
                connection. Two connections with one identifier take each other over:
                leave it `null` when several Relay processes deliver.
            content_mode (MqttContentMode | Unset): `structured` (default): the CloudEvents JSON as the payload (MQTT 5:
                content type `application/cloudevents+json`); `binary` (MQTT 5 only):
                `data` as the payload, the content type property = `datacontenttype`,
                and each other context attribute as a user property of its own name
                (the CloudEvents MQTT binding). Default: MqttContentMode.STRUCTURED.
            password (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
                the password itself; needs `username`. See docs/destinations.md (Credentials: secret references).
            port (int | Unset): Default 1883; with TLS usually 8883. The operator's `allow_ports`
                must include it. Default: 1883.
            protocol_version (MqttProtocolVersion | Unset): Default `5`. MQTT 3.1.1 allows only `structured` content mode
                and
                carries no signature values (no properties). Default: MqttProtocolVersion.VALUE_0.
            tls (bool | Unset): Connect with TLS (default false). Default: False.
            username (None | str | Unset): The user name sent in CONNECT.
     """

    host: str
    kind: MqttKind
    topic: str
    client_id: None | str | Unset = UNSET
    content_mode: MqttContentMode | Unset = MqttContentMode.STRUCTURED
    password: None | str | Unset = UNSET
    port: int | Unset = 1883
    protocol_version: MqttProtocolVersion | Unset = MqttProtocolVersion.VALUE_0
    tls: bool | Unset = False
    username: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        host = self.host

        kind = self.kind.value

        topic = self.topic

        client_id: None | str | Unset
        if isinstance(self.client_id, Unset):
            client_id = UNSET
        else:
            client_id = self.client_id

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        port = self.port

        protocol_version: str | Unset = UNSET
        if not isinstance(self.protocol_version, Unset):
            protocol_version = self.protocol_version.value


        tls = self.tls

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "host": host,
            "kind": kind,
            "topic": topic,
        })
        if client_id is not UNSET:
            field_dict["client_id"] = client_id
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if password is not UNSET:
            field_dict["password"] = password
        if port is not UNSET:
            field_dict["port"] = port
        if protocol_version is not UNSET:
            field_dict["protocol_version"] = protocol_version
        if tls is not UNSET:
            field_dict["tls"] = tls
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        host = d.pop("host")

        kind = MqttKind(d.pop("kind"))




        topic = d.pop("topic")

        def _parse_client_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_id = _parse_client_id(d.pop("client_id", UNSET))


        _content_mode = d.pop("content_mode", UNSET)
        content_mode: MqttContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = MqttContentMode(_content_mode)




        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        port = d.pop("port", UNSET)

        _protocol_version = d.pop("protocol_version", UNSET)
        protocol_version: MqttProtocolVersion | Unset
        if isinstance(_protocol_version,  Unset):
            protocol_version = UNSET
        else:
            protocol_version = MqttProtocolVersion(_protocol_version)




        tls = d.pop("tls", UNSET)

        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))


        mqtt = cls(
            host=host,
            kind=kind,
            topic=topic,
            client_id=client_id,
            content_mode=content_mode,
            password=password,
            port=port,
            protocol_version=protocol_version,
            tls=tls,
            username=username,
        )

        return mqtt

