"""Accessor methods made from the api functions, so each signature and docstring is written once.

>>> import pandas as pd
>>> def joined(frame, column="handle", *, sep=", "):
...     "The column's values, joined."
...     return sep.join(frame[column])
>>> class Accessor(FrameAccessor[pd.DataFrame]):
...     joined = frame_method(joined)  # as df.lookup.enrich_profiles is made
>>> inspect.signature(Accessor.joined)
<Signature (self, column='handle', *, sep=', ')>
>>> Accessor(pd.DataFrame({"handle": ["ada", "grace"]})).joined(sep="+")
'ada+grace'
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

__all__ = ["FrameAccessor", "arguments", "delegates_to", "extends", "frame_method"]

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F")
T = TypeVar("T", bound=Callable[..., Any])


class FrameAccessor(Generic[F]):
    """``frame.lookup``: holds the frame, nothing else (the library builds one per access)."""

    def __init__(self, frame: F) -> None:
        self._frame = frame

    def __init_subclass__(cls) -> None:
        """Name each frame method after the accessor that holds it (``help`` shows it)."""
        super().__init_subclass__()
        for name, value in vars(cls).items():
            if getattr(value, _FRAME_METHOD, False):
                value.__qualname__ = f"{cls.__qualname__}.{name}"


#: Marks a function made by :func:`frame_method`.
_FRAME_METHOD = "__lookup_frame_method__"


def frame_method(
    function: Callable[Concatenate[Any, P], R],
) -> Callable[Concatenate[FrameAccessor[Any], P], R]:
    """The accessor method that calls ``function`` with the accessor's frame: see the module.

    It has ``function``'s signature (the frame as ``self``), name and docstring. It is a plain
    function, so Python and a type checker bind it as any method, keeping the overloads:
    ``df.lookup.enrich_profiles("handle")`` is a DataFrame, and with ``background=True`` an
    EnrichmentJob.
    """

    def method(accessor: FrameAccessor[Any], /, *args: P.args, **kwargs: P.kwargs) -> R:
        return function(accessor._frame, *args, **kwargs)

    functools.update_wrapper(method, function)
    signature = _signature(function)
    frame, *rest = signature.parameters.values()
    self_ = frame.replace(name="self", annotation=inspect.Parameter.empty)
    _set_signature(method, signature.replace(parameters=[self_, *rest]))
    setattr(method, _FRAME_METHOD, True)
    return method


def delegates_to(
    function: Callable[Concatenate[Any, P], object],
) -> Callable[[Callable[Concatenate[F, ...], R]], Callable[Concatenate[F, P], R]]:
    """A decorator: the adapter shows ``function``'s arguments, and keeps its frame and return type.

    The adapter's docstring (what differs) is put before ``function``'s.

    >>> def joined(frame, column="handle", *, sep=", "):
    ...     "The column's values, joined."
    >>> @delegates_to(joined)
    ... def joined_polars(frame, *args, **options):
    ...     "On a polars DataFrame."
    >>> inspect.signature(joined_polars)
    <Signature (frame, column='handle', *, sep=', ')>
    >>> joined_polars.__doc__.splitlines()
    ['On a polars DataFrame.', '', "The column's values, joined."]
    """

    def adopt(adapter: Callable[Concatenate[F, ...], R]) -> Callable[Concatenate[F, P], R]:
        return _adopt(adapter, function)  # type: ignore[no-any-return]

    return adopt


def extends(function: Callable[..., object]) -> Callable[[T], T]:
    """``delegates_to`` for an adapter that adds keyword-only parameters of its own.

    They come first among ``function``'s keywords, and the type stays the adapter's.

    >>> def joined(frame, column="handle", *, sep=", "): ...
    >>> @extends(joined)
    ... def joined_dask(frame, *args, fields=None, **options): ...
    >>> inspect.signature(joined_dask)
    <Signature (frame, column='handle', *, fields=None, sep=', ')>
    """

    def adopt(adapter: T) -> T:
        return _adopt(adapter, function)  # type: ignore[no-any-return]

    return adopt


def _adopt(adapter: Any, like: Callable[..., object]) -> Any:
    own = _signature(adapter)
    frame, *rest = _signature(like).parameters.values()
    extra = [p for p in own.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    first_keyword = next(
        (i for i, p in enumerate(rest) if p.kind is inspect.Parameter.KEYWORD_ONLY), len(rest)
    )
    rest[first_keyword:first_keyword] = extra
    _set_signature(adapter, own.replace(parameters=[next(iter(own.parameters.values())), *rest]))
    adapter.__doc__ = "\n\n".join(
        inspect.cleandoc(doc) for doc in (adapter.__doc__, like.__doc__) if doc
    )
    adapter.__wrapped__ = like
    return adapter


def _signature(function: Callable[..., object]) -> inspect.Signature:
    """``function``'s signature, its annotations evaluated where they can be.

    They then read the same from any module, since a method made here may wrap another's.
    """
    try:
        return inspect.signature(function, eval_str=True)
    except NameError:  # a name imported only for type checkers
        return inspect.signature(function)


def _set_signature(function: Any, signature: inspect.Signature) -> None:
    """Make ``signature`` the one ``inspect.signature`` and ``typing.get_type_hints`` see."""
    function.__signature__ = signature
    empty = inspect.Parameter.empty
    hints = {p.name: p.annotation for p in signature.parameters.values()}
    hints["return"] = signature.return_annotation
    function.__annotations__ = {k: v for k, v in hints.items() if v is not empty}


def arguments(function: Callable[..., object], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Every argument of a call to ``function`` by name, defaults filled in.

    A keyword ``function`` does not take is a TypeError, as the call itself would raise.

    >>> def joined(frame, column="handle", *, sep=", "): ...
    >>> arguments(joined, "a frame", sep="+")
    {'frame': 'a frame', 'column': 'handle', 'sep': '+'}
    """
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)
