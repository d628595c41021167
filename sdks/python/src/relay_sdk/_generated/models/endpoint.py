from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.delivery_order import DeliveryOrder
from ..models.endpoint_state import EndpointState
from ..models.environment import Environment
from ..models.signature_scheme import SignatureScheme
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.azure_service_bus import AzureServiceBus
  from ..models.endpoint_event_type_versions import EndpointEventTypeVersions
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





T = TypeVar("T", bound="Endpoint")



@_attrs_define
class Endpoint:
    """ A consumer's delivery address and how to deliver to it.

        Attributes:
            allow_personal_data (bool): Whether the snapshot may carry fields the event type marks as
                personal data; without it they are never sent.
            auto_disable (bool): Whether 5 days of continuous failure disable it.
            consumer_id (str): The consumer whose endpoint it is; fixed at creation.
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            destination (AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | Pubsub | Rabbitmq |
                RedisStream | S3 | Sns | Sqs): Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object
                storage) are new variants; the endpoint object keeps its shape.
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            event_type_versions (EndpointEventTypeVersions): The event type version that shapes this endpoint's payloads, by
                event type. A type not named here is shaped by the version that was
                current when the endpoint version started (else its first).
            event_types (list[str]): Subscribed event types; empty receives nothing; `*` (explicit) receives all.
            id (str): The endpoint's id (`ep_…`).
            max_concurrency (int): Attempts in flight at once for this endpoint, at most.
            signature_scheme (SignatureScheme): How deliveries to an endpoint are signed (Standard Webhooks'
                `webhook-signature`): `v1a`, Ed25519 with a key pair whose public key
                (`whpk_…`) can be read at any time, or `v1`, HMAC-SHA256 with a shared
                secret (`whsec_…`) shown once. See `docs/verifying-webhooks.md`.
            snapshot_fields (list[str]): The snapshot allow list: fields (JSON Pointers) sent beyond the
                event type version's thin fields, or `["*"]` for every field. Empty:
                thin.
            state (EndpointState): Whether an endpoint receives deliveries: `active`; `paused` by the
                tenant (messages are held, and released on resume); `disabled` by the
                tenant, by a `410 Gone` answer or after 5 days of continuous failure
                (`disabled_reason` says which; messages are held until recovered);
                `unverified`: its receiver has not yet proven that it wants the
                traffic (the ownership challenge, `docs/security.md`); messages are
                held and released once it has.
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            version (int): The endpoint version: 1 at creation; each change of
                `snapshot_fields`, `allow_personal_data` or `event_type_versions`
                opens the next. Messages keep the version they were produced for.
            version_started_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            description (None | str | Unset): A note for people, if any.
            disabled_reason (None | str | Unset): Why it is disabled (`disabled_by_tenant`, `endpoint_returned_410`,
                `failing_for_5_days`); `null` unless `state` is `disabled`.
            ordering (DeliveryOrder | Unset): Whether an endpoint's messages keep an order: `none` (the default:
                every message is attempted as soon as the endpoint's limits allow) or
                `per_key`: messages with the same ordering key (the event's
                `ordering_key`, else its `subject`) are attempted one at a time in
                publish order, each waiting (`blocked`) until the one before it has
                ended; other keys proceed in parallel. See `docs/delivery.md`.
            ownership_origin (None | str | Unset): The origin (`host:port` of its URL) whose receiver must prove
                ownership, when it must: set from `verify_ownership` and the URL.
                `null` when no proof is owed.
            rate_limit_per_second (int | None | Unset): Attempts started per second, at most; `null`: no rate limit.
            retry_schedule_seconds (list[int] | None | Unset): Waits in seconds before each attempt after the first; `null`
                uses the default schedule.
            revision (int | Unset): Counts every change of the endpoint (its settings, its state, its
                keys), from 1 at creation. Reads answer it as the `ETag`
                (`"<revision>"`); `PATCH` with `If-Match` applies only while it is
                still the one read.
            verify_ownership (bool | Unset): Whether its receiver must prove that it wants the traffic before
                the first delivery (an HTTPS endpoint only; the installation may
                require it of every one: then this reads `true`). See
                `docs/security.md`, "Proof of endpoint ownership".
     """

    allow_personal_data: bool
    auto_disable: bool
    consumer_id: str
    created_at: datetime.datetime
    destination: AzureServiceBus | Eventbridge | Https | Kafka | Mqtt | NatsJetstream | Pubsub | Rabbitmq | RedisStream | S3 | Sns | Sqs
    environment: Environment
    event_type_versions: EndpointEventTypeVersions
    event_types: list[str]
    id: str
    max_concurrency: int
    signature_scheme: SignatureScheme
    snapshot_fields: list[str]
    state: EndpointState
    updated_at: datetime.datetime
    version: int
    version_started_at: datetime.datetime
    description: None | str | Unset = UNSET
    disabled_reason: None | str | Unset = UNSET
    ordering: DeliveryOrder | Unset = UNSET
    ownership_origin: None | str | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    retry_schedule_seconds: list[int] | None | Unset = UNSET
    revision: int | Unset = UNSET
    verify_ownership: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
        from ..models.endpoint_event_type_versions import EndpointEventTypeVersions # noqa: PLC0415
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
        allow_personal_data = self.allow_personal_data

        auto_disable = self.auto_disable

        consumer_id = self.consumer_id

        created_at = self.created_at.isoformat()

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


        environment = self.environment.value

        event_type_versions = self.event_type_versions.to_dict()

        event_types = self.event_types



        id = self.id

        max_concurrency = self.max_concurrency

        signature_scheme = self.signature_scheme.value

        snapshot_fields = self.snapshot_fields



        state = self.state.value

        updated_at = self.updated_at.isoformat()

        version = self.version

        version_started_at = self.version_started_at.isoformat()

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        disabled_reason: None | str | Unset
        if isinstance(self.disabled_reason, Unset):
            disabled_reason = UNSET
        else:
            disabled_reason = self.disabled_reason

        ordering: str | Unset = UNSET
        if not isinstance(self.ordering, Unset):
            ordering = self.ordering.value


        ownership_origin: None | str | Unset
        if isinstance(self.ownership_origin, Unset):
            ownership_origin = UNSET
        else:
            ownership_origin = self.ownership_origin

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

        revision = self.revision

        verify_ownership = self.verify_ownership


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allow_personal_data": allow_personal_data,
            "auto_disable": auto_disable,
            "consumer_id": consumer_id,
            "created_at": created_at,
            "destination": destination,
            "environment": environment,
            "event_type_versions": event_type_versions,
            "event_types": event_types,
            "id": id,
            "max_concurrency": max_concurrency,
            "signature_scheme": signature_scheme,
            "snapshot_fields": snapshot_fields,
            "state": state,
            "updated_at": updated_at,
            "version": version,
            "version_started_at": version_started_at,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if disabled_reason is not UNSET:
            field_dict["disabled_reason"] = disabled_reason
        if ordering is not UNSET:
            field_dict["ordering"] = ordering
        if ownership_origin is not UNSET:
            field_dict["ownership_origin"] = ownership_origin
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if retry_schedule_seconds is not UNSET:
            field_dict["retry_schedule_seconds"] = retry_schedule_seconds
        if revision is not UNSET:
            field_dict["revision"] = revision
        if verify_ownership is not UNSET:
            field_dict["verify_ownership"] = verify_ownership

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.azure_service_bus import AzureServiceBus # noqa: PLC0415
        from ..models.endpoint_event_type_versions import EndpointEventTypeVersions # noqa: PLC0415
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
        allow_personal_data = d.pop("allow_personal_data")

        auto_disable = d.pop("auto_disable")

        consumer_id = d.pop("consumer_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




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


        environment = Environment(d.pop("environment"))




        event_type_versions = EndpointEventTypeVersions.from_dict(d.pop("event_type_versions"))




        event_types = cast(list[str], d.pop("event_types"))


        id = d.pop("id")

        max_concurrency = d.pop("max_concurrency")

        signature_scheme = SignatureScheme(d.pop("signature_scheme"))




        snapshot_fields = cast(list[str], d.pop("snapshot_fields"))


        state = EndpointState(d.pop("state"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        version = d.pop("version")

        version_started_at = datetime.datetime.fromisoformat(d.pop("version_started_at"))




        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_disabled_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason", UNSET))


        _ordering = d.pop("ordering", UNSET)
        ordering: DeliveryOrder | Unset
        if isinstance(_ordering,  Unset):
            ordering = UNSET
        else:
            ordering = DeliveryOrder(_ordering)




        def _parse_ownership_origin(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ownership_origin = _parse_ownership_origin(d.pop("ownership_origin", UNSET))


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


        revision = d.pop("revision", UNSET)

        verify_ownership = d.pop("verify_ownership", UNSET)

        endpoint = cls(
            allow_personal_data=allow_personal_data,
            auto_disable=auto_disable,
            consumer_id=consumer_id,
            created_at=created_at,
            destination=destination,
            environment=environment,
            event_type_versions=event_type_versions,
            event_types=event_types,
            id=id,
            max_concurrency=max_concurrency,
            signature_scheme=signature_scheme,
            snapshot_fields=snapshot_fields,
            state=state,
            updated_at=updated_at,
            version=version,
            version_started_at=version_started_at,
            description=description,
            disabled_reason=disabled_reason,
            ordering=ordering,
            ownership_origin=ownership_origin,
            rate_limit_per_second=rate_limit_per_second,
            retry_schedule_seconds=retry_schedule_seconds,
            revision=revision,
            verify_ownership=verify_ownership,
        )


        endpoint.additional_properties = d
        return endpoint

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
