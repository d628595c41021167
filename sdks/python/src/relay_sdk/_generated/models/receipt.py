from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.preset import Preset
from ..models.receipt_state import ReceiptState
from ..models.verdict import Verdict
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.receipt_headers import ReceiptHeaders





T = TypeVar("T", bound="Receipt")



@_attrs_define
class Receipt:
    """ One request a source received, with its verdict.

        Attributes:
            attempts (int): Processing attempts made (at most 5 before `failed`).
            body_base64 (str): The raw body, base64 (a rejected receipt keeps its first 8 KiB).
            headers (ReceiptHeaders): The headers kept with the body (those the verdict and the ledger use).
            id (str): The receipt's id (`rcp_…`).
            last_received_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            preset (Preset): The providers Relay verifies, by the name the API uses.
            provider (str): The provider, as the source names it.
            received_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            received_count (int): How many times the provider sent this event (1, plus each duplicate).
            source_id (str): The source that received it.
            state (ReceiptState): Where a receipt is in its processing.
            verdict (Verdict): What the signature check said of a received request: `verified`, or
                `rejected` (kept for diagnosis, never processed).
            last_error (None | str | Unset): The code of the last processing failure, if any.
            processed_at (datetime.datetime | None | Unset):
            provider_event_id (None | str | Unset): The provider's id of the event (verified receipts only).
            refusal (None | str | Unset): Why it was rejected (a stable code), when it was.
     """

    attempts: int
    body_base64: str
    headers: ReceiptHeaders
    id: str
    last_received_at: datetime.datetime
    preset: Preset
    provider: str
    received_at: datetime.datetime
    received_count: int
    source_id: str
    state: ReceiptState
    verdict: Verdict
    last_error: None | str | Unset = UNSET
    processed_at: datetime.datetime | None | Unset = UNSET
    provider_event_id: None | str | Unset = UNSET
    refusal: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt_headers import ReceiptHeaders # noqa: PLC0415
        attempts = self.attempts

        body_base64 = self.body_base64

        headers = self.headers.to_dict()

        id = self.id

        last_received_at = self.last_received_at.isoformat()

        preset = self.preset.value

        provider = self.provider

        received_at = self.received_at.isoformat()

        received_count = self.received_count

        source_id = self.source_id

        state = self.state.value

        verdict = self.verdict.value

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        processed_at: None | str | Unset
        if isinstance(self.processed_at, Unset):
            processed_at = UNSET
        elif isinstance(self.processed_at, datetime.datetime):
            processed_at = self.processed_at.isoformat()
        else:
            processed_at = self.processed_at

        provider_event_id: None | str | Unset
        if isinstance(self.provider_event_id, Unset):
            provider_event_id = UNSET
        else:
            provider_event_id = self.provider_event_id

        refusal: None | str | Unset
        if isinstance(self.refusal, Unset):
            refusal = UNSET
        else:
            refusal = self.refusal


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "body_base64": body_base64,
            "headers": headers,
            "id": id,
            "last_received_at": last_received_at,
            "preset": preset,
            "provider": provider,
            "received_at": received_at,
            "received_count": received_count,
            "source_id": source_id,
            "state": state,
            "verdict": verdict,
        })
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if processed_at is not UNSET:
            field_dict["processed_at"] = processed_at
        if provider_event_id is not UNSET:
            field_dict["provider_event_id"] = provider_event_id
        if refusal is not UNSET:
            field_dict["refusal"] = refusal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt_headers import ReceiptHeaders # noqa: PLC0415
        d = dict(src_dict)
        attempts = d.pop("attempts")

        body_base64 = d.pop("body_base64")

        headers = ReceiptHeaders.from_dict(d.pop("headers"))




        id = d.pop("id")

        last_received_at = datetime.datetime.fromisoformat(d.pop("last_received_at"))




        preset = Preset(d.pop("preset"))




        provider = d.pop("provider")

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))




        received_count = d.pop("received_count")

        source_id = d.pop("source_id")

        state = ReceiptState(d.pop("state"))




        verdict = Verdict(d.pop("verdict"))




        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))


        def _parse_processed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                processed_at_type_0 = datetime.datetime.fromisoformat(data)



                return processed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        processed_at = _parse_processed_at(d.pop("processed_at", UNSET))


        def _parse_provider_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider_event_id = _parse_provider_event_id(d.pop("provider_event_id", UNSET))


        def _parse_refusal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refusal = _parse_refusal(d.pop("refusal", UNSET))


        receipt = cls(
            attempts=attempts,
            body_base64=body_base64,
            headers=headers,
            id=id,
            last_received_at=last_received_at,
            preset=preset,
            provider=provider,
            received_at=received_at,
            received_count=received_count,
            source_id=source_id,
            state=state,
            verdict=verdict,
            last_error=last_error,
            processed_at=processed_at,
            provider_event_id=provider_event_id,
            refusal=refusal,
        )


        receipt.additional_properties = d
        return receipt

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
