from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_kind import JobKind
from ..models.job_state import JobState
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.job_parameters import JobParameters





T = TypeVar("T", bound="Job")



@_attrs_define
class Job:
    """ A durable job (bulk retry) and its progress.

        Attributes:
            affected (int): Messages whose schedule restarted so far.
            created_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            id (str): The job's id (`job_…`).
            kind (JobKind): What a durable job does. Stored and answered as its name (`bulk_retry`).
            parameters (JobParameters): The filter the job was started with.
            processed (int): Messages examined so far.
            state (JobState): Where a durable job is: `queued` until a worker leases it, `running`
                while it advances batch by batch (a lapsed lease is taken over), `done`.
            updated_at (datetime.datetime): A point in time, RFC 3339; Relay writes UTC with milliseconds
                (`2026-11-30T04:52:56.123Z`).
            finished_at (datetime.datetime | None | Unset):
     """

    affected: int
    created_at: datetime.datetime
    id: str
    kind: JobKind
    parameters: JobParameters
    processed: int
    state: JobState
    updated_at: datetime.datetime
    finished_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_parameters import JobParameters # noqa: PLC0415
        affected = self.affected

        created_at = self.created_at.isoformat()

        id = self.id

        kind = self.kind.value

        parameters = self.parameters.to_dict()

        processed = self.processed

        state = self.state.value

        updated_at = self.updated_at.isoformat()

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "affected": affected,
            "created_at": created_at,
            "id": id,
            "kind": kind,
            "parameters": parameters,
            "processed": processed,
            "state": state,
            "updated_at": updated_at,
        })
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_parameters import JobParameters # noqa: PLC0415
        d = dict(src_dict)
        affected = d.pop("affected")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = d.pop("id")

        kind = JobKind(d.pop("kind"))




        parameters = JobParameters.from_dict(d.pop("parameters"))




        processed = d.pop("processed")

        state = JobState(d.pop("state"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))


        job = cls(
            affected=affected,
            created_at=created_at,
            id=id,
            kind=kind,
            parameters=parameters,
            processed=processed,
            state=state,
            updated_at=updated_at,
            finished_at=finished_at,
        )


        job.additional_properties = d
        return job

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
