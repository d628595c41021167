from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.field_error import FieldError





T = TypeVar("T", bound="Problem")



@_attrs_define
class Problem:
    """ The problem+json body (RFC 9457) with Relay's `code` extension.

        Attributes:
            code (str): Stable machine-readable code, e.g. `schema_violation`, `invalid_url`, `limit_reached`.
            detail (str): What went wrong, for people; never a secret or an internal detail.
            status (int): The HTTP status code, as answered.
            title (str): The HTTP status's reason phrase (`Unprocessable Entity`).
            type_ (str): The problem type, a URI naming the code: `urn:relay:problem:<code>`.
            column (int | None | Unset): For malformed JSON: the column where parsing stopped.
            errors (list[FieldError] | Unset): The fields at fault, for a refused body or query; absent otherwise.
            line (int | None | Unset): For malformed JSON: the line where parsing stopped.
     """

    code: str
    detail: str
    status: int
    title: str
    type_: str
    column: int | None | Unset = UNSET
    errors: list[FieldError] | Unset = UNSET
    line: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.field_error import FieldError # noqa: PLC0415
        code = self.code

        detail = self.detail

        status = self.status

        title = self.title

        type_ = self.type_

        column: int | None | Unset
        if isinstance(self.column, Unset):
            column = UNSET
        else:
            column = self.column

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)



        line: int | None | Unset
        if isinstance(self.line, Unset):
            line = UNSET
        else:
            line = self.line


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "detail": detail,
            "status": status,
            "title": title,
            "type": type_,
        })
        if column is not UNSET:
            field_dict["column"] = column
        if errors is not UNSET:
            field_dict["errors"] = errors
        if line is not UNSET:
            field_dict["line"] = line

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_error import FieldError # noqa: PLC0415
        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_column(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        column = _parse_column(d.pop("column", UNSET))


        _errors = d.pop("errors", UNSET)
        errors: list[FieldError] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = FieldError.from_dict(errors_item_data)



                errors.append(errors_item)


        def _parse_line(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        line = _parse_line(d.pop("line", UNSET))


        problem = cls(
            code=code,
            detail=detail,
            status=status,
            title=title,
            type_=type_,
            column=column,
            errors=errors,
            line=line,
        )


        problem.additional_properties = d
        return problem

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
