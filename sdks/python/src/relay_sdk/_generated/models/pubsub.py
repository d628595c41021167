from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pubsub_content_mode import PubsubContentMode
from ..models.pubsub_kind import PubsubKind
from ..types import UNSET, Unset






T = TypeVar("T", bound="Pubsub")



@_attrs_define
class Pubsub:
    """ A Google Cloud Pub/Sub topic: each message is one `:publish` of one
    Pub/Sub message (the body as its `data`, the signature values and the
    binding's attributes as its `attributes`); Pub/Sub's `200` with the one
    message id it assigned is the acknowledgement. Authenticated with a
    service account's key (an RS256-signed JWT exchanged for an access
    token, cached until shortly before it expires). See
    docs/destinations.md.

        Attributes:
            kind (PubsubKind): The destination's kind: `pubsub`.
            service_account_key (str): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to
                the service account's JSON key (`client_email`, `private_key`,
                `private_key_id`, `token_uri`), never the key itself.
            topic (str): The topic's resource name, `projects/<project id>/topics/<topic id>`.
            content_mode (PubsubContentMode | Unset): `structured` (default): the data is the CloudEvents JSON, attribute
                `Content-Type` `application/cloudevents+json`; `binary`: the data is
                the event's `data` and every context attribute is an attribute
                `ce-<name>` (the CloudEvents Pub/Sub binding). Default: PubsubContentMode.STRUCTURED.
            endpoint (str | Unset): The service's endpoint: `https://pubsub.googleapis.com` (default,
                global) or a regional one, `https://<region>-pubsub.googleapis.com`
                (which `ordered` needs). Checked by the outbound guard at
                registration and at every connection; redirects are never followed. Default: 'https://pubsub.googleapis.com'.
            ordered (bool | Unset): `true`: the event's ordering key (the one it was published with,
                else its subject) is the message's `orderingKey`, so a subscription
                with message ordering receives one key's messages in order. Pub/Sub
                orders only within a region: `true` needs a regional `endpoint`
                (refused at registration with the global one). Default `false`. Default: False.
            token_url (str | Unset): Where the signed assertion is exchanged for an access token; the
                key's `token_uri` must be this URL. Checked by the outbound guard
                like the endpoint. Default: 'https://oauth2.googleapis.com/token'.
     """

    kind: PubsubKind
    service_account_key: str
    topic: str
    content_mode: PubsubContentMode | Unset = PubsubContentMode.STRUCTURED
    endpoint: str | Unset = 'https://pubsub.googleapis.com'
    ordered: bool | Unset = False
    token_url: str | Unset = 'https://oauth2.googleapis.com/token'





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        service_account_key = self.service_account_key

        topic = self.topic

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        endpoint = self.endpoint

        ordered = self.ordered

        token_url = self.token_url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "service_account_key": service_account_key,
            "topic": topic,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint
        if ordered is not UNSET:
            field_dict["ordered"] = ordered
        if token_url is not UNSET:
            field_dict["token_url"] = token_url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = PubsubKind(d.pop("kind"))




        service_account_key = d.pop("service_account_key")

        topic = d.pop("topic")

        _content_mode = d.pop("content_mode", UNSET)
        content_mode: PubsubContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = PubsubContentMode(_content_mode)




        endpoint = d.pop("endpoint", UNSET)

        ordered = d.pop("ordered", UNSET)

        token_url = d.pop("token_url", UNSET)

        pubsub = cls(
            kind=kind,
            service_account_key=service_account_key,
            topic=topic,
            content_mode=content_mode,
            endpoint=endpoint,
            ordered=ordered,
            token_url=token_url,
        )

        return pubsub

