"""What ``doctor`` can tell about a Python gate's answers without firing it.

A gate callback that answers in a shape the dispatcher ignores (``{"action":
"deny"}``, a block without a message, ``return "block"``) lets every guarded action
through.  Where the answer is written in the source as a literal, the callback's
``return`` statements show it: each literal answer is handed to the hook's own
selection rule, exactly as a firing would hand it, and one the rule ignores is a
finding.  Only what a literal decides is judged: a part computed at run time (a
message in a variable, the arguments of a modify) is taken as valid, so an answer
is reported only when no run-time value could make it count.  Answers built at run
time are seen when the callback fires (``replay --fail-on error``,
``hermes-hooks test``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator
from typing import Any

from hermes_hooks._callback import Callback
from hermes_hooks._contract import Contract
from hermes_hooks._select import AGGREGATORS, Ignored

__all__ = ["ignored_answers"]

#: Stand-ins for a value computed at run time, one per kind a selection rule looks
#: for (a non-empty text, a non-empty dict): an answer is ignored whatever the value
#: only when it is ignored with each of them.
_RUN_TIME_VALUES: tuple[Any, ...] = ("…", {"…": "…"})

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _returns(node: ast.AST) -> Iterator[ast.expr]:
    """The returned expressions of one function, not of the functions it defines."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            continue
        if isinstance(child, ast.Return) and child.value is not None:
            yield child.value
        yield from _returns(child)


def _answers(node: ast.AST) -> Iterator[ast.expr]:
    """The answers of the function a parsed source holds: the first ``def`` (the
    source of a function starts with it), else its one lambda (lines holding several
    lambdas cannot tell which one is the callback)."""
    lambdas: list[ast.Lambda] = []
    for top in ast.walk(node):
        if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _returns(top)
            return
        if isinstance(top, ast.Lambda):
            lambdas.append(top)
    if len(lambdas) == 1:
        yield lambdas[0].body


def _variants(expr: ast.expr) -> list[Any] | None:
    """The values ``expr`` may take, as far as it is literal: one value for a literal,
    one per run-time stand-in for a dict with computed values, None when it cannot
    be judged (a name, a call, a dict with computed keys)."""
    try:
        return [ast.literal_eval(expr)]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(expr, ast.JoinedStr):  # an f-string: a str whatever it holds
        return [_RUN_TIME_VALUES[0]]
    if not isinstance(expr, ast.Dict):
        return None
    keys: list[str] = []
    values: list[Any] = []
    computed = object()
    for key, value in zip(expr.keys, expr.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None  # ``**other`` or a computed key: anything may be in it
        keys.append(key.value)
        try:
            values.append(ast.literal_eval(value))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            values.append(computed)
    return [
        {k: stand_in if v is computed else v for k, v in zip(keys, values, strict=True)}
        for stand_in in _RUN_TIME_VALUES
    ]


def ignored_answers(callback: Callback, contract: Contract) -> list[str]:
    """Each literal answer of ``callback`` that ``contract``'s selection ignores, as a
    message naming the answer, where it is, why it is ignored and the fix; empty when
    the source cannot be read or every answer counts."""
    function = inspect.unwrap(callback.function)
    try:
        lines, first = inspect.getsourcelines(function)
        where = inspect.getsourcefile(function) or "<unknown file>"
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return []  # built at run time, a C function, or a lambda amid other code
    select = AGGREGATORS[contract.selection]
    found: list[str] = []
    for expr in _answers(tree):
        variants = _variants(expr)
        if not variants or variants == [None]:
            continue
        reasons = [select(contract, {}).add(callback, value)[1] for value in variants]
        reason = reasons[0]
        if not (isinstance(reason, Ignored) and all(type(r) is Ignored for r in reasons)):
            continue
        line = first + expr.lineno - 1 if first else expr.lineno
        found.append(
            f"{contract.name} callback {callback.name} returns {ast.unparse(expr)} "
            f"({where}:{line}): {reason}, so the guarded action goes ahead. Fix: {reason.fix}"
        )
    return found
