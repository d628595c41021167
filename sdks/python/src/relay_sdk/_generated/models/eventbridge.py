from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.eventbridge_kind import EventbridgeKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Eventbridge")



@_attrs_define
class Eventbridge:
    """ An Amazon EventBridge event bus: each message is one entry of one
    `PutEvents`, signed with AWS Signature Version 4. The entry's `Detail`
    is the CloudEvent (structured mode only: EventBridge has no attributes
    to carry a binary binding), its `DetailType` the event type, its
    `Time` the event's time; EventBridge's `200` whose entry has an
    `EventId` is the acknowledgement, and an entry with an `ErrorCode` is
    that message's failure. EventBridge keeps no order. See
    docs/destinations.md.

        Attributes:
            event_bus (str): The event bus: its name (`default`, `orders`, a partner bus's
                `aws.partner/…`) or its ARN,
                `arn:<partition>:events:<region>:<account id>:event-bus/<name>`
                (in `region`).
            kind (EventbridgeKind): The destination's kind: `eventbridge`.
            region (str): The region requests are signed for and sent to (e.g. `eu-west-1`).
            source (str): The entries' `Source`, which rules match on (e.g. `com.acme.orders`):
                1 to 256 of `A-Z a-z 0-9 . - _ /`, not beginning with `aws.`
                (EventBridge keeps that prefix for AWS services).
            access_key_id (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                access key id, never the value itself. Give the keys, or `role_arn`.
                See docs/destinations.md.
            detail_type (None | str | Unset): The entries' `DetailType`; `null` (default): each event's type
                (`order.shipped`). At most 128 characters, no control characters.
            endpoint_url (None | str | Unset): The service's `https://` URL without a path (an EventBridge-compatible
                service, or a VPC endpoint); `null` (default): AWS EventBridge,
                `https://events.<region>.amazonaws.com`. An AWS host must be in
                `region`. Checked by the outbound guard at registration and at every
                connection; redirects are never followed.
            role_arn (None | str | Unset): Instead of keys: the ARN of a role in the account
                (`arn:aws:iam::<account id>:role/<name>`) that Relay assumes with
                STS `AssumeRole`, its own AWS identity and this tenant's
                `ExternalId` (`GET /v1/aws/external-id`), which the role's trust
                policy must require. Registration assumes it once to check.
            secret_access_key (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                secret access key, never the value itself; with `access_key_id`.
            session_token (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                session token (temporary credentials), sent as `x-amz-security-token`,
                never the value itself; with the keys.
     """

    event_bus: str
    kind: EventbridgeKind
    region: str
    source: str
    access_key_id: None | str | Unset = UNSET
    detail_type: None | str | Unset = UNSET
    endpoint_url: None | str | Unset = UNSET
    role_arn: None | str | Unset = UNSET
    secret_access_key: None | str | Unset = UNSET
    session_token: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_bus = self.event_bus

        kind = self.kind.value

        region = self.region

        source = self.source

        access_key_id: None | str | Unset
        if isinstance(self.access_key_id, Unset):
            access_key_id = UNSET
        else:
            access_key_id = self.access_key_id

        detail_type: None | str | Unset
        if isinstance(self.detail_type, Unset):
            detail_type = UNSET
        else:
            detail_type = self.detail_type

        endpoint_url: None | str | Unset
        if isinstance(self.endpoint_url, Unset):
            endpoint_url = UNSET
        else:
            endpoint_url = self.endpoint_url

        role_arn: None | str | Unset
        if isinstance(self.role_arn, Unset):
            role_arn = UNSET
        else:
            role_arn = self.role_arn

        secret_access_key: None | str | Unset
        if isinstance(self.secret_access_key, Unset):
            secret_access_key = UNSET
        else:
            secret_access_key = self.secret_access_key

        session_token: None | str | Unset
        if isinstance(self.session_token, Unset):
            session_token = UNSET
        else:
            session_token = self.session_token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_bus": event_bus,
            "kind": kind,
            "region": region,
            "source": source,
        })
        if access_key_id is not UNSET:
            field_dict["access_key_id"] = access_key_id
        if detail_type is not UNSET:
            field_dict["detail_type"] = detail_type
        if endpoint_url is not UNSET:
            field_dict["endpoint_url"] = endpoint_url
        if role_arn is not UNSET:
            field_dict["role_arn"] = role_arn
        if secret_access_key is not UNSET:
            field_dict["secret_access_key"] = secret_access_key
        if session_token is not UNSET:
            field_dict["session_token"] = session_token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_bus = d.pop("event_bus")

        kind = EventbridgeKind(d.pop("kind"))




        region = d.pop("region")

        source = d.pop("source")

        def _parse_access_key_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        access_key_id = _parse_access_key_id(d.pop("access_key_id", UNSET))


        def _parse_detail_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail_type = _parse_detail_type(d.pop("detail_type", UNSET))


        def _parse_endpoint_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint_url = _parse_endpoint_url(d.pop("endpoint_url", UNSET))


        def _parse_role_arn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        role_arn = _parse_role_arn(d.pop("role_arn", UNSET))


        def _parse_secret_access_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret_access_key = _parse_secret_access_key(d.pop("secret_access_key", UNSET))


        def _parse_session_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_token = _parse_session_token(d.pop("session_token", UNSET))


        eventbridge = cls(
            event_bus=event_bus,
            kind=kind,
            region=region,
            source=source,
            access_key_id=access_key_id,
            detail_type=detail_type,
            endpoint_url=endpoint_url,
            role_arn=role_arn,
            secret_access_key=secret_access_key,
            session_token=session_token,
        )

        return eventbridge

