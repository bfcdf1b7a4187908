"""How each tensor a registry makes at import was made: its recipe, an identity no CPU changes.

The bytes of a value a library op computed are not an identity: `kc.rgb_to_lab(rgb)`, a matrix
product, a model's output, even `torch.randn` or `uniform_(a, b)` give other last bits with the
CPU vendor, the ISA torch dispatches to (`ATEN_CPU_CAPABILITY`), the BLAS kernels MKL picks
(`MKL_ENABLE_INSTRUCTIONS`, `MKL_CBWR`) and the thread count. So while a registry imports, every
torch call is recorded as a recipe: the function's name and the identities of what it was given.
The identity of a tensor is its recipe when it was made or changed by a recorded call, else its
bytes (a tensor made before, or outside torch: `torch.from_numpy`); a generator's is its state;
a Python value's its printed form. A tensor's recipe is therefore the same on every machine for
the same registry, library and torch code, and it changes when what a case computes on changes:
another seed, other arguments, another function, another order of draws from the global
generator (a call that draws from it includes the generator's state before the draw).

What a recipe cannot see: a Python number read out of a computed tensor (`.item()`, `.tolist()`,
`float(t)`) and fed to a later call is taken by its value, which may differ in its last bits
with the machine. The bundled registries read no such numbers out of computed tensors (their
digests are checked under several CPU settings in the tests).
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_Key = int


class RecipeBook:
    """Recipes of the tensors alive that recorded calls made or changed, found by tensor or by
    storage (an `nn.Parameter(t)` is a new tensor object over `t`'s storage)."""

    def __init__(self) -> None:
        # id(tensor) -> (weakref, recipe, version at recording); the weakref's callback drops the
        # entry, so an id reused by a later object is never taken for the old tensor.
        self._tensors: dict[_Key, tuple[Any, bytes, int]] = {}
        # id(storage) -> (weakref, recipe of the storage's last recorded tensor, its geometry).
        self._storages: dict[_Key, tuple[Any, bytes, bytes]] = {}
        # Identities of tensors read by bytes, by (id, version): a model's weights are read once.
        self._bytes_memo: dict[tuple[_Key, int], tuple[Any, bytes]] = {}

    def record(self, t: Any, recipe: bytes) -> None:
        key = id(t)
        self._tensors[key] = (weakref.ref(t, _dropper(self._tensors, key)), recipe, t._version)
        try:
            storage = t.untyped_storage()
        except (RuntimeError, NotImplementedError):
            return  # sparse, meta or other storage-less tensors: by the tensor alone
        skey = id(storage)
        self._storages[skey] = (weakref.ref(storage, _dropper(self._storages, skey)), recipe, _geometry(t))

    def recipe_of(self, t: Any) -> bytes | None:
        """The tensor's recipe, or None when no recorded call made or changed it."""
        entry = self._tensors.get(id(t))
        if entry is not None and entry[0]() is t:
            _, recipe, version = entry
            if t._version == version:
                return recipe
            # Changed since through another view of its storage: the count of changes is the
            # same on every machine, the bytes are not.
            return _hash(b"changed", recipe, str(t._version - version).encode())
        try:
            storage = t.untyped_storage()
        except (RuntimeError, NotImplementedError):
            return None
        sentry = self._storages.get(id(storage))
        if sentry is None or sentry[0]() is not storage:
            return None
        _, recipe, geometry = sentry
        return _hash(b"storage", recipe, geometry, _geometry(t))

    def identity(self, t: Any) -> bytes:
        """What a recorded call was given: the tensor's recipe, else its bytes."""
        recipe = self.recipe_of(t)
        if recipe is not None:
            return recipe
        memo_key = (id(t), t._version)
        memo = self._bytes_memo.get(memo_key)
        if memo is not None and memo[0]() is t:
            return memo[1]
        digest = _hash(b"bytes", tensor_bytes(t))
        try:
            ref = weakref.ref(t, _dropper(self._bytes_memo, memo_key))
        except TypeError:
            return digest
        self._bytes_memo[memo_key] = (ref, digest)
        return digest


def _dropper(table: dict[Any, Any], key: Any) -> Callable[[Any], None]:
    def drop(ref: Any) -> None:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]

    return drop


def _geometry(t: Any) -> bytes:
    return f"{t.dtype}:{tuple(t.shape)}:{tuple(t.stride())}:{t.storage_offset()}".encode()


def _hash(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.digest()


def value_bytes(t: Any) -> bytes:
    """A tensor's values as bytes (its printed form where it has no plain strided storage)."""
    import torch

    if t.layout != torch.strided or t.is_quantized or t.device.type == "meta":
        return repr(t).encode()
    flat = t.detach().cpu().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def tensor_bytes(t: Any) -> bytes:
    """A tensor's dtype, shape and values as bytes."""
    return f"{t.dtype}:{tuple(t.shape)}:{t.layout}:".encode() + value_bytes(t)


BOOK = RecipeBook()


def recipe_of(t: Any) -> bytes | None:
    """The recipe of a tensor that a recorded call made or changed (see `recording`)."""
    return BOOK.recipe_of(t)


def _function_name(func: Any) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    if name is None:
        # Properties and other descriptors: `Tensor.T.__get__` and the like.
        owner = getattr(func, "__self__", None)
        name = f"{getattr(owner, '__name__', type(owner).__name__)}.{type(func).__name__}"
    module = getattr(func, "__module__", None) or ""
    return f"{module}:{name}"


# Values read by their printed form, matched by exact type first: most of a call's arguments.
_PLAIN_TYPES = (type(None), bool, int, float, complex, str, bytes)
_EXACTLY_PLAIN = frozenset(_PLAIN_TYPES)


class _Identities:
    """The identity of a call's arguments, read before the call runs (an in-place call changes
    them)."""

    def __init__(self, book: RecipeBook) -> None:
        import torch

        self.book = book
        # Looked up once: `of` runs for every argument of every call a registry makes.
        self._tensor = torch.Tensor
        self._generator = torch.Generator
        self._torch_values = (torch.dtype, torch.device, torch.Size, torch.layout, torch.memory_format)

    def of(self, value: Any, depth: int = 0) -> bytes:
        kind = type(value)
        if kind in _EXACTLY_PLAIN:
            return f"{kind.__name__}:{value!r}".encode()
        if isinstance(value, self._tensor):
            return b"T" + self.book.identity(value)
        if isinstance(value, _PLAIN_TYPES):
            return f"{kind.__name__}:{value!r}".encode()
        # Containers before the generator test: isinstance against torch.Generator goes through
        # a Python metaclass hook, and no container is a generator.
        if depth <= 8:
            if isinstance(value, (list, tuple)):
                return _hash(kind.__name__.encode(), *[self.of(v, depth + 1) for v in value])
            if isinstance(value, dict):
                items = [self.of(k, depth + 1) + self.of(v, depth + 1) for k, v in value.items()]
                return _hash(b"dict", *items)
            if isinstance(value, slice):
                return _hash(b"slice", self.of(value.start), self.of(value.stop), self.of(value.step))
        if isinstance(value, self._generator):
            return b"G" + _hash(value.get_state().numpy().tobytes())
        if depth > 8:
            return f"deep:{kind.__name__}".encode()
        if isinstance(value, self._torch_values):
            return f"torch:{value}".encode()
        if callable(value) and hasattr(value, "__qualname__"):
            return f"callable:{_function_name(value)}".encode()
        # Modules, ellipsis, enums: their class (a module's tensors are passed to calls apart).
        return f"object:{kind.__module__}.{kind.__qualname__}".encode()


def _tensors_in(value: Any, tensor: type) -> list[tuple[str, Any]]:
    """(position, tensor) for every tensor in a call's result or arguments, four levels deep."""
    found: list[tuple[str, Any]] = []
    _collect_tensors(value, 0, "", found, tensor)
    return found


def _collect_tensors(value: Any, depth: int, where: str, found: list[tuple[str, Any]], tensor: type) -> None:
    if isinstance(value, tensor):
        found.append((where, value))
    elif depth < 4 and isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _collect_tensors(v, depth + 1, f"{where}{i}.", found, tensor)
    elif depth < 4 and isinstance(value, dict):
        for k, v in value.items():
            _collect_tensors(v, depth + 1, f"{where}{k}.", found, tensor)


# Tensor methods and properties that return facts (sizes, flags, the dtype), never a tensor.
_FACT_METHODS = (
    "__bool__", "dim", "ndimension", "size", "numel", "nelement", "stride", "storage_offset",
    "is_contiguous", "is_floating_point", "is_complex", "element_size", "get_device",
)  # fmt: skip
_FACT_PROPERTIES = (
    "shape", "dtype", "device", "layout", "ndim", "requires_grad", "grad_fn", "is_leaf", "_version",
    "is_nested", "is_sparse", "is_quantized", "is_meta", "is_cuda", "itemsize", "nbytes", "output_nr",
)  # fmt: skip


def _recording_mode(book: RecipeBook) -> Any:
    import torch
    from torch.overrides import TorchFunctionMode

    identities = _Identities(book)
    global_generator = torch.default_generator
    tensor = torch.Tensor
    # Calls that read facts about a tensor and return none of its values: they make no tensor,
    # change none and draw no random number, so recording them would record nothing. A third
    # of a registry's calls are these; they are passed through. By id: each is a long-lived
    # attribute of torch, and a func need not be hashable.
    base = torch._C.TensorBase
    passed_through = {
        id(f)
        for f in (
            *(getattr(base, name) for name in _FACT_METHODS),
            torch.Tensor.__len__,
            torch._C._set_grad_enabled,
            torch._has_compatible_shallow_copy_type,
            torch.device,
        )
    }
    fact_properties = {id(base.__dict__[name]) for name in _FACT_PROPERTIES}

    class RecipeMode(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            if id(func) in passed_through or (
                getattr(func, "__name__", None) == "__get__"
                and id(getattr(func, "__self__", None)) in fact_properties
            ):
                return func(*args, **kwargs)
            name = _function_name(func)
            # A deep copy is given the copy's memo (every object copied so far) beside the tensor:
            # the copy is made of the tensor alone.
            read = (args[:1], {}) if name.endswith("__deepcopy__") else (args, kwargs)
            given = [(where, t, t._version) for where, t in _tensors_in(list(read), tensor)]
            call = _hash(name.encode(), identities.of(list(read[0])), identities.of(read[1]))
            # Compared as bytes: torch.equal costs more than the two states' copies.
            rng_before = global_generator.get_state().numpy().tobytes()
            out = func(*args, **kwargs)
            if global_generator.get_state().numpy().tobytes() != rng_before:
                call = _hash(call, b"global-rng", rng_before)
            for where, t in _tensors_in(out, tensor):
                book.record(t, _hash(call, b"out", where.encode()))
            for where, t, version in given:
                if t._version != version:
                    changed = _hash(call, b"changed", where.encode())
                    book.record(t, changed)
                    base = t._base
                    if base is not None:
                        book.record(base, _hash(changed, b"base"))
            return out

    return RecipeMode()


@contextmanager
def recording() -> Iterator[RecipeBook]:
    """Records every torch call made inside into the book that `recipe_of` reads."""
    mode = _recording_mode(BOOK)
    with mode:
        yield BOOK
