from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.delivery_order import DeliveryOrder
from ..models.signature_scheme import SignatureScheme
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.azure_service_bus import AzureServiceBus
  from ..models.create_endpoint_event_type_versions import CreateEndpointEventTypeVersions
  from ..models.eventbridge import Eventbridge
  from ..models.https import Https
  from ..models.kafka import Kafka
  from ..models.mqtt import Mqtt
  from ..models.nats_jetstream import NatsJetstream
  from ..models.pubsub import Pubsub
  from ..models.rabbitmq import Rabbitmq
  from ..models.redis_stream import RedisStream
  from ..models.s3 import S3
  from ..models.sns import Sns
  from ..models.sqs import Sqs





T = TypeVar("T", bound="CreateEndpoint")



@_attrs_define
class CreateEndpoint:
    """ A new endpoint: where one consumer's events go, which ones, and how.

        Attributes:
            consumer_id (str): The consumer the endpoint belongs to (for life), in the key's environment.
            destination (AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | Pubsub | Rabbitmq |
                RedisStream | S3 | Sns | Sqs): Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object
                storage) are new variants; the endpoint object keeps its shape.
            event_types (list[str]): Event types to receive (at most 256). Empty receives nothing; `["*"]` receives all
                (with a warning).
            allow_personal_data (bool | Unset): Send fields the event types mark as personal data when the snapshot
                names them (with a warning). Default false: such a list is refused,
                and personal data is never sent.
            auto_disable (bool | None | Unset): Disable automatically after 5 days of continuous failure (default true).
            description (None | str | Unset): A note for people, at most 500 characters.
            event_type_versions (CreateEndpointEventTypeVersions | Unset): Pins: the event type version that shapes this
                endpoint's payloads,
                by event type. A type not pinned takes the version current when the
                endpoint version starts.
            max_concurrency (int | None | Unset): Attempts in flight at once for this endpoint (default 10; at most the
                operator's `limits.max_endpoint_concurrency`, 100 by default).
            ordering (DeliveryOrder | None | Unset):
            rate_limit_per_second (int | None | Unset): Attempts started per second at most, 1 to 100,000; absent: no limit.
            retry_schedule_seconds (list[int] | None | Unset): Waits in seconds before attempts 2..n; omitted or `null` uses
                the default schedule.
            signature_scheme (None | SignatureScheme | Unset):
            snapshot_fields (list[str] | Unset): The snapshot allow list: fields (JSON Pointers such as
                `/customer/id`; through an array they apply to each element) sent
                beyond each event type version's thin fields, or `["*"]` for every
                field (with a warning). Empty (the default): thin events.
            verify_ownership (bool | None | Unset): Hold deliveries until the receiver proves that it wants the traffic
                (an ownership challenge answered; HTTPS endpoints only). Default
                false, unless the installation requires it of every endpoint.
     """

    consumer_id: str
    destination: AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs
    event_types: list[str]
    allow_personal_data: bool | Unset = UNSET
    auto_disable: bool | None | Unset = UNSET
    description: None | str | Unset = UNSET
    event_type_versions: CreateEndpointEventTypeVersions | Unset = UNSET
    max_concurrency: int | None | Unset = UNSET
    ordering: DeliveryOrder | None | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    retry_schedule_seconds: list[int] | None | Unset = UNSET
    signature_scheme: None | SignatureScheme | Unset = UNSET
    snapshot_fields: list[str] | Unset = UNSET
    verify_ownership: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
        from ..models.create_endpoint_event_type_versions import CreateEndpointEventTypeVersions # noqa: PLC0415
        from ..models.eventbridge import Eventbridge # noqa: PLC0415
        from ..models.https import Https # noqa: PLC0415
        from ..models.kafka import Kafka # noqa: PLC0415
        from ..models.mqtt import Mqtt # noqa: PLC0415
        from ..models.nats_jetstream import NatsJetstream # noqa: PLC0415
        from ..models.pubsub import Pubsub # noqa: PLC0415
        from ..models.rabbitmq import Rabbitmq # noqa: PLC0415
        from ..models.redis_stream import RedisStream # noqa: PLC0415
        from ..models.s3 import S3 # noqa: PLC0415
        from ..models.sns import Sns # noqa: PLC0415
        from ..models.sqs import Sqs # noqa: PLC0415
        consumer_id = self.consumer_id

        destination: dict[str, Any]
        if isinstance(self.destination, Https):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, RedisStream):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, NatsJetstream):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Rabbitmq):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Mqtt):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Kafka):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, S3):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Sqs):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Sns):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Eventbridge):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, Pubsub):
            destination = self.destination.to_dict()
        else:
            destination = self.destination.to_dict()


        event_types = self.event_types



        allow_personal_data = self.allow_personal_data

        auto_disable: bool | None | Unset
        if isinstance(self.auto_disable, Unset):
            auto_disable = UNSET
        else:
            auto_disable = self.auto_disable

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        event_type_versions: dict[str, Any] | Unset = UNSET
        if not isinstance(self.event_type_versions, Unset):
            event_type_versions = self.event_type_versions.to_dict()

        max_concurrency: int | None | Unset
        if isinstance(self.max_concurrency, Unset):
            max_concurrency = UNSET
        else:
            max_concurrency = self.max_concurrency

        ordering: None | str | Unset
        if isinstance(self.ordering, Unset):
            ordering = UNSET
        elif isinstance(self.ordering, DeliveryOrder):
            ordering = self.ordering.value
        else:
            ordering = self.ordering

        rate_limit_per_second: int | None | Unset
        if isinstance(self.rate_limit_per_second, Unset):
            rate_limit_per_second = UNSET
        else:
            rate_limit_per_second = self.rate_limit_per_second

        retry_schedule_seconds: list[int] | None | Unset
        if isinstance(self.retry_schedule_seconds, Unset):
            retry_schedule_seconds = UNSET
        elif isinstance(self.retry_schedule_seconds, list):
            retry_schedule_seconds = self.retry_schedule_seconds


        else:
            retry_schedule_seconds = self.retry_schedule_seconds

        signature_scheme: None | str | Unset
        if isinstance(self.signature_scheme, Unset):
            signature_scheme = UNSET
        elif isinstance(self.signature_scheme, SignatureScheme):
            signature_scheme = self.signature_scheme.value
        else:
            signature_scheme = self.signature_scheme

        snapshot_fields: list[str] | Unset = UNSET
        if not isinstance(self.snapshot_fields, Unset):
            snapshot_fields = self.snapshot_fields



        verify_ownership: bool | None | Unset
        if isinstance(self.verify_ownership, Unset):
            verify_ownership = UNSET
        else:
            verify_ownership = self.verify_ownership


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "consumer_id": consumer_id,
            "destination": destination,
            "event_types": event_types,
        })
        if allow_personal_data is not UNSET:
            field_dict["allow_personal_data"] = allow_personal_data
        if auto_disable is not UNSET:
            field_dict["auto_disable"] = auto_disable
        if description is not UNSET:
            field_dict["description"] = description
        if event_type_versions is not UNSET:
            field_dict["event_type_versions"] = event_type_versions
        if max_concurrency is not UNSET:
            field_dict["max_concurrency"] = max_concurrency
        if ordering is not UNSET:
            field_dict["ordering"] = ordering
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if retry_schedule_seconds is not UNSET:
            field_dict["retry_schedule_seconds"] = retry_schedule_seconds
        if signature_scheme is not UNSET:
            field_dict["signature_scheme"] = signature_scheme
        if snapshot_fields is not UNSET:
            field_dict["snapshot_fields"] = snapshot_fields
        if verify_ownership is not UNSET:
            field_dict["verify_ownership"] = verify_ownership

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
        from ..models.create_endpoint_event_type_versions import CreateEndpointEventTypeVersions # noqa: PLC0415
        from ..models.eventbridge import Eventbridge # noqa: PLC0415
        from ..models.https import Https # noqa: PLC0415
        from ..models.kafka import Kafka # noqa: PLC0415
        from ..models.mqtt import Mqtt # noqa: PLC0415
        from ..models.nats_jetstream import NatsJetstream # noqa: PLC0415
        from ..models.pubsub import Pubsub # noqa: PLC0415
        from ..models.rabbitmq import Rabbitmq # noqa: PLC0415
        from ..models.redis_stream import RedisStream # noqa: PLC0415
        from ..models.s3 import S3 # noqa: PLC0415
        from ..models.sns import Sns # noqa: PLC0415
        from ..models.sqs import Sqs # noqa: PLC0415
        d = dict(src_dict)
        consumer_id = d.pop("consumer_id")

        def _parse_destination(data: object) -> AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_0 = Https.from_dict(data)



                return componentsschemas_destination_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_1 = RedisStream.from_dict(data)



                return componentsschemas_destination_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_2 = NatsJetstream.from_dict(data)



                return componentsschemas_destination_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_3 = Rabbitmq.from_dict(data)



                return componentsschemas_destination_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_4 = Mqtt.from_dict(data)



                return componentsschemas_destination_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_5 = Kafka.from_dict(data)



                return componentsschemas_destination_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_6 = S3.from_dict(data)



                return componentsschemas_destination_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_7 = Sqs.from_dict(data)



                return componentsschemas_destination_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_8 = Sns.from_dict(data)



                return componentsschemas_destination_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_9 = Eventbridge.from_dict(data)



                return componentsschemas_destination_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_10 = Pubsub.from_dict(data)



                return componentsschemas_destination_type_10
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_destination_type_11 = AzureServiceBus.from_dict(data)



            return componentsschemas_destination_type_11

        destination = _parse_destination(d.pop("destination"))


        event_types = cast(list[str], d.pop("event_types"))


        allow_personal_data = d.pop("allow_personal_data", UNSET)

        def _parse_auto_disable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        auto_disable = _parse_auto_disable(d.pop("auto_disable", UNSET))


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        _event_type_versions = d.pop("event_type_versions", UNSET)
        event_type_versions: CreateEndpointEventTypeVersions | Unset
        if isinstance(_event_type_versions,  Unset):
            event_type_versions = UNSET
        else:
            event_type_versions = CreateEndpointEventTypeVersions.from_dict(_event_type_versions)




        def _parse_max_concurrency(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_concurrency = _parse_max_concurrency(d.pop("max_concurrency", UNSET))


        def _parse_ordering(data: object) -> DeliveryOrder | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ordering_type_0 = DeliveryOrder(data)



                return ordering_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeliveryOrder | None | Unset, data)

        ordering = _parse_ordering(d.pop("ordering", UNSET))


        def _parse_rate_limit_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_second = _parse_rate_limit_per_second(d.pop("rate_limit_per_second", UNSET))


        def _parse_retry_schedule_seconds(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                retry_schedule_seconds_type_0 = cast(list[int], data)

                return retry_schedule_seconds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        retry_schedule_seconds = _parse_retry_schedule_seconds(d.pop("retry_schedule_seconds", UNSET))


        def _parse_signature_scheme(data: object) -> None | SignatureScheme | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                signature_scheme_type_0 = SignatureScheme(data)



                return signature_scheme_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SignatureScheme | Unset, data)

        signature_scheme = _parse_signature_scheme(d.pop("signature_scheme", UNSET))


        snapshot_fields = cast(list[str], d.pop("snapshot_fields", UNSET))


        def _parse_verify_ownership(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verify_ownership = _parse_verify_ownership(d.pop("verify_ownership", UNSET))


        create_endpoint = cls(
            consumer_id=consumer_id,
            destination=destination,
            event_types=event_types,
            allow_personal_data=allow_personal_data,
            auto_disable=auto_disable,
            description=description,
            event_type_versions=event_type_versions,
            max_concurrency=max_concurrency,
            ordering=ordering,
            rate_limit_per_second=rate_limit_per_second,
            retry_schedule_seconds=retry_schedule_seconds,
            signature_scheme=signature_scheme,
            snapshot_fields=snapshot_fields,
            verify_ownership=verify_ownership,
        )

        return create_endpoint

