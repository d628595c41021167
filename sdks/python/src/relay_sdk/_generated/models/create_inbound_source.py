from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.preset import Preset
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.options import Options





T = TypeVar("T", bound="CreateInboundSource")



@_attrs_define
class CreateInboundSource:
    """ A new inbound source: one provider's webhooks for the key's tenant and
    environment, and the secret that verifies them.

        Attributes:
            name (str): What the source is for, 1 to 200 characters.
            preset (Preset): The providers Relay verifies, by the name the API uses.
            max_body_bytes (int | None | Unset): Largest body accepted, in bytes (default 262,144, at most 1,048,576);
                larger answers `413`.
            options (None | Options | Unset):
            provider (None | str | Unset): The provider as the ledger and deduplication name it (lowercase
                letters, digits, `_ . -`; default: the preset's name). Sources of
                one provider share its event ids: a repeat through either counts.
            rate_limit_per_second (int | None | Unset): Requests per second accepted (default 100, at most 10,000); more
                answer `429`.
            secret (None | str | Unset): The provider's signing secret (an HMAC key, Twilio's auth token,
                SendGrid's public key, a Standard Webhooks `whsec_…`): written
                once, sealed at rest, never shown again. Give this or `secret_ref`.
            secret_ref (None | str | Unset): Instead of `secret`: where the secret is, as a secret reference
                (`secret:NAME` for a tenant secret, or `env:NAME`, `file:/path`
                where the operator allows them). It is resolved at every receipt,
                so a replaced tenant secret verifies from the next request. Example: secret:stripe-signing.
     """

    name: str
    preset: Preset
    max_body_bytes: int | None | Unset = UNSET
    options: None | Options | Unset = UNSET
    provider: None | str | Unset = UNSET
    rate_limit_per_second: int | None | Unset = UNSET
    secret: None | str | Unset = UNSET
    secret_ref: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.options import Options # noqa: PLC0415
        name = self.name

        preset = self.preset.value

        max_body_bytes: int | None | Unset
        if isinstance(self.max_body_bytes, Unset):
            max_body_bytes = UNSET
        else:
            max_body_bytes = self.max_body_bytes

        options: dict[str, Any] | None | Unset
        if isinstance(self.options, Unset):
            options = UNSET
        elif isinstance(self.options, Options):
            options = self.options.to_dict()
        else:
            options = self.options

        provider: None | str | Unset
        if isinstance(self.provider, Unset):
            provider = UNSET
        else:
            provider = self.provider

        rate_limit_per_second: int | None | Unset
        if isinstance(self.rate_limit_per_second, Unset):
            rate_limit_per_second = UNSET
        else:
            rate_limit_per_second = self.rate_limit_per_second

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        secret_ref: None | str | Unset
        if isinstance(self.secret_ref, Unset):
            secret_ref = UNSET
        else:
            secret_ref = self.secret_ref


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "preset": preset,
        })
        if max_body_bytes is not UNSET:
            field_dict["max_body_bytes"] = max_body_bytes
        if options is not UNSET:
            field_dict["options"] = options
        if provider is not UNSET:
            field_dict["provider"] = provider
        if rate_limit_per_second is not UNSET:
            field_dict["rate_limit_per_second"] = rate_limit_per_second
        if secret is not UNSET:
            field_dict["secret"] = secret
        if secret_ref is not UNSET:
            field_dict["secret_ref"] = secret_ref

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.options import Options # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        preset = Preset(d.pop("preset"))




        def _parse_max_body_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_body_bytes = _parse_max_body_bytes(d.pop("max_body_bytes", UNSET))


        def _parse_options(data: object) -> None | Options | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                options_type_0 = Options.from_dict(data)



                return options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Options | Unset, data)

        options = _parse_options(d.pop("options", UNSET))


        def _parse_provider(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider = _parse_provider(d.pop("provider", UNSET))


        def _parse_rate_limit_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_second = _parse_rate_limit_per_second(d.pop("rate_limit_per_second", UNSET))


        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))


        def _parse_secret_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret_ref = _parse_secret_ref(d.pop("secret_ref", UNSET))


        create_inbound_source = cls(
            name=name,
            preset=preset,
            max_body_bytes=max_body_bytes,
            options=options,
            provider=provider,
            rate_limit_per_second=rate_limit_per_second,
            secret=secret,
            secret_ref=secret_ref,
        )

        return create_inbound_source

