from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.theme import Theme
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PortalBrand")



@_attrs_define
class PortalBrand:
    """ The tenant's brand for its portal, applied through CSS custom
    properties (`--relay-primary`, …; docs/portal.md). A host page may
    override any of them.

        Attributes:
            background_color (None | str | Unset): The page's background colour, `#rgb` or `#rrggbb`.
            embed_origins (list[str] | Unset): Origins whose pages may frame the hosted page
                (`/portal/{tenant id}/{environment}`); without any, it refuses every frame.
            font_family (None | str | Unset): A CSS font family list of installed or host-loaded fonts, e.g.
                `Inter, sans-serif` (letters, digits, spaces, commas, hyphens).
            logo_url (None | str | Unset): An `https://` image URL (at most 2000 characters).
            name (None | str | Unset): Shown in the portal's header (at most 100 characters).
            primary_color (None | str | Unset): Colours as `#rgb` or `#rrggbb`.
            text_color (None | str | Unset): The text colour, `#rgb` or `#rrggbb`.
            theme (Theme | Unset): The light or dark theme, or the viewer's preference.
     """

    background_color: None | str | Unset = UNSET
    embed_origins: list[str] | Unset = UNSET
    font_family: None | str | Unset = UNSET
    logo_url: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    primary_color: None | str | Unset = UNSET
    text_color: None | str | Unset = UNSET
    theme: Theme | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        background_color: None | str | Unset
        if isinstance(self.background_color, Unset):
            background_color = UNSET
        else:
            background_color = self.background_color

        embed_origins: list[str] | Unset = UNSET
        if not isinstance(self.embed_origins, Unset):
            embed_origins = self.embed_origins



        font_family: None | str | Unset
        if isinstance(self.font_family, Unset):
            font_family = UNSET
        else:
            font_family = self.font_family

        logo_url: None | str | Unset
        if isinstance(self.logo_url, Unset):
            logo_url = UNSET
        else:
            logo_url = self.logo_url

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        primary_color: None | str | Unset
        if isinstance(self.primary_color, Unset):
            primary_color = UNSET
        else:
            primary_color = self.primary_color

        text_color: None | str | Unset
        if isinstance(self.text_color, Unset):
            text_color = UNSET
        else:
            text_color = self.text_color

        theme: str | Unset = UNSET
        if not isinstance(self.theme, Unset):
            theme = self.theme.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if background_color is not UNSET:
            field_dict["background_color"] = background_color
        if embed_origins is not UNSET:
            field_dict["embed_origins"] = embed_origins
        if font_family is not UNSET:
            field_dict["font_family"] = font_family
        if logo_url is not UNSET:
            field_dict["logo_url"] = logo_url
        if name is not UNSET:
            field_dict["name"] = name
        if primary_color is not UNSET:
            field_dict["primary_color"] = primary_color
        if text_color is not UNSET:
            field_dict["text_color"] = text_color
        if theme is not UNSET:
            field_dict["theme"] = theme

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_background_color(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        background_color = _parse_background_color(d.pop("background_color", UNSET))


        embed_origins = cast(list[str], d.pop("embed_origins", UNSET))


        def _parse_font_family(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        font_family = _parse_font_family(d.pop("font_family", UNSET))


        def _parse_logo_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        logo_url = _parse_logo_url(d.pop("logo_url", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_primary_color(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        primary_color = _parse_primary_color(d.pop("primary_color", UNSET))


        def _parse_text_color(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text_color = _parse_text_color(d.pop("text_color", UNSET))


        _theme = d.pop("theme", UNSET)
        theme: Theme | Unset
        if isinstance(_theme,  Unset):
            theme = UNSET
        else:
            theme = Theme(_theme)




        portal_brand = cls(
            background_color=background_color,
            embed_origins=embed_origins,
            font_family=font_family,
            logo_url=logo_url,
            name=name,
            primary_color=primary_color,
            text_color=text_color,
            theme=theme,
        )

        return portal_brand

