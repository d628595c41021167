from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.s3_addressing import S3Addressing
from ..models.s3_compression import S3Compression
from ..models.s3_kind import S3Kind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.s3_batch import S3Batch





T = TypeVar("T", bound="S3")



@_attrs_define
class S3:
    """ A bucket of an S3-compatible object storage service. Messages are
    written in batches (by count, size or time) as JSON Lines of CloudEvents
    structured JSON, one object per batch named after the batch id, so
    rewriting a batch writes the same bytes to the same object; the object
    write acknowledgement (`200` with an ETag) is the success of every
    message of the batch. The object is signed as a whole (Standard Webhooks
    values in its metadata). See docs/destinations.md.

        Attributes:
            access_key_id (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                access key id, never the value itself. See docs/destinations.md.
            bucket (str): The bucket: lower-case letters, digits, `.` and `-`, starting and
                ending with a letter or digit, not an IP address.
            kind (S3Kind): The destination's kind: `s3`.
            region (str): The region requests are signed for (AWS Signature Version 4):
                lower-case letters, digits and `-` (e.g. `eu-west-1`; `us-east-1` for
                most other services, `auto` for R2).
            secret_access_key (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                secret access key, never the value itself. See docs/destinations.md.
            addressing (S3Addressing | Unset): `path` (default): `https://host/bucket/key`, answered by every
                S3-compatible service; `virtual_host`: `https://bucket.host/key` (the
                bucket must then be a single DNS label, without `.`). Default: S3Addressing.PATH.
            batch (S3Batch | Unset): A batch is closed and written once it holds `max_events` events or
                `max_bytes` bytes of JSON Lines, or its first event has waited
                `max_wait_seconds`.
            compression (S3Compression | Unset): `none` (default): `<batch id>.jsonl`, `application/x-ndjson`; `gzip`:
                `<batch id>.jsonl.gz`, `application/gzip`. Default: S3Compression.NONE.
            endpoint_url (None | str | Unset): The service's `https://` URL without a path (e.g.
                `https://minio.internal.example:9000`); `null` (default): AWS S3,
                `https://s3.<region>.amazonaws.com`. Checked by the outbound guard at
                registration and at every connection; redirects are never followed.
            prefix (str | Unset): Prepended to every object name (default empty), e.g.
                `relay/orders/`: S3's safe characters `A-Z a-z 0-9 ! - _ . * ' ( ) /`
                and `=`; not starting with `/`, no empty, `.` or `..` segment. Default: ''.
            session_token (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
                session token (temporary credentials), sent as `x-amz-security-token`,
                never the value itself. See docs/destinations.md.
     """

    access_key_id: str
    bucket: str
    kind: S3Kind
    region: str
    secret_access_key: str
    addressing: S3Addressing | Unset = S3Addressing.PATH
    batch: S3Batch | Unset = UNSET
    compression: S3Compression | Unset = S3Compression.NONE
    endpoint_url: None | str | Unset = UNSET
    prefix: str | Unset = ''
    session_token: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.s3_batch import S3Batch # noqa: PLC0415
        access_key_id = self.access_key_id

        bucket = self.bucket

        kind = self.kind.value

        region = self.region

        secret_access_key = self.secret_access_key

        addressing: str | Unset = UNSET
        if not isinstance(self.addressing, Unset):
            addressing = self.addressing.value


        batch: dict[str, Any] | Unset = UNSET
        if not isinstance(self.batch, Unset):
            batch = self.batch.to_dict()

        compression: str | Unset = UNSET
        if not isinstance(self.compression, Unset):
            compression = self.compression.value


        endpoint_url: None | str | Unset
        if isinstance(self.endpoint_url, Unset):
            endpoint_url = UNSET
        else:
            endpoint_url = self.endpoint_url

        prefix = self.prefix

        session_token: None | str | Unset
        if isinstance(self.session_token, Unset):
            session_token = UNSET
        else:
            session_token = self.session_token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "access_key_id": access_key_id,
            "bucket": bucket,
            "kind": kind,
            "region": region,
            "secret_access_key": secret_access_key,
        })
        if addressing is not UNSET:
            field_dict["addressing"] = addressing
        if batch is not UNSET:
            field_dict["batch"] = batch
        if compression is not UNSET:
            field_dict["compression"] = compression
        if endpoint_url is not UNSET:
            field_dict["endpoint_url"] = endpoint_url
        if prefix is not UNSET:
            field_dict["prefix"] = prefix
        if session_token is not UNSET:
            field_dict["session_token"] = session_token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.s3_batch import S3Batch # noqa: PLC0415
        d = dict(src_dict)
        access_key_id = d.pop("access_key_id")

        bucket = d.pop("bucket")

        kind = S3Kind(d.pop("kind"))




        region = d.pop("region")

        secret_access_key = d.pop("secret_access_key")

        _addressing = d.pop("addressing", UNSET)
        addressing: S3Addressing | Unset
        if isinstance(_addressing,  Unset):
            addressing = UNSET
        else:
            addressing = S3Addressing(_addressing)




        _batch = d.pop("batch", UNSET)
        batch: S3Batch | Unset
        if isinstance(_batch,  Unset):
            batch = UNSET
        else:
            batch = S3Batch.from_dict(_batch)




        _compression = d.pop("compression", UNSET)
        compression: S3Compression | Unset
        if isinstance(_compression,  Unset):
            compression = UNSET
        else:
            compression = S3Compression(_compression)




        def _parse_endpoint_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint_url = _parse_endpoint_url(d.pop("endpoint_url", UNSET))


        prefix = d.pop("prefix", UNSET)

        def _parse_session_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_token = _parse_session_token(d.pop("session_token", UNSET))


        s3 = cls(
            access_key_id=access_key_id,
            bucket=bucket,
            kind=kind,
            region=region,
            secret_access_key=secret_access_key,
            addressing=addressing,
            batch=batch,
            compression=compression,
            endpoint_url=endpoint_url,
            prefix=prefix,
            session_token=session_token,
        )

        return s3

