from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.redis_stream_content_mode import RedisStreamContentMode
from ..models.redis_stream_kind import RedisStreamKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.redis_stream_wait_aof_type_0 import RedisStreamWaitAofType0





T = TypeVar("T", bound="RedisStream")



@_attrs_define
class RedisStream:
    """ A Redis stream: each message is one entry added with XADD (the
    CloudEvent in the `body` field, structured or binary by `content_mode`,
    the Standard Webhooks values in their own fields); the entry id Redis
    answers is the acknowledgement. See docs/destinations.md for what Redis
    durability means.

        Attributes:
            host (str): A host name or IP address, checked by the outbound guard at
                registration and at every connect.
            kind (RedisStreamKind): The destination's kind: `redis_stream`.
            stream (str): The stream key.
            content_mode (RedisStreamContentMode | Unset): `structured` (default): the CloudEvents JSON in `body`; `binary`:
                `data` in `body` and each context attribute in a field `ce-<name>`. Default: RedisStreamContentMode.STRUCTURED.
            database (int | None | Unset): SELECT this database first (default: none, database 0).
            max_len (int | None | Unset): Trim with `MAXLEN ~ max_len` on each XADD.
            password (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never
                the password itself: Relay sends `AUTH [username] password` on every
                new connection. See docs/destinations.md (Credentials: secret references).
            port (int | Unset): Default 6379; the operator's `allow_ports` must include it. Default: 6379.
            tls (bool | Unset): Connect with TLS (default false). Default: False.
            username (None | str | Unset): The ACL user (Redis 6+) to `AUTH` as; needs `password`.
            wait_aof (None | RedisStreamWaitAofType0 | Unset): Send `WAITAOF local replicas timeout_ms` after each XADD
                (Redis 7.2+)
                and count the delivery only when the server confirms the fsyncs asked
                for; fewer is retried, a server without WAITAOF (or `local: 1` with
                `appendonly no`) dead-letters the message as `invalid_destination`.
                Default: none (the XADD reply alone).
     """

    host: str
    kind: RedisStreamKind
    stream: str
    content_mode: RedisStreamContentMode | Unset = RedisStreamContentMode.STRUCTURED
    database: int | None | Unset = UNSET
    max_len: int | None | Unset = UNSET
    password: None | str | Unset = UNSET
    port: int | Unset = 6379
    tls: bool | Unset = False
    username: None | str | Unset = UNSET
    wait_aof: None | RedisStreamWaitAofType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.redis_stream_wait_aof_type_0 import RedisStreamWaitAofType0 # noqa: PLC0415
        host = self.host

        kind = self.kind.value

        stream = self.stream

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        database: int | None | Unset
        if isinstance(self.database, Unset):
            database = UNSET
        else:
            database = self.database

        max_len: int | None | Unset
        if isinstance(self.max_len, Unset):
            max_len = UNSET
        else:
            max_len = self.max_len

        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        port = self.port

        tls = self.tls

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username

        wait_aof: dict[str, Any] | None | Unset
        if isinstance(self.wait_aof, Unset):
            wait_aof = UNSET
        elif isinstance(self.wait_aof, RedisStreamWaitAofType0):
            wait_aof = self.wait_aof.to_dict()
        else:
            wait_aof = self.wait_aof


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "host": host,
            "kind": kind,
            "stream": stream,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if database is not UNSET:
            field_dict["database"] = database
        if max_len is not UNSET:
            field_dict["max_len"] = max_len
        if password is not UNSET:
            field_dict["password"] = password
        if port is not UNSET:
            field_dict["port"] = port
        if tls is not UNSET:
            field_dict["tls"] = tls
        if username is not UNSET:
            field_dict["username"] = username
        if wait_aof is not UNSET:
            field_dict["wait_aof"] = wait_aof

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.redis_stream_wait_aof_type_0 import RedisStreamWaitAofType0 # noqa: PLC0415
        d = dict(src_dict)
        host = d.pop("host")

        kind = RedisStreamKind(d.pop("kind"))




        stream = d.pop("stream")

        _content_mode = d.pop("content_mode", UNSET)
        content_mode: RedisStreamContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = RedisStreamContentMode(_content_mode)




        def _parse_database(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        database = _parse_database(d.pop("database", UNSET))


        def _parse_max_len(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_len = _parse_max_len(d.pop("max_len", UNSET))


        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        port = d.pop("port", UNSET)

        tls = d.pop("tls", UNSET)

        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))


        def _parse_wait_aof(data: object) -> None | RedisStreamWaitAofType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                wait_aof_type_0 = RedisStreamWaitAofType0.from_dict(data)



                return wait_aof_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RedisStreamWaitAofType0 | Unset, data)

        wait_aof = _parse_wait_aof(d.pop("wait_aof", UNSET))


        redis_stream = cls(
            host=host,
            kind=kind,
            stream=stream,
            content_mode=content_mode,
            database=database,
            max_len=max_len,
            password=password,
            port=port,
            tls=tls,
            username=username,
            wait_aof=wait_aof,
        )

        return redis_stream

