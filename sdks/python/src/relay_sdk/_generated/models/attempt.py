from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.attempt_outcome import AttemptOutcome
from ..models.attempt_trigger import AttemptTrigger
from ..models.body_encoding import BodyEncoding
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.attempt_detail import AttemptDetail





T = TypeVar("T", bound="Attempt")



@_attrs_define
class Attempt:
    """ The record of one try at delivering a message.

        Attributes:
            body_sha256 (str): Hex SHA-256 of the exact body sent.
            detail (AttemptDetail): What the destination kind answered, its own shape: HTTPS
                `{"status_code", "response_body"}`; a broker, what it acknowledged.
            duration_ms (int): How long it took, in milliseconds, until the answer or the failure.
            endpoint_id (str): The endpoint it was sent to.
            id (str): The attempt's id (`atm_…`).
            message_id (str): The message attempted.
            number (int): 1-based position in the message's attempts.
            outcome (AttemptOutcome): What one attempt meant for its message: `delivered`, `retry`,
                `deferred` (a retry the destination timed, which used no attempt),
                `exhausted` (a retry on the schedule's last attempt), `permanent`, or
                `dead_lettered` (the destination refused the message, or is no longer
                acceptable).
            signature (str): The `webhook-signature` sent (HTTPS header, broker property).
            started_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            trigger (AttemptTrigger): What started an attempt: `scheduled` (the retry schedule), `manual` (a
                resend or a test send), or `probe` (a half-open circuit's trial attempt).
            destination_ip (None | str | Unset): The address the delivery actually went to (or last tried).
            error_code (None | str | Unset): Why the attempt failed: `http_<status>`, `invalid_status`, or a
                transport kind; `null` on success and when the message was
                dead-lettered without an answer.
            error_kind (None | str | Unset): The guard's or the connection's kind of failure without a usable
                answer (`connect`, `timeout`, `tls`, `blocked_address`, `invalid_url`, …).
            response_body (None | str | Unset): HTTPS: the first 8 kB of the response body, byte for byte: as text
                when they are valid UTF-8, else base64 (`response_body_encoding`
                says which; from `detail`; `null` for other kinds).
            response_body_encoding (BodyEncoding | None | Unset):
            status_code (int | None | Unset): HTTPS: the response's status code (from `detail`; `null` for other kinds).
     """

    body_sha256: str
    detail: AttemptDetail
    duration_ms: int
    endpoint_id: str
    id: str
    message_id: str
    number: int
    outcome: AttemptOutcome
    signature: str
    started_at: datetime.datetime
    trigger: AttemptTrigger
    destination_ip: None | str | Unset = UNSET
    error_code: None | str | Unset = UNSET
    error_kind: None | str | Unset = UNSET
    response_body: None | str | Unset = UNSET
    response_body_encoding: BodyEncoding | None | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.attempt_detail import AttemptDetail # noqa: PLC0415
        body_sha256 = self.body_sha256

        detail = self.detail.to_dict()

        duration_ms = self.duration_ms

        endpoint_id = self.endpoint_id

        id = self.id

        message_id = self.message_id

        number = self.number

        outcome = self.outcome.value

        signature = self.signature

        started_at = self.started_at.isoformat()

        trigger = self.trigger.value

        destination_ip: None | str | Unset
        if isinstance(self.destination_ip, Unset):
            destination_ip = UNSET
        else:
            destination_ip = self.destination_ip

        error_code: None | str | Unset
        if isinstance(self.error_code, Unset):
            error_code = UNSET
        else:
            error_code = self.error_code

        error_kind: None | str | Unset
        if isinstance(self.error_kind, Unset):
            error_kind = UNSET
        else:
            error_kind = self.error_kind

        response_body: None | str | Unset
        if isinstance(self.response_body, Unset):
            response_body = UNSET
        else:
            response_body = self.response_body

        response_body_encoding: None | str | Unset
        if isinstance(self.response_body_encoding, Unset):
            response_body_encoding = UNSET
        elif isinstance(self.response_body_encoding, BodyEncoding):
            response_body_encoding = self.response_body_encoding.value
        else:
            response_body_encoding = self.response_body_encoding

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "body_sha256": body_sha256,
            "detail": detail,
            "duration_ms": duration_ms,
            "endpoint_id": endpoint_id,
            "id": id,
            "message_id": message_id,
            "number": number,
            "outcome": outcome,
            "signature": signature,
            "started_at": started_at,
            "trigger": trigger,
        })
        if destination_ip is not UNSET:
            field_dict["destination_ip"] = destination_ip
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if error_kind is not UNSET:
            field_dict["error_kind"] = error_kind
        if response_body is not UNSET:
            field_dict["response_body"] = response_body
        if response_body_encoding is not UNSET:
            field_dict["response_body_encoding"] = response_body_encoding
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_detail import AttemptDetail # noqa: PLC0415
        d = dict(src_dict)
        body_sha256 = d.pop("body_sha256")

        detail = AttemptDetail.from_dict(d.pop("detail"))




        duration_ms = d.pop("duration_ms")

        endpoint_id = d.pop("endpoint_id")

        id = d.pop("id")

        message_id = d.pop("message_id")

        number = d.pop("number")

        outcome = AttemptOutcome(d.pop("outcome"))




        signature = d.pop("signature")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))




        trigger = AttemptTrigger(d.pop("trigger"))




        def _parse_destination_ip(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        destination_ip = _parse_destination_ip(d.pop("destination_ip", UNSET))


        def _parse_error_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_code = _parse_error_code(d.pop("error_code", UNSET))


        def _parse_error_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_kind = _parse_error_kind(d.pop("error_kind", UNSET))


        def _parse_response_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        response_body = _parse_response_body(d.pop("response_body", UNSET))


        def _parse_response_body_encoding(data: object) -> BodyEncoding | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                response_body_encoding_type_0 = BodyEncoding(data)



                return response_body_encoding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BodyEncoding | None | Unset, data)

        response_body_encoding = _parse_response_body_encoding(d.pop("response_body_encoding", UNSET))


        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))


        attempt = cls(
            body_sha256=body_sha256,
            detail=detail,
            duration_ms=duration_ms,
            endpoint_id=endpoint_id,
            id=id,
            message_id=message_id,
            number=number,
            outcome=outcome,
            signature=signature,
            started_at=started_at,
            trigger=trigger,
            destination_ip=destination_ip,
            error_code=error_code,
            error_kind=error_kind,
            response_body=response_body,
            response_body_encoding=response_body_encoding,
            status_code=status_code,
        )


        attempt.additional_properties = d
        return attempt

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
