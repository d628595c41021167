from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cloud_event_datacontenttype import CloudEventDatacontenttype
from ..models.cloud_event_environment import CloudEventEnvironment
from ..models.cloud_event_specversion import CloudEventSpecversion
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="CloudEvent")



@_attrs_define
class CloudEvent:
    """ One event as Relay delivers it: a CloudEvents 1.0 JSON document (structured content mode), attributes in this order,
    an attribute without a value left out (never `null`), `data` copied byte for byte. Brokers, queues and object stores
    receive the same envelope (or, in binary content mode, its attributes beside `data`).

        Attributes:
            id (str): The event's id, equal to `webhook-id`: the publisher's own or `evt_…`.
            source (str): The consumer's `source` (default `/consumers/<external_id>`); never an internal id.
            specversion (CloudEventSpecversion): The CloudEvents version: `1.0`.
            time (datetime.datetime): When the event happened, RFC 3339 in UTC with milliseconds.
            type_ (str): The event type (`order.paid`).
            data (Any | Unset): The payload the endpoint receives, JSON: the event type version's thin fields and the
                endpoint's snapshot allow list (the whole payload when the version names no thin fields), personal data removed
                unless the endpoint allows it.
            datacontenttype (CloudEventDatacontenttype | Unset): `application/json`, present exactly when `data` is.
            dataschema (str | Unset): The event type version `data` satisfies (`urn:relay:event-type:<type>:v<version>`),
                present only when `data` is the event's whole payload; a projection names none.
            endpointversion (int | str | Unset): The endpoint version whose payload settings shaped `data` (`GET
                /v1/endpoints/{id}/versions`).
            environment (CloudEventEnvironment | Unset): The environment the event was published in.
            seq (int | str | Unset): Monotonic per subject within the tenant and environment, present with a subject: an
                integer, or its decimal string beyond 32 bits.
            subject (str | Unset): What the event is about, when the publisher said.
            traceparent (str | Unset): W3C trace context (version 00) of the event's trace.
     """

    id: str
    source: str
    specversion: CloudEventSpecversion
    time: datetime.datetime
    type_: str
    data: Any | Unset = UNSET
    datacontenttype: CloudEventDatacontenttype | Unset = UNSET
    dataschema: str | Unset = UNSET
    endpointversion: int | str | Unset = UNSET
    environment: CloudEventEnvironment | Unset = UNSET
    seq: int | str | Unset = UNSET
    subject: str | Unset = UNSET
    traceparent: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        source = self.source

        specversion = self.specversion.value

        time = self.time.isoformat()

        type_ = self.type_

        data = self.data

        datacontenttype: str | Unset = UNSET
        if not isinstance(self.datacontenttype, Unset):
            datacontenttype = self.datacontenttype.value


        dataschema = self.dataschema

        endpointversion: int | str | Unset
        if isinstance(self.endpointversion, Unset):
            endpointversion = UNSET
        else:
            endpointversion = self.endpointversion

        environment: str | Unset = UNSET
        if not isinstance(self.environment, Unset):
            environment = self.environment.value


        seq: int | str | Unset
        if isinstance(self.seq, Unset):
            seq = UNSET
        else:
            seq = self.seq

        subject = self.subject

        traceparent = self.traceparent


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "source": source,
            "specversion": specversion,
            "time": time,
            "type": type_,
        })
        if data is not UNSET:
            field_dict["data"] = data
        if datacontenttype is not UNSET:
            field_dict["datacontenttype"] = datacontenttype
        if dataschema is not UNSET:
            field_dict["dataschema"] = dataschema
        if endpointversion is not UNSET:
            field_dict["endpointversion"] = endpointversion
        if environment is not UNSET:
            field_dict["environment"] = environment
        if seq is not UNSET:
            field_dict["seq"] = seq
        if subject is not UNSET:
            field_dict["subject"] = subject
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        source = d.pop("source")

        specversion = CloudEventSpecversion(d.pop("specversion"))




        time = datetime.datetime.fromisoformat(d.pop("time"))




        type_ = d.pop("type")

        data = d.pop("data", UNSET)

        _datacontenttype = d.pop("datacontenttype", UNSET)
        datacontenttype: CloudEventDatacontenttype | Unset
        if isinstance(_datacontenttype,  Unset):
            datacontenttype = UNSET
        else:
            datacontenttype = CloudEventDatacontenttype(_datacontenttype)




        dataschema = d.pop("dataschema", UNSET)

        def _parse_endpointversion(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        endpointversion = _parse_endpointversion(d.pop("endpointversion", UNSET))


        _environment = d.pop("environment", UNSET)
        environment: CloudEventEnvironment | Unset
        if isinstance(_environment,  Unset):
            environment = UNSET
        else:
            environment = CloudEventEnvironment(_environment)




        def _parse_seq(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        seq = _parse_seq(d.pop("seq", UNSET))


        subject = d.pop("subject", UNSET)

        traceparent = d.pop("traceparent", UNSET)

        cloud_event = cls(
            id=id,
            source=source,
            specversion=specversion,
            time=time,
            type_=type_,
            data=data,
            datacontenttype=datacontenttype,
            dataschema=dataschema,
            endpointversion=endpointversion,
            environment=environment,
            seq=seq,
            subject=subject,
            traceparent=traceparent,
        )


        cloud_event.additional_properties = d
        return cloud_event

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
