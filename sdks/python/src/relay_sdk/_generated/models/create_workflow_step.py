from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.step_event import StepEvent





T = TypeVar("T", bound="CreateWorkflowStep")



@_attrs_define
class CreateWorkflowStep:
    """ A workflow step to run: deliver `event` to the endpoint `endpoint_id`.

        Attributes:
            endpoint_id (str): The registered endpoint to deliver to (`ep_…`), of the key's tenant
                and environment. The only destination a step can name.
            event (StepEvent): The event a workflow step delivers.
            step_key (str): The workflow engine's key for the step, 1 to 255 of letters, digits
                and `_ - . : / @ |`; unique in the tenant's environment. Sending the
                same request again answers the same step; another request with the
                key is refused.
     """

    endpoint_id: str
    event: StepEvent
    step_key: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_event import StepEvent # noqa: PLC0415
        endpoint_id = self.endpoint_id

        event = self.event.to_dict()

        step_key = self.step_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "endpoint_id": endpoint_id,
            "event": event,
            "step_key": step_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_event import StepEvent # noqa: PLC0415
        d = dict(src_dict)
        endpoint_id = d.pop("endpoint_id")

        event = StepEvent.from_dict(d.pop("event"))




        step_key = d.pop("step_key")

        create_workflow_step = cls(
            endpoint_id=endpoint_id,
            event=event,
            step_key=step_key,
        )

        return create_workflow_step

