from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.hmac_algorithm import HmacAlgorithm
from ..models.signature_encoding import SignatureEncoding
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="GenericOptions")



@_attrs_define
class GenericOptions:
    """ How a provider that signs the raw body with an HMAC does it.

        Attributes:
            event_id (str): Where the provider event id is: `header:<name>` or `json:<JSON pointer>`. Example: json:/id.
            header (str): The header carrying the signature, e.g. `X-Signature`.
            algorithm (HmacAlgorithm | Unset): The hash of a generic HMAC signature.
            encoding (SignatureEncoding | Unset): How a generic HMAC signature is written: `hex` or `base64`.
            event_type (None | str | Unset): Where the event type is (same forms); absent: the type is `event`. Example:
                header:X-Event-Type.
            prefix (str | Unset): Text before the encoded signature in the header, e.g. `sha256=`.
     """

    event_id: str
    header: str
    algorithm: HmacAlgorithm | Unset = UNSET
    encoding: SignatureEncoding | Unset = UNSET
    event_type: None | str | Unset = UNSET
    prefix: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        header = self.header

        algorithm: str | Unset = UNSET
        if not isinstance(self.algorithm, Unset):
            algorithm = self.algorithm.value


        encoding: str | Unset = UNSET
        if not isinstance(self.encoding, Unset):
            encoding = self.encoding.value


        event_type: None | str | Unset
        if isinstance(self.event_type, Unset):
            event_type = UNSET
        else:
            event_type = self.event_type

        prefix = self.prefix


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_id": event_id,
            "header": header,
        })
        if algorithm is not UNSET:
            field_dict["algorithm"] = algorithm
        if encoding is not UNSET:
            field_dict["encoding"] = encoding
        if event_type is not UNSET:
            field_dict["event_type"] = event_type
        if prefix is not UNSET:
            field_dict["prefix"] = prefix

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        header = d.pop("header")

        _algorithm = d.pop("algorithm", UNSET)
        algorithm: HmacAlgorithm | Unset
        if isinstance(_algorithm,  Unset):
            algorithm = UNSET
        else:
            algorithm = HmacAlgorithm(_algorithm)




        _encoding = d.pop("encoding", UNSET)
        encoding: SignatureEncoding | Unset
        if isinstance(_encoding,  Unset):
            encoding = UNSET
        else:
            encoding = SignatureEncoding(_encoding)




        def _parse_event_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_type = _parse_event_type(d.pop("event_type", UNSET))


        prefix = d.pop("prefix", UNSET)

        generic_options = cls(
            event_id=event_id,
            header=header,
            algorithm=algorithm,
            encoding=encoding,
            event_type=event_type,
            prefix=prefix,
        )

        return generic_options

