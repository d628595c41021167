from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.azure_service_bus_content_mode import AzureServiceBusContentMode
from ..models.azure_service_bus_kind import AzureServiceBusKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.azure_service_bus_auth import AzureServiceBusAuth





T = TypeVar("T", bound="AzureServiceBus")



@_attrs_define
class AzureServiceBus:
    """ An Azure Service Bus queue or topic: each message is one `POST
    /{entity}/messages` of Service Bus's REST API, the body the message's
    body, `BrokerProperties` its `MessageId` (the event id) and, on a
    session-enabled entity (`sessions`), its `SessionId` (the ordering
    key); Service Bus's `201 Created` is the acknowledgement. Authenticated
    with a shared access key (a SAS token signed per request window) or
    Microsoft Entra client credentials. A connection string is refused:
    the key is a secret reference. See docs/destinations.md.

        Attributes:
            auth (AzureServiceBusAuth): How Relay authenticates: `{"sas": {"key_name", "key"}}` or
                `{"entra": {"tenant_id", "client_id", "client_secret"}}`.
            entity (str): The queue's or topic's name (a topic is sent to the same way): 1 to
                260 of letters, digits, `.`, `-`, `_` and `/`, starting and ending
                with a letter or digit.
            kind (AzureServiceBusKind): The destination's kind: `azure_service_bus`.
            content_mode (AzureServiceBusContentMode | Unset): `structured` (default): the body is the CloudEvents JSON,
                `Content-Type` `application/cloudevents+json`; `binary`: the body is
                the event's `data` and every other context attribute is a user
                property `cloudEvents_<name>` (the CloudEvents AMQP binding). Default: AzureServiceBusContentMode.STRUCTURED.
            endpoint (None | str | Unset): Instead of `namespace`: the service's base URL,
                `https://host[:port]` (a private endpoint's name, a proxy; Relay's
                tests use it for their judge). Checked by the outbound guard like
                any host, at registration and at every connection.
            max_message_bytes (int | Unset): The largest message the entity takes, counted as Service Bus
                counts it (the body and the properties): 262144 (256 KiB, the
                Standard tier's, default) up to 104857600 (100 MiB, Premium's
                largest). Default: 262144.
            namespace (None | str | Unset): The namespace's host, `<namespace>.servicebus.windows.net` (or
                another Azure cloud's: `.servicebus.chinacloudapi.cn`,
                `.servicebus.usgovcloudapi.net`). Give it or `endpoint`.
            sessions (bool | Unset): `true` for a session-enabled entity: the event's ordering key (the
                one it was published with, else its subject) is the message's
                `SessionId`, so a session receiver gets one key's messages in
                order. Service Bus refuses a `SessionId` on an entity without
                sessions, and a message without one on an entity with them: set it
                as the entity is. Default `false`. Default: False.
     """

    auth: AzureServiceBusAuth
    entity: str
    kind: AzureServiceBusKind
    content_mode: AzureServiceBusContentMode | Unset = AzureServiceBusContentMode.STRUCTURED
    endpoint: None | str | Unset = UNSET
    max_message_bytes: int | Unset = 262144
    namespace: None | str | Unset = UNSET
    sessions: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        from ..models.azure_service_bus_auth import AzureServiceBusAuth # noqa: PLC0415
        auth = self.auth.to_dict()

        entity = self.entity

        kind = self.kind.value

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        endpoint: None | str | Unset
        if isinstance(self.endpoint, Unset):
            endpoint = UNSET
        else:
            endpoint = self.endpoint

        max_message_bytes = self.max_message_bytes

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        sessions = self.sessions


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "auth": auth,
            "entity": entity,
            "kind": kind,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint
        if max_message_bytes is not UNSET:
            field_dict["max_message_bytes"] = max_message_bytes
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if sessions is not UNSET:
            field_dict["sessions"] = sessions

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.azure_service_bus_auth import AzureServiceBusAuth # noqa: PLC0415
        d = dict(src_dict)
        auth = AzureServiceBusAuth.from_dict(d.pop("auth"))




        entity = d.pop("entity")

        kind = AzureServiceBusKind(d.pop("kind"))




        _content_mode = d.pop("content_mode", UNSET)
        content_mode: AzureServiceBusContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = AzureServiceBusContentMode(_content_mode)




        def _parse_endpoint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint = _parse_endpoint(d.pop("endpoint", UNSET))


        max_message_bytes = d.pop("max_message_bytes", UNSET)

        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))


        sessions = d.pop("sessions", UNSET)

        azure_service_bus = cls(
            auth=auth,
            entity=entity,
            kind=kind,
            content_mode=content_mode,
            endpoint=endpoint,
            max_message_bytes=max_message_bytes,
            namespace=namespace,
            sessions=sessions,
        )

        return azure_service_bus

