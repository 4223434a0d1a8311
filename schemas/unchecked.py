"""Models built from values the code itself made, without checking them again: what `model_construct` does, faster.

The matcher makes a reason and a follows.matched.v1 event for every match, ~100,000 a batch of papers against
10,000 similar follows. Checked, each costs ~4 µs; pydantic's `model_construct` costs as much (it looks every field
up under its aliases and fills the defaults one by one). Given every field, a model is its `__dict__` and the set of
fields given, ~1 µs. Only for models without aliases, private attributes, extra fields or `model_post_init`:
`unchecked` refuses others when first asked for them.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


@cache
def _every_field(model: type[BaseModel]) -> set[str]:
    """The model's fields, as a set all its unchecked instances share: it holds every field, so pydantic's only
    change to it (adding a field that is set) changes nothing."""
    fields = model.model_fields
    if (
        model.__pydantic_post_init__
        or model.__private_attributes__
        or model.model_config.get("extra") == "allow"
        or any(f.alias not in (None, name) or f.validation_alias is not None for name, f in fields.items())
    ):
        raise TypeError(f"{model.__name__}: not built unchecked (aliases, private attributes, extras or a post-init)")
    return set(fields)


def unchecked(model: type[M], values: dict[str, Any]) -> M:
    """The model holding `values`, which must give every field with a value of its type (tests compare the result's
    JSON with the checked model's). The dict is kept, not copied: the caller makes it for this model."""
    names = _every_field(model)
    if values.keys() != names:
        raise TypeError(f"{model.__name__}: fields {sorted(names ^ values.keys())} missing or unknown")
    built = model.__new__(model)
    object.__setattr__(built, "__dict__", values)
    object.__setattr__(built, "__pydantic_fields_set__", names)
    object.__setattr__(built, "__pydantic_extra__", None)
    object.__setattr__(built, "__pydantic_private__", None)
    return built


@contextmanager
def cycles_unchecked() -> Iterator[None]:
    """The cyclic garbage collector paused while the block builds many models that hold no reference cycles (reference
    counting frees them): as they pile up it would walk every one of them again at each of its passes."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
