"""The accessor methods are made from the api functions: signatures and docs cannot drift."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import dask.dataframe as dd
import pandas as pd
import polars as pl
import pytest

import lookup_pandas  # noqa: F401  registers the accessors
from lookup_pandas.accessor import LookupAccessor
from lookup_pandas.api import functions as api
from lookup_pandas.api.adapters import FrameAccessor, arguments, delegates_to, extends, frame_method
from lookup_pandas.integrations import dask as dask_adapter
from lookup_pandas.integrations import polars as polars_adapter

NAMES = ["enrich_profiles", "estimate_profiles"]


def _after_frame(function: Any) -> list[inspect.Parameter]:
    return list(inspect.signature(function, eval_str=True).parameters.values())[1:]


def _pandas() -> Any:
    return pd.DataFrame({"handle": ["ada"]}).lookup


def _polars() -> Any:
    return pl.DataFrame({"handle": ["ada"]}).lookup


def _dask() -> Any:
    return dd.from_pandas(pd.DataFrame({"handle": ["ada"]}), npartitions=1).lookup


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("accessor", [_pandas, _polars, _dask], ids=["pandas", "polars", "dask"])
def test_each_accessor_method_has_the_api_signature(accessor, name):
    method = getattr(accessor(), name)
    expected = _after_frame(getattr(api, name))
    got = list(inspect.signature(method).parameters.values())
    if accessor is _dask and name == "enrich_profiles":  # dask's one addition, first keyword
        fields = inspect.Parameter(
            "fields", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Any
        )
        assert [p.name for p in got] == ["column", "fields"] + [p.name for p in expected[1:]]
        assert got.pop(1).replace(annotation=Any) == fields
    assert got == expected
    assert method.__name__ == name
    doc = inspect.cleandoc(getattr(api, name).__doc__)
    assert inspect.cleandoc(method.__doc__).endswith(doc)  # pandas': it; others': theirs + it


@pytest.mark.parametrize("name", NAMES)
def test_the_pandas_accessor_is_the_api_function(name):
    function = getattr(api, name)
    method = getattr(LookupAccessor, name)
    assert method.__doc__ == function.__doc__
    assert method.__wrapped__ is function
    assert method.__qualname__ == f"LookupAccessor.{name}"
    assert list(inspect.signature(method).parameters)[0] == "self"
    assert inspect.signature(getattr(_pandas(), name)).return_annotation == (
        inspect.signature(function, eval_str=True).return_annotation
    )


@pytest.mark.parametrize(
    ("module", "frame_type"), [(polars_adapter, pl.DataFrame), (dask_adapter, dd.DataFrame)]
)
def test_the_adapters_return_their_own_frame_and_say_what_differs(module, frame_type):
    signature = inspect.signature(module.enrich_profiles)
    assert signature.return_annotation is frame_type
    assert next(iter(signature.parameters.values())).annotation is frame_type
    assert module.enrich_profiles.__wrapped__ is api.enrich_profiles
    assert module.estimate_profiles.__wrapped__ is api.estimate_profiles
    own = module.enrich_profiles.__doc__.split("\n\n")[0]
    assert frame_type.__module__.split(".")[0] in own  # "On a polars / dask DataFrame"


def test_type_hints_resolve_for_every_method():
    for accessor in (_pandas(), _polars(), _dask()):
        for name in NAMES:
            hints = typing.get_type_hints(getattr(accessor, name))
            assert hints["column"] is str


def test_enrich_with_summary_takes_the_same_arguments():
    assert _after_frame(api.enrich_with_summary) == _after_frame(api.enrich_profiles)


# -- the pieces, on a toy function --------------------------------------------------------------


def _scaled(frame: list[int], factor: int = 2, *, offset: int = 0) -> list[int]:
    """Each value times ``factor``, plus ``offset``."""
    return [v * factor + offset for v in frame]


class _Toy(FrameAccessor[list[int]]):
    scaled = frame_method(_scaled)


def test_a_frame_method_calls_the_function_with_the_frame():
    toy = _Toy([1, 2])
    assert toy.scaled() == [2, 4]
    assert toy.scaled(3, offset=1) == [4, 7]
    assert (
        str(inspect.signature(toy.scaled)) == "(factor: int = 2, *, offset: int = 0) -> list[int]"
    )
    assert _Toy.scaled.__doc__ == _scaled.__doc__
    with pytest.raises(TypeError):
        toy.scaled(nope=1)


def test_delegates_to_copies_the_signature_and_puts_its_doc_first():
    @delegates_to(_scaled)
    def scaled_text(frame: str, *args: Any, **options: Any) -> str:
        """On text."""
        return ",".join(map(str, _scaled([int(v) for v in frame.split(",")], *args, **options)))

    assert scaled_text("1,2", offset=1) == "3,5"
    signature = inspect.signature(scaled_text)
    assert str(signature) == "(frame: str, factor: int = 2, *, offset: int = 0) -> str"
    assert scaled_text.__doc__ == "On text.\n\n" + _scaled.__doc__


def test_extends_shows_its_own_keywords_first():
    @extends(_scaled)
    def scaled_rounded(frame: list[int], /, *args: Any, to: int = 1, **options: Any) -> list[int]:
        return [v // to * to for v in _scaled(frame, *args, **options)]

    assert scaled_rounded([7], to=5) == [10]
    assert list(inspect.signature(scaled_rounded).parameters) == ["frame", "factor", "to", "offset"]


def test_arguments_fills_in_defaults_and_refuses_unknown_keywords():
    assert arguments(_scaled, [1]) == {"frame": [1], "factor": 2, "offset": 0}
    assert arguments(_scaled, [1], 5, offset=1) == {"frame": [1], "factor": 5, "offset": 1}
    with pytest.raises(TypeError, match="nope"):
        arguments(_scaled, [1], nope=1)
