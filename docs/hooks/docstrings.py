"""A griffe extension: the package's docstrings as the Markdown mkdocstrings renders.

The docstrings are written for ``help()`` and doctest: reStructuredText's ``::`` literal
blocks, ``>>>`` examples, ``:mod:`` roles, and ``<placeholder>`` words. Here, before griffe
parses them (Google style): a literal block becomes a fenced Python block, a run of ``>>>``
lines a fenced ``pycon`` block without doctest directives (unless a Google ``Example:`` section
holds it: griffe reads those), a term alone on its line over an indented description a
definition list item, a role its name in code, and a ``<`` outside code ``&lt;``, so Markdown
keeps it as text. Client's ``{keywords}``, filled in at import time, is filled in here too.

It also gives ``df.lookup``'s methods their pages: ``LookupAccessor.enrich_profiles`` is made
at import time by ``frame_method(api.enrich_profiles)``, which griffe sees as an attribute.
Each becomes a method with the api function's parameters (the frame as ``self``), return type
and docstring, as ``help(df.lookup.enrich_profiles)`` shows it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from typing import Any

import griffe

#: ``:func:`~lookup_pandas.x.y``` and its kin: the name, shortened by ``~``.
ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const):`(~?)\.?([^`]+)`")
#: A line that is only a name in code (``column``): a term whose description follows, indented.
TERM = re.compile(r"^\s*``[^`]+``\s*$")
#: A doctest directive at the end of an example's line (``# doctest: +ELLIPSIS``): not for readers.
DOCTEST_FLAGS = re.compile(r"\s*#\s*doctest:.*$")
#: A Google section title that holds examples itself.
EXAMPLES_TITLE = re.compile(r"^\s*Examples?:\s*$")
ACCESSOR = "lookup_pandas.accessor.LookupAccessor"
#: The modules whose functions the accessor's methods are (``frame_method(api.X)``).
API = ("lookup_pandas.api.functions", "lookup_pandas.api.emails")


def _role(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


def _text(line: str) -> str:
    """One line of prose: roles as code, ``<`` escaped outside code spans."""
    line = ROLE.sub(_role, line)
    parts = re.split(r"(`+[^`]*`+)", line)
    return "".join(p if p.startswith("`") else p.replace("<", "&lt;") for p in parts)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _in_examples_section(out: list[str], indent: int) -> bool:
    """Whether the nearest less-indented line above is a Google ``Example:`` title."""
    for line in reversed(out):
        if line.strip() and _indent(line) < indent:
            return bool(EXAMPLES_TITLE.match(line))
    return False


def _fence(body: list[str], indent: str, language: str) -> list[str]:
    """``body`` (lines) in a fenced block at ``indent``, with blank lines around it."""
    text = textwrap.dedent("\n".join(body)).strip("\n")
    lines = [indent + line if line.strip() else "" for line in text.split("\n")]
    return ["", f"{indent}```{language}", *lines, f"{indent}```", ""]


def to_markdown(text: str) -> str:
    """A docstring as Markdown: see the module.

    >>> print(to_markdown("Example::\\n\\n    f(1)\\n\\nSee :func:`~a.b.f` on <x>."))
    Example:
    <BLANKLINE>
    ```python
    f(1)
    ```
    <BLANKLINE>
    See `f` on &lt;x>.
    >>> print(to_markdown("``column``\\n    The column."))
    <BLANKLINE>
    ``column``
    :   The column.
    """
    if "{keywords}" in text:  # Client's: filled in at import time from the settings
        from lookup_pandas.config.settings import keyword_help

        text = text.replace("{keywords}", textwrap.dedent(keyword_help()).strip("\n"))
    lines, out, i, fenced = text.split("\n"), [], 0, False
    while i < len(lines):
        line = lines[i]
        stripped, indent = line.strip(), line[: _indent(line)]
        if stripped.startswith("```"):
            fenced = not fenced
        if fenced or stripped.startswith("```"):
            out.append(line)
            i += 1
        elif stripped.startswith(">>>") and not _in_examples_section(out, len(indent)):
            start = i
            while i < len(lines) and lines[i].strip():
                i += 1
            example = [DOCTEST_FLAGS.sub("", line) for line in lines[start:i]]
            out += _fence(example, indent, "pycon")
        elif TERM.match(line) and _deeper_follows(lines, i):
            i, body = _literal_block(lines, i + 1, len(indent))
            out += _definition(line, body, indent)
        elif stripped.endswith("::") and _literal_follows(lines, i):
            head = line.rstrip()[:-2].rstrip()
            if head.strip():
                out.append(_text(head if head.endswith(":") else head + ":"))
            i, body = _literal_block(lines, i + 1, len(indent))
            out += _fence(body, indent, "python")
        else:
            out.append(_text(line))
            i += 1
    return "\n".join(out).strip("\n")


def _deeper_follows(lines: list[str], i: int) -> bool:
    """The next line is indented deeper than line ``i``."""
    return (
        i + 1 < len(lines)
        and bool(lines[i + 1].strip())
        and _indent(lines[i + 1]) > _indent(lines[i])
    )


def _definition(term: str, body: list[str], indent: str) -> list[str]:
    """A term and its indented description as a Markdown definition list item (def_list)."""
    text = textwrap.dedent("\n".join(body)).strip("\n").split("\n")
    described = [f"{indent}:   {_text(text[0])}"]
    described += [f"{indent}    {_text(line)}" if line.strip() else "" for line in text[1:]]
    return ["", _text(term), *described, ""]


def _literal_follows(lines: list[str], i: int) -> bool:
    """A blank line, then a line indented deeper than line ``i``: reST's literal block."""
    rest = [line for line in lines[i + 1 :] if line.strip()]
    blank = i + 1 < len(lines) and not lines[i + 1].strip()
    return blank and bool(rest) and _indent(rest[0]) > _indent(lines[i])


def _literal_block(lines: list[str], i: int, indent: int) -> tuple[int, list[str]]:
    """The literal block from line ``i`` on: blank lines and lines indented deeper."""
    start = i
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        i += 1
    while i > start and not lines[i - 1].strip():
        i -= 1
    return i, lines[start:i]


def _accessor_methods(package: griffe.Module) -> None:
    """``LookupAccessor``'s ``frame_method(api.X)`` attributes as methods: see the module."""
    accessor = package[ACCESSOR.removeprefix("lookup_pandas.")]
    modules = [package[name.removeprefix("lookup_pandas.")] for name in API]
    for name, member in list(accessor.members.items()):
        value = getattr(member, "value", None)
        if not (isinstance(value, griffe.ExprCall) and str(value.function) == "frame_method"):
            continue
        function = next(m[name] for m in modules if name in m.members)
        parameters = list(function.parameters)
        self_ = griffe.Parameter("self", kind=parameters[0].kind)
        method = griffe.Function(
            name,
            lineno=member.lineno,
            endlineno=member.endlineno,
            parameters=griffe.Parameters(self_, *parameters[1:]),
            returns=function.returns,
        )
        if function.docstring is not None:
            method.docstring = griffe.Docstring(
                function.docstring.value, lineno=function.docstring.lineno, parent=method
            )
        accessor.set_member(name, method)


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object below it (aliases are their targets' business)."""
    yield obj
    for member in obj.members.values():
        if isinstance(member, griffe.Object):
            yield from _objects(member)


class Docstrings(griffe.Extension):
    """Applied once the package is loaded: the accessor's methods, then every docstring."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "lookup_pandas":
            return
        _accessor_methods(pkg)
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj.docstring.value)
