"""What a follow kind's module declares: the fields of the API's follow body it is made from, its check before it
is stored, the follow's fields it keeps, its rule compilation for the matcher and what the page's form posts for
it. No I/O."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.compiled import CompiledFollow
from schemas.events import Follow

FollowValues = Mapping[str, Any]  # a new follow's values as the API's body holds them (the kind's and the common)
# a field of the API's follow body: its type and its pydantic Field (typed Any: the pydantic plugin types a Field as
# its default)
BodyField = tuple[Any, Any]


@dataclass(frozen=True, slots=True)
class FollowKindSpec:
    kind: str
    own_field: str  # the body's (and the form's) field a follow of this kind is made from; an unnamed one's name
    body_fields: Mapping[str, BodyField]  # the API body's fields of this kind, the follow's of the same name
    check: Callable[[FollowValues], None]  # FollowRuleError (checks.py) when a follow of these values is invalid
    compile: Callable[[Follow, Mapping[str, Topic]], CompiledFollow]  # ValueError when it does not compile
    # the follow's own fields from the body's values (default: the body fields as given)
    stored: Callable[[FollowValues], dict[str, Any]] | None = None
    # the body's values from the follows page's form, beyond its own field (a form posts text)
    form_values: Callable[[Mapping[str, str]], dict[str, Any]] | None = None

    def follow_fields(self, values: FollowValues) -> dict[str, Any]:
        if self.stored is not None:
            return self.stored(values)
        return {name: values.get(name) for name in self.body_fields}

    def from_form(self, form: Mapping[str, str]) -> dict[str, Any]:
        return self.form_values(form) if self.form_values is not None else {}
