"""Cases that probe a property: a property has no call of its own, so the case builds the object
from the inputs and reads it. Used by the geometry files; `where` is the line that calls them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from capmap import case


def prop(name: str, group: str, read: Callable[..., Any], inputs: Sequence[Any], covers: str) -> None:
    """A property: `read` builds the object from the inputs and returns the property's value."""
    case(
        name,
        group,
        read,
        list(inputs),
        covers=covers,
        note="reads a property of an object built from the inputs",
    )


def attribute(name: str, group: str, make: Callable[..., Any], inputs: Sequence[Any], home: str) -> None:
    """A property named `Class.attr`: `make` builds the object from the inputs; `home` is the
    public module the class is found in."""
    attr = name.rsplit(".", 1)[1]
    case(
        name,
        group,
        lambda *xs: getattr(make(*xs), attr),
        list(inputs),
        covers=f"{home}.{name}",
        note="reads a property of an object built from the inputs",
    )
