from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.delivery_order import DeliveryOrder
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.azure_service_bus import AzureServiceBus
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
  from ..models.update_endpoint_event_type_versions_type_0 import UpdateEndpointEventTypeVersionsType0





T = TypeVar("T", bound="UpdateEndpoint")



@_attrs_define
class UpdateEndpoint:
    """ Changes to an endpoint; absent fields stay as they are. A `destination`
    replaces the whole destination: credentials it does not restate are
    dropped (with a warning when the host changes).

        Attributes:
            allow_personal_data (bool | None | Unset): A change opens a new endpoint version.
            auto_disable (bool | None | Unset): Whether 5 days of continuous failure disable the endpoint.
            description (None | str | Unset): A note for people (at most 500 characters), or `null` to clear it.
            destination (AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | None | Pubsub | Rabbitmq |
                RedisStream | S3 | Sns | Sqs | Unset):
            event_type_versions (None | Unset | UpdateEndpointEventTypeVersionsType0): New pins open a new endpoint version
                (which also takes, for every
                type not pinned, the version current then).
            event_types (list[str] | None | Unset): At most 256.
            max_concurrency (int | None | Unset): Attempts in flight at once, 1 to the operator's limit.
            ordering (DeliveryOrder | None | Unset):
            rate_limit_per_second (int | None | Unset): Attempts started per second at most (1 to 100,000), or `null` for no
                limit.
            retry_schedule_seconds (list[int] | None | Unset): A list, or `null` to go back to the default schedule.
            snapshot_fields (list[str] | None | Unset): A new allow list opens a new endpoint version.
            verify_ownership (bool | None | Unset): Whether the receiver must prove ownership before deliveries (HTTPS
                endpoints only; the installation may require it regardless). A
                destination moved to an origin not proven holds its messages.
     """

    allow_personal_data: bool | None | Unset = UNSET
    auto_disable: bool | None | Unset = UNSET
    description: None | str | Unset = UNSET
    destination: AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | None | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs | Unset = UNSET
    event_type_versions: None | Unset | UpdateEndpointEventTypeVersionsType0 = UNSET
    event_types: list[str] | None | Unset = UNSET
    max_concurrency: int | None | Unset = UNSET
    ordering: DeliveryOrder | None | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    retry_schedule_seconds: list[int] | None | Unset = UNSET
    snapshot_fields: list[str] | None | Unset = UNSET
    verify_ownership: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
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
        from ..models.update_endpoint_event_type_versions_type_0 import UpdateEndpointEventTypeVersionsType0 # noqa: PLC0415
        allow_personal_data: bool | None | Unset
        if isinstance(self.allow_personal_data, Unset):
            allow_personal_data = UNSET
        else:
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

        destination: dict[str, Any] | None | Unset
        if isinstance(self.destination, Unset):
            destination = UNSET
        elif isinstance(self.destination, Https):
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
        elif isinstance(self.destination, AzureServiceBus):
            destination = self.destination.to_dict()
        else:
            destination = self.destination

        event_type_versions: dict[str, Any] | None | Unset
        if isinstance(self.event_type_versions, Unset):
            event_type_versions = UNSET
        elif isinstance(self.event_type_versions, UpdateEndpointEventTypeVersionsType0):
            event_type_versions = self.event_type_versions.to_dict()
        else:
            event_type_versions = self.event_type_versions

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types


        else:
            event_types = self.event_types

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

        snapshot_fields: list[str] | None | Unset
        if isinstance(self.snapshot_fields, Unset):
            snapshot_fields = UNSET
        elif isinstance(self.snapshot_fields, list):
            snapshot_fields = self.snapshot_fields


        else:
            snapshot_fields = self.snapshot_fields

        verify_ownership: bool | None | Unset
        if isinstance(self.verify_ownership, Unset):
            verify_ownership = UNSET
        else:
            verify_ownership = self.verify_ownership


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if allow_personal_data is not UNSET:
            field_dict["allow_personal_data"] = allow_personal_data
        if auto_disable is not UNSET:
            field_dict["auto_disable"] = auto_disable
        if description is not UNSET:
            field_dict["description"] = description
        if destination is not UNSET:
            field_dict["destination"] = destination
        if event_type_versions is not UNSET:
            field_dict["event_type_versions"] = event_type_versions
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if max_concurrency is not UNSET:
            field_dict["max_concurrency"] = max_concurrency
        if ordering is not UNSET:
            field_dict["ordering"] = ordering
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if retry_schedule_seconds is not UNSET:
            field_dict["retry_schedule_seconds"] = retry_schedule_seconds
        if snapshot_fields is not UNSET:
            field_dict["snapshot_fields"] = snapshot_fields
        if verify_ownership is not UNSET:
            field_dict["verify_ownership"] = verify_ownership

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
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
        from ..models.update_endpoint_event_type_versions_type_0 import UpdateEndpointEventTypeVersionsType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_allow_personal_data(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        allow_personal_data = _parse_allow_personal_data(d.pop("allow_personal_data", UNSET))


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


        def _parse_destination(data: object) -> AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | None | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
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
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_destination_type_11 = AzureServiceBus.from_dict(data)



                return componentsschemas_destination_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | None | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs | Unset, data)

        destination = _parse_destination(d.pop("destination", UNSET))


        def _parse_event_type_versions(data: object) -> None | Unset | UpdateEndpointEventTypeVersionsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_type_versions_type_0 = UpdateEndpointEventTypeVersionsType0.from_dict(data)



                return event_type_versions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateEndpointEventTypeVersionsType0, data)

        event_type_versions = _parse_event_type_versions(d.pop("event_type_versions", UNSET))


        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))


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


        def _parse_snapshot_fields(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                snapshot_fields_type_0 = cast(list[str], data)

                return snapshot_fields_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        snapshot_fields = _parse_snapshot_fields(d.pop("snapshot_fields", UNSET))


        def _parse_verify_ownership(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verify_ownership = _parse_verify_ownership(d.pop("verify_ownership", UNSET))


        update_endpoint = cls(
            allow_personal_data=allow_personal_data,
            auto_disable=auto_disable,
            description=description,
            destination=destination,
            event_type_versions=event_type_versions,
            event_types=event_types,
            max_concurrency=max_concurrency,
            ordering=ordering,
            rate_limit_per_second=rate_limit_per_second,
            retry_schedule_seconds=retry_schedule_seconds,
            snapshot_fields=snapshot_fields,
            verify_ownership=verify_ownership,
        )

        return update_endpoint

