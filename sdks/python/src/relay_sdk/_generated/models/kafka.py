from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.kafka_content_mode import KafkaContentMode
from ..models.kafka_kind import KafkaKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.kafka_bootstrap_item import KafkaBootstrapItem
  from ..models.kafka_sasl_type_0 import KafkaSaslType0





T = TypeVar("T", bound="Kafka")



@_attrs_define
class Kafka:
    """ A Kafka topic: each message is one record keyed by the message's
    ordering key (so one key's events go to one partition), produced with
    `acks=all` by an idempotent producer; the delivery report of that record
    is the acknowledgement. The Standard Webhooks values are record headers.
    Every broker the cluster advertises is checked by the outbound guard.
    See docs/destinations.md.

        Attributes:
            bootstrap (list[KafkaBootstrapItem]): The bootstrap brokers, checked by the outbound guard at registration
                and at every connect, as is every broker the cluster's metadata
                advertises.
            kind (KafkaKind): The destination's kind: `kafka`.
            topic (str): The topic every record goes to (not `.` or `..`).
            client_certificate (str | Unset): With `tls`: the client certificate (PEM, its chain after it)
                presented in the handshake, as a secret reference. Needs
                `client_key`.
            client_key (str | Unset): The client certificate's private key (PEM), as a secret reference,
                never the key itself. Needs `client_certificate`.
            content_mode (KafkaContentMode | Unset): `structured` (default): the CloudEvents JSON as the value
                (`content-type: application/cloudevents+json; charset=UTF-8`);
                `binary`: `data` as the value, `content-type` = `datacontenttype`, and
                each other context attribute as a header `ce_<name>` (the CloudEvents
                Kafka binding). Default: KafkaContentMode.STRUCTURED.
            sasl (KafkaSaslType0 | None | Unset): SASL authentication (default none).
            tls (bool | Unset): Connect with TLS (default false). Default: False.
     """

    bootstrap: list[KafkaBootstrapItem]
    kind: KafkaKind
    topic: str
    client_certificate: str | Unset = UNSET
    client_key: str | Unset = UNSET
    content_mode: KafkaContentMode | Unset = KafkaContentMode.STRUCTURED
    sasl: KafkaSaslType0 | None | Unset = UNSET
    tls: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        from ..models.kafka_bootstrap_item import KafkaBootstrapItem # noqa: PLC0415
        from ..models.kafka_sasl_type_0 import KafkaSaslType0 # noqa: PLC0415
        bootstrap = []
        for bootstrap_item_data in self.bootstrap:
            bootstrap_item = bootstrap_item_data.to_dict()
            bootstrap.append(bootstrap_item)



        kind = self.kind.value

        topic = self.topic

        client_certificate = self.client_certificate

        client_key = self.client_key

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        sasl: dict[str, Any] | None | Unset
        if isinstance(self.sasl, Unset):
            sasl = UNSET
        elif isinstance(self.sasl, KafkaSaslType0):
            sasl = self.sasl.to_dict()
        else:
            sasl = self.sasl

        tls = self.tls


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "bootstrap": bootstrap,
            "kind": kind,
            "topic": topic,
        })
        if client_certificate is not UNSET:
            field_dict["client_certificate"] = client_certificate
        if client_key is not UNSET:
            field_dict["client_key"] = client_key
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if sasl is not UNSET:
            field_dict["sasl"] = sasl
        if tls is not UNSET:
            field_dict["tls"] = tls

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kafka_bootstrap_item import KafkaBootstrapItem # noqa: PLC0415
        from ..models.kafka_sasl_type_0 import KafkaSaslType0 # noqa: PLC0415
        d = dict(src_dict)
        bootstrap = []
        _bootstrap = d.pop("bootstrap")
        for bootstrap_item_data in (_bootstrap):
            bootstrap_item = KafkaBootstrapItem.from_dict(bootstrap_item_data)



            bootstrap.append(bootstrap_item)


        kind = KafkaKind(d.pop("kind"))




        topic = d.pop("topic")

        client_certificate = d.pop("client_certificate", UNSET)

        client_key = d.pop("client_key", UNSET)

        _content_mode = d.pop("content_mode", UNSET)
        content_mode: KafkaContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = KafkaContentMode(_content_mode)




        def _parse_sasl(data: object) -> KafkaSaslType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sasl_type_0 = KafkaSaslType0.from_dict(data)



                return sasl_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KafkaSaslType0 | None | Unset, data)

        sasl = _parse_sasl(d.pop("sasl", UNSET))


        tls = d.pop("tls", UNSET)

        kafka = cls(
            bootstrap=bootstrap,
            kind=kind,
            topic=topic,
            client_certificate=client_certificate,
            client_key=client_key,
            content_mode=content_mode,
            sasl=sasl,
            tls=tls,
        )

        return kafka

