"""The static value of one bash word, or ``None`` when bash would expand it.

A word's value is known statically when nothing in it is expanded at run time: quote
removal and backslash escapes are applied here, ``$'…'`` escapes are decoded, and any
parameter, command, arithmetic, brace, tilde or pathname expansion makes the word
unknown (``None``).  The command analysis relies on this to say which program a simple
command runs; an unknown command name means the program cannot be proved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["decode_ansi_c", "static_value"]

#: Unquoted characters that start an expansion (pathname, brace, extglob, parameter,
#: command) or that a ``word`` node should never hold: such a word is not static.
_EXPANDING = frozenset("*?[]$`'\"()<>|;&")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")


def static_value(node: Node) -> str | None:
    """The value bash gives ``node`` (a word-like node) after quote removal, or None
    when part of it is expanded at run time."""
    pieces = _pieces(node)
    if pieces is None or _has_brace_expansion(pieces):
        return None
    return "".join(text for text, _ in pieces)


_Pieces = list[tuple[str, bool]]


def _pieces(node: Node) -> _Pieces | None:
    """The characters of ``node``'s value, each with whether it was quoted (escaped)."""
    kind = node.type
    raw = _text(node)
    if kind in ("word", "number"):
        return _unquoted(raw)
    if kind == "raw_string":
        if len(raw) < 2 or raw[0] != "'" or raw[-1] != "'":
            return None
        return [(raw[1:-1], True)]
    if kind == "string":
        if any(child.is_named and child.type != "string_content" for child in node.children):
            return None
        value = _double_quoted(raw)
        return None if value is None else [(value, True)]
    if kind == "ansi_c_string":
        if len(raw) < 3 or not raw.startswith("$'") or not raw.endswith("'"):
            return None
        value = decode_ansi_c(raw[2:-1])
        return None if value is None else [(value, True)]
    if kind == "concatenation":
        out: _Pieces = []
        end = node.start_byte
        for child in node.children:
            # Adjacent pieces only: a gap or an anonymous token is something this
            # reading does not model.
            if child.start_byte != end or not child.is_named:
                return None
            part = _pieces(child)
            if part is None:
                return None
            out.extend(part)
            end = child.end_byte
        return out if end == node.end_byte else None
    return None


def _has_brace_expansion(pieces: _Pieces) -> bool:
    """Whether an unquoted ``{`` is closed by an unquoted ``}`` with text between: bash
    may expand it (``{rm,x}``, ``{1..3}``); an empty ``{}`` is left as it is."""
    unquoted = "".join(text if not quoted else "\0" * len(text) for text, quoted in pieces)
    opening = unquoted.find("{")
    while opening != -1:
        closing = unquoted.find("}", opening + 1)
        if closing == -1:
            return False
        if closing > opening + 1:
            return True
        opening = unquoted.find("{", closing + 1)
    return False


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "surrogateescape") if raw is not None else ""


def _unquoted(raw: str) -> _Pieces | None:
    """An unquoted word: backslash escapes removed; None when it expands."""
    out: _Pieces = []
    index = 0
    if raw.startswith("~"):  # tilde expansion
        return None
    while index < len(raw):
        char = raw[index]
        if char == "\\":
            if index + 1 >= len(raw):
                return None
            following = raw[index + 1]
            if following != "\n":  # a backslash-newline is a line continuation
                out.append((following, True))
            index += 2
            continue
        if char in _EXPANDING or char.isspace():
            return None
        out.append((char, False))
        index += 1
    return out


def _double_quoted(raw: str) -> str | None:
    """A ``"…"`` word with no expansion in it: the escapes bash honours there removed."""
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return None
    inner, out, index = raw[1:-1], [], 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" and index + 1 < len(inner) and inner[index + 1] in '$`"\\\n':
            if inner[index + 1] != "\n":
                out.append(inner[index + 1])
            index += 2
            continue
        if char in "$`":
            return None
        out.append(char)
        index += 1
    return "".join(out)


def decode_ansi_c(body: str) -> str | None:
    """The text of a ``$'…'`` string's body, escapes decoded as bash does; None for an
    escape this reading does not know (the word is then unknown)."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(body):
            return None
        code = body[index + 1]
        index += 2
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
        elif code in _OCTAL:
            digits = code
            while len(digits) < 3 and index < len(body) and body[index] in _OCTAL:
                digits += body[index]
                index += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = ""
            while len(digits) < width and index < len(body) and body[index] in _HEX:
                digits += body[index]
                index += 1
            if not digits or int(digits, 16) > 0x10FFFF:
                return None
            out.append(chr(int(digits, 16)))
        else:  # \cX and anything rarer: not modelled
            return None
    text = "".join(out)
    return None if "\x00" in text else text  # bash cuts the word at a NUL
