"""Where users import an operator from, found in the loaded library itself.

A case's `ref` names the object where the library defines it
(``monai.transforms.croppad.array.SpatialPad``); users import it from a package that
re-exports it (``monai.transforms``). Cutting the dotted path by a fixed rule guesses
(``monai.transforms.croppad`` exports nothing); the imported modules know.
"""

from __future__ import annotations

import sys
from types import ModuleType

_MISSING = object()


def _holds(module: ModuleType, name: str, target: object) -> bool:
    # The namespace, not getattr: a module's __getattr__ may import or warn.
    return vars(module).get(name, _MISSING) is target


def _is_private(parts: list[str]) -> bool:
    # The top package may be spelled with an underscore; what lies below it may not.
    return any(part.startswith("_") for part in parts[1:])


def public_ref(ref: str) -> str | None:
    """`ref` as ``module:qualified.name``, with the module users import its object from.

    That module is the deepest public package, at or above the module defining the object,
    whose namespace holds that same object; else the defining module. Deepest, not shortest:
    kornia.geometry re-exports all of kornia.geometry.transform, yet Kornia's documentation
    and its users say kornia.geometry.transform.warp_perspective. The defining module is a
    candidate only when it is a package or sits right under the top package
    (kornia.constants): a module file deeper down is where the code lives, not what users
    import. Only modules already imported are read, so naming a case imports nothing. None
    when `ref` names nothing among them, or only a private module holds it.
    """
    parts = ref.split(".")
    defining = next((cut for cut in range(len(parts) - 1, 0, -1) if ".".join(parts[:cut]) in sys.modules), 0)
    if defining == 0:
        return None
    name, qualified = parts[defining], ".".join(parts[defining:])
    target = vars(sys.modules[".".join(parts[:defining])]).get(name, _MISSING)
    if target is _MISSING:
        return None
    for depth in range(defining, 0, -1):
        module = sys.modules.get(".".join(parts[:depth]))
        if module is None or _is_private(parts[:depth]):
            continue
        if depth == defining and depth >= 3 and not hasattr(module, "__path__"):
            continue
        if _holds(module, name, target):
            return f"{'.'.join(parts[:depth])}:{qualified}"
    if _is_private(parts[:defining]):
        return None
    return f"{'.'.join(parts[:defining])}:{qualified}"
