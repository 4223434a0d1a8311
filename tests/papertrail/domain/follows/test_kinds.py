"""The follow kinds' registry: one module per kind the events name, each made from a field of the API's follow body
(whose fields its module declares), each with its two macros on the follows page."""

from typing import get_args

import pytest

from papertrail.domain.follows.kinds import FOLLOW_KINDS, follow_kind
from schemas.events import Follow, FollowKind
from services.query.accounts.follows import FollowCreate
from services.query.web.render import templates


def test_every_kind_of_the_contract_has_one_entry() -> None:
    assert list(FOLLOW_KINDS) == list(get_args(FollowKind))
    assert all(spec.kind == kind for kind, spec in FOLLOW_KINDS.items())


def test_a_kind_is_made_from_a_field_of_the_follow_body() -> None:
    assert {kind: spec.own_field in FollowCreate.model_fields for kind, spec in FOLLOW_KINDS.items()} == dict.fromkeys(
        FOLLOW_KINDS, True
    )


def test_the_api_body_accepts_the_kinds_of_the_contract() -> None:
    assert get_args(FollowCreate.model_fields["kind"].annotation) == get_args(FollowKind)


def test_the_follows_page_has_a_macro_for_every_kind() -> None:
    module = templates.env.get_template("_follow_kinds.html").module
    assert [kind for kind in FOLLOW_KINDS if not callable(getattr(module, kind, None))] == []
    assert [kind for kind in FOLLOW_KINDS if not callable(getattr(module, f"{kind}_form", None))] == []


def test_the_api_body_holds_every_kind_s_own_fields_and_the_follow_keeps_them() -> None:
    own = {name for spec in FOLLOW_KINDS.values() for name in spec.body_fields}
    assert own <= set(FollowCreate.model_fields)
    kept = {name for spec in FOLLOW_KINDS.values() for name in spec.follow_fields(dict.fromkeys(spec.body_fields))}
    assert kept <= set(Follow.model_fields)


def test_a_kind_no_module_holds_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no follow kind 'nothing'"):
        follow_kind("nothing")
