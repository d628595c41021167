from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pubsub_content_mode import PubsubContentMode
from ..models.pubsub_kind import PubsubKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Pubsub")



@_attrs_define
class Pubsub:
    """ A Google Cloud Pub/Sub topic: each message is one `:publish` of one
    Pub/Sub message (the body as its `data`, the signature values and the
    binding's attributes as its `attributes`); Pub/Sub's `200` with the one
    message id it assigned is the acknowledgement. Authenticated with a
    service account's key (an RS256-signed JWT exchanged for an access
    token, cached until shortly before it expires), or, where the operator
    allows it, the installation's workload identity. See
    docs/destinations.md.

        Attributes:
            kind (PubsubKind): The destination's kind: `pubsub`.
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
            service_account_key (None | str | Unset): A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to
                the service account's JSON key (`client_email`, `private_key`,
                `private_key_id`, `token_uri`), never the key itself. Give it, or
                `workload_identity`.
            token_url (str | Unset): Where the signed assertion is exchanged for an access token; the
                key's `token_uri` must be this URL. Checked by the outbound guard
                like the endpoint. Default: 'https://oauth2.googleapis.com/token'.
            workload_identity (bool | Unset): `true` instead of a key: publish as the installation's own Google
                identity (the service account Relay's machine or pod runs as, from
                the metadata server), when the operator allows it for the topic's
                project (`[gcp] workload_identity` and `projects`; refused at
                registration otherwise). Default `false`. Default: False.
     """

    kind: PubsubKind
    topic: str
    content_mode: PubsubContentMode | Unset = PubsubContentMode.STRUCTURED
    endpoint: str | Unset = 'https://pubsub.googleapis.com'
    ordered: bool | Unset = False
    service_account_key: None | str | Unset = UNSET
    token_url: str | Unset = 'https://oauth2.googleapis.com/token'
    workload_identity: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        topic = self.topic

        content_mode: str | Unset = UNSET
        if not isinstance(self.content_mode, Unset):
            content_mode = self.content_mode.value


        endpoint = self.endpoint

        ordered = self.ordered

        service_account_key: None | str | Unset
        if isinstance(self.service_account_key, Unset):
            service_account_key = UNSET
        else:
            service_account_key = self.service_account_key

        token_url = self.token_url

        workload_identity = self.workload_identity


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "topic": topic,
        })
        if content_mode is not UNSET:
            field_dict["content_mode"] = content_mode
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint
        if ordered is not UNSET:
            field_dict["ordered"] = ordered
        if service_account_key is not UNSET:
            field_dict["service_account_key"] = service_account_key
        if token_url is not UNSET:
            field_dict["token_url"] = token_url
        if workload_identity is not UNSET:
            field_dict["workload_identity"] = workload_identity

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = PubsubKind(d.pop("kind"))




        topic = d.pop("topic")

        _content_mode = d.pop("content_mode", UNSET)
        content_mode: PubsubContentMode | Unset
        if isinstance(_content_mode,  Unset):
            content_mode = UNSET
        else:
            content_mode = PubsubContentMode(_content_mode)




        endpoint = d.pop("endpoint", UNSET)

        ordered = d.pop("ordered", UNSET)

        def _parse_service_account_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        service_account_key = _parse_service_account_key(d.pop("service_account_key", UNSET))


        token_url = d.pop("token_url", UNSET)

        workload_identity = d.pop("workload_identity", UNSET)

        pubsub = cls(
            kind=kind,
            topic=topic,
            content_mode=content_mode,
            endpoint=endpoint,
            ordered=ordered,
            service_account_key=service_account_key,
            token_url=token_url,
            workload_identity=workload_identity,
        )

        return pubsub

