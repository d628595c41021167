from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.environment import Environment
from ..models.preset import Preset
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.options import Options
  from ..models.source_secret import SourceSecret





T = TypeVar("T", bound="InboundSource")



@_attrs_define
class InboundSource:
    """ An inbound source: where one provider's webhooks for one tenant arrive.

        Attributes:
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            environment (Environment): Each tenant has two separate worlds of data: `live` and `test`.
                An API key belongs to exactly one of them.
            id (str): The source's id (`ins_…`).
            max_body_bytes (int): The largest body accepted, in bytes; larger answers `413`. Default
                262,144 (256 KiB), at most 1,048,576.
            name (str): A name for people (`Stripe payments`).
            options (Options): Options of one source; which apply depends on its [`Preset`].
            path (str): The path to give the provider, below this installation's public URL:
                `/inbound/<token>`, the token 128 random bits (unguessable).
            preset (Preset): The providers Relay verifies, by the name the API uses.
            provider (str): The provider as the ledger and deduplication name it (default: the preset).
            rate_limit_per_second (int): Requests per second accepted (a token bucket as deep as one second,
                per node); beyond it `429`. Default 100, at most 10,000.
            secret (SourceSecret): Where a source's secret is: a sealed value written through the API, or
                a secret reference (`relay_core::secret`). Named `SourceSecret` in the
                API's document (`SecretInfo` there is a tenant secret's).
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            previous_secret_expires_at (datetime.datetime | None | Unset):
            url (None | str | Unset): The URL to give the provider, when Relay knows its public URL.
     """

    created_at: datetime.datetime
    environment: Environment
    id: str
    max_body_bytes: int
    name: str
    options: Options
    path: str
    preset: Preset
    provider: str
    rate_limit_per_second: int
    secret: SourceSecret
    updated_at: datetime.datetime
    previous_secret_expires_at: datetime.datetime | None | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.options import Options # noqa: PLC0415
        from ..models.source_secret import SourceSecret # noqa: PLC0415
        created_at = self.created_at.isoformat()

        environment = self.environment.value

        id = self.id

        max_body_bytes = self.max_body_bytes

        name = self.name

        options = self.options.to_dict()

        path = self.path

        preset = self.preset.value

        provider = self.provider

        rate_limit_per_second = self.rate_limit_per_second

        secret = self.secret.to_dict()

        updated_at = self.updated_at.isoformat()

        previous_secret_expires_at: None | str | Unset
        if isinstance(self.previous_secret_expires_at, Unset):
            previous_secret_expires_at = UNSET
        elif isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "environment": environment,
            "id": id,
            "max_body_bytes": max_body_bytes,
            "name": name,
            "options": options,
            "path": path,
            "preset": preset,
            "provider": provider,
            "rate_limit_per_second": rate_limit_per_second,
            "secret": secret,
            "updated_at": updated_at,
        })
        if previous_secret_expires_at is not UNSET:
            field_dict["previous_secret_expires_at"] = previous_secret_expires_at
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.options import Options # noqa: PLC0415
        from ..models.source_secret import SourceSecret # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        environment = Environment(d.pop("environment"))




        id = d.pop("id")

        max_body_bytes = d.pop("max_body_bytes")

        name = d.pop("name")

        options = Options.from_dict(d.pop("options"))




        path = d.pop("path")

        preset = Preset(d.pop("preset"))




        provider = d.pop("provider")

        rate_limit_per_second = d.pop("rate_limit_per_second")

        secret = SourceSecret.from_dict(d.pop("secret"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(d.pop("previous_secret_expires_at", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        inbound_source = cls(
            created_at=created_at,
            environment=environment,
            id=id,
            max_body_bytes=max_body_bytes,
            name=name,
            options=options,
            path=path,
            preset=preset,
            provider=provider,
            rate_limit_per_second=rate_limit_per_second,
            secret=secret,
            updated_at=updated_at,
            previous_secret_expires_at=previous_secret_expires_at,
            url=url,
        )


        inbound_source.additional_properties = d
        return inbound_source

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
