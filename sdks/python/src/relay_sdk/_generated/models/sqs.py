from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.sqs_content_mode import SqsContentMode
from ..models.sqs_kind import SqsKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Sqs")



@_attrs_define
class Sqs:
    """ An Amazon SQS queue, standard or FIFO (a queue URL ending in `.fifo`):
    each message is one `SendMessage`, signed with AWS Signature Version 4;
    SQS's `200` with a `MessageId` and the MD5 digests of what it stored
    (checked against what was sent) is the acknowledgement. On a FIFO queue
    the event's ordering key is the `MessageGroupId` and the event id the
    `MessageDeduplicationId`. See docs/destinations.md.

        Attributes:
            kind (SqsKind): The destination's kind: `sqs`.
            queue_url (str): The queue's URL, as SQS gives it:
                `https://sqs.<region>.amazonaws.com/<account id>/<queue name>`
                (a FIFO queue's name ends in `.fifo`). Checked by the outbound guard
                at registration and at every connection; redirects are never
                followed.
            region (str): The region requests are signed for (e.g. `eu-west-1`); on an
                `amazonaws.com` host it must be the host's own.
            access_key_id (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                access key id, never the value itself. Give the keys, or `role_arn`.
                See docs/destinations.md.
            content_mode (SqsContentMode | Unset): `structured` (default): the body is the CloudEvents JSON; `binary`:
                the body is the event's `data` and its context attributes are
                message attributes `ce-<name>` (at most ten attributes in all; see
                docs/destinations.md for which carry what). Default: SqsContentMode.STRUCTURED.
            max_message_bytes (int | Unset): The largest message the queue takes (its `MaximumMessageSize`),
                counted as SQS counts it: the body and every attribute's name, type
                and value. Default 262144 (256 KiB); at most 1048576 (1 MiB). Default: 262144.
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

    kind: SqsKind
    queue_url: str
    region: str
    access_key_id: None | str | Unset = UNSET
    content_mode: SqsContentMode | Unset = SqsContentMode.STRUCTURED
    max_message_bytes: int | Unset = 262144
    role_arn: None | str | Unset = UNSET
    secret_access_key: None | str | Unset = UNSET
    session_token: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        queue_url = self.queue_url

        region = self.region

        access_key_id: None | str | Unset
        if isinstance(self.access_key_id, Unset):
            access_key_id = UNSET
        else:
            access_key_id = self.access_key_id

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


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
            "queue_url": queue_url,
            "region": region,
        })
        if access_key_id is not UNSET:
            field_dict["access_key_id"] = access_key_id
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
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
        kind = SqsKind(d.pop("kind"))




        queue_url = d.pop("queue_url")

        region = d.pop("region")

        def _parse_access_key_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        access_key_id = _parse_access_key_id(d.pop("access_key_id", UNSET))


        _content_mode = d.pop("content_mode", UNSET)
        content_mode: SqsContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = SqsContentMode(_content_mode)




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


        sqs = cls(
            kind=kind,
            queue_url=queue_url,
            region=region,
            access_key_id=access_key_id,
            content_mode=content_mode,
            max_message_bytes=max_message_bytes,
            role_arn=role_arn,
            secret_access_key=secret_access_key,
            session_token=session_token,
        )

        return sqs

