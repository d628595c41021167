from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="RedisStreamWaitAofType0")



@_attrs_define
class RedisStreamWaitAofType0:
    """ Send `WAITAOF local replicas timeout_ms` after each XADD (Redis 7.2+)
    and count the delivery only when the server confirms the fsyncs asked
    for; fewer is retried, a server without WAITAOF (or `local: 1` with
    `appendonly no`) dead-letters the message as `invalid_destination`.
    Default: none (the XADD reply alone).

        Attributes:
            local (int | Unset): 1 (default): the server's own AOF must be fsynced. Default: 1.
            replicas (int | Unset): Replicas whose AOF must be fsynced (default 0). Default: 0.
            timeout_ms (int | Unset): How long the server waits (default 1000). Default: 1000.
     """

    local: int | Unset = 1
    replicas: int | Unset = 0
    timeout_ms: int | Unset = 1000





    def to_dict(self) -> dict[str, Any]:
        local = self.local

        replicas = self.replicas

        timeout_ms = self.timeout_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if local is not UNSET:
            field_dict["local"] = local
        if replicas is not UNSET:
            field_dict["replicas"] = replicas
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        local = d.pop("local", UNSET)

        replicas = d.pop("replicas", UNSET)

        timeout_ms = d.pop("timeout_ms", UNSET)

        redis_stream_wait_aof_type_0 = cls(
            local=local,
            replicas=replicas,
            timeout_ms=timeout_ms,
        )

        return redis_stream_wait_aof_type_0

