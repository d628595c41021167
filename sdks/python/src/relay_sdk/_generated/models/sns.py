from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.sns_content_mode import SnsContentMode
from ..models.sns_kind import SnsKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Sns")



@_attrs_define
class Sns:
    """ An Amazon SNS topic, standard or FIFO (a topic ARN ending in `.fifo`):
    each message is one `Publish`, signed with AWS Signature Version 4;
    SNS's `200` with a `MessageId` is the acknowledgement (SNS answers no
    digest of what it took). On a FIFO topic the event's ordering key is
    the `MessageGroupId` and the event id the `MessageDeduplicationId`.
    See docs/destinations.md.

        Attributes:
            kind (SnsKind): The destination's kind: `sns`.
            topic_arn (str): The topic's ARN, `arn:<partition>:sns:<region>:<account id>:<topic
                name>` (a FIFO topic's name ends in `.fifo`). Requests are signed
                for the ARN's region.
            access_key_id (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                access key id, never the value itself. Give the keys, or `role_arn`.
                See docs/destinations.md.
            content_mode (SnsContentMode | Unset): `structured` (default): the message is the CloudEvents JSON;
                `binary`: the message is the event's `data` and its context
                attributes are message attributes `ce-<name>` (at most ten
                attributes in all, as SQS's kind; see docs/destinations.md). Default: SnsContentMode.STRUCTURED.
            endpoint_url (None | str | Unset): The service's `https://` URL without a path (an SNS-compatible
                service, or a VPC endpoint); `null` (default): AWS SNS,
                `https://sns.<region>.amazonaws.com` of the ARN's region. An AWS
                host must be in the ARN's region. Checked by the outbound guard at
                registration and at every connection; redirects are never followed.
            max_message_bytes (int | Unset): The largest message the topic takes (its `MaximumMessageSize`),
                counted as SNS counts it: the message and every attribute's name,
                type and value. Default 262144 (256 KiB); at most 1048576 (1 MiB). Default: 262144.
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

    kind: SnsKind
    topic_arn: str
    access_key_id: None | str | Unset = UNSET
    content_mode: SnsContentMode | Unset = SnsContentMode.STRUCTURED
    endpoint_url: None | str | Unset = UNSET
    max_message_bytes: int | Unset = 262144
    role_arn: None | str | Unset = UNSET
    secret_access_key: None | str | Unset = UNSET
    session_token: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        topic_arn = self.topic_arn

        access_key_id: None | str | Unset
        if isinstance(self.access_key_id, Unset):
            access_key_id = UNSET
        else:
            access_key_id = self.access_key_id

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        endpoint_url: None | str | Unset
        if isinstance(self.endpoint_url, Unset):
            endpoint_url = UNSET
        else:
            endpoint_url = self.endpoint_url

        max_message_bytes = self.max_message_bytes

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
            "kind": kind,
            "topic_arn": topic_arn,
        })
        if access_key_id is not UNSET:
            field_dict["access_key_id"] = access_key_id
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if endpoint_url is not UNSET:
            field_dict["endpoint_url"] = endpoint_url
        if max_message_bytes is not UNSET:
            field_dict["max_message_bytes"] = max_message_bytes
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
        kind = SnsKind(d.pop("kind"))




        topic_arn = d.pop("topic_arn")

        def _parse_access_key_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        access_key_id = _parse_access_key_id(d.pop("access_key_id", UNSET))


        _content_mode = d.pop("content_mode", UNSET)
        content_mode: SnsContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = SnsContentMode(_content_mode)




        def _parse_endpoint_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint_url = _parse_endpoint_url(d.pop("endpoint_url", UNSET))


        max_message_bytes = d.pop("max_message_bytes", UNSET)

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


        sns = cls(
            kind=kind,
            topic_arn=topic_arn,
            access_key_id=access_key_id,
            content_mode=content_mode,
            endpoint_url=endpoint_url,
            max_message_bytes=max_message_bytes,
            role_arn=role_arn,
            secret_access_key=secret_access_key,
            session_token=session_token,
        )

        return sns

