"""Which programs a bash command line can run, read with a real bash grammar.

:func:`commands_run` parses the command with tree-sitter-bash and returns every simple
command in it, wherever it stands: in a list or pipeline, a subshell or group, an
``if``/``case``/``while``/``for`` body, a function body, a command or process
substitution, a here-document.  Each comes with its words after quote removal, and
again for what it runs through a wrapper (``sudo``, ``env``, ``bash -c``, ``eval``,
``find -exec``, ``xargs`` and the others in :mod:`bash_wrappers`).

The answer is a proof or nothing: ``None`` means the command may run a program this
reading cannot name, and a caller deciding whether a gate applies must then assume it
does.  That is the answer for a parse error, a construct the grammar or this module
does not know, an expansion or brace/pathname pattern in command position, code kept
for later (arithmetic on variables, prompt and startup variables, a literal holding
``$(…)`` or backquotes, which bash may evaluate), a character the parser cannot take
safely, and any failure of the analysis itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_hooks._log import get_logger
from hermes_hooks.claude.bash_words import static_value
from hermes_hooks.claude.bash_wrappers import inner, is_code_variable

try:
    import tree_sitter_bash
    from tree_sitter import Language, Node, Parser

    _LANGUAGE: Language | None = Language(tree_sitter_bash.language())
except Exception:  # missing or incompatible: every command is then unknown (fail safe)
    _LANGUAGE = None

__all__ = ["SimpleCommand", "commands_run"]

log = get_logger("hermes_hooks.shell")

#: How deep ``bash -c``/``eval``/wrappers may nest before the command counts as unknown.
MAX_DEPTH = 12

#: Named nodes of the grammar this module understands; any other is unknown.
_KNOWN = frozenset(
    {
        "program", "list", "pipeline", "negated_command", "redirected_statement",
        "subshell", "compound_statement", "if_statement", "elif_clause", "else_clause",
        "while_statement", "for_statement", "c_style_for_statement", "do_group",
        "case_statement", "case_item", "function_definition", "command", "command_name",
        "command_substitution", "process_substitution", "comment", "heredoc_redirect",
        "heredoc_start", "heredoc_end", "heredoc_body", "heredoc_content",
        "herestring_redirect", "file_redirect", "file_descriptor", "variable_assignment",
        "variable_assignments", "variable_name", "special_variable_name",
        "simple_expansion", "expansion", "string", "string_content", "raw_string",
        "ansi_c_string", "translated_string", "concatenation", "word", "number", "array",
        "test_command", "test_operator", "binary_expression", "unary_expression",
        "parenthesized_expression", "ternary_expression", "postfix_expression", "regex",
        "extglob_pattern", "declaration_command", "unset_command", "subscript",
        "arithmetic_expansion", "brace_expression",
    }
)  # fmt: skip
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_LITERALS = frozenset(
    {"word", "string_content", "raw_string", "heredoc_body", "heredoc_content", "ansi_c_string"}
)
#: Nodes allowed inside an arithmetic context that reads no variable.
_PLAIN_ARITHMETIC = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression"}
    | {"ternary_expression"}
)
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
#: Characters beyond the Basic Multilingual Plane: tree-sitter-bash 0.25 was seen to
#: crash the process (SIGSEGV) on them, after a ``{``; a command holding one is not
#: parsed and counts as unknown.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
#: A backslash-newline between two non-blank characters: bash joins them into one
#: token (``r\<newline>m`` is ``rm``) where the grammar sees two words.
_JOINED_LINE = re.compile(r"\S(?:\\\n)+\S")

_warned = False


@dataclass(frozen=True)
class SimpleCommand:
    """One program a command line can run: its words after quote removal, program
    first; ``open`` when more words may follow at run time (an expanded argument, the
    arguments ``xargs`` or ``find -exec`` add)."""

    words: tuple[str, ...]
    open: bool = False


class _Unknown(Exception):
    """The command may run something this reading cannot name."""


def commands_run(command: str) -> list[SimpleCommand] | None:
    """Every simple command ``command`` can run, or None when that cannot be proved
    (never raises: any failure of the analysis is None)."""
    try:
        return _Analysis().run(command, 0)
    except _Unknown:
        return None
    except Exception:  # a fault here must never let a command past a gate
        log.error(
            "the bash command analysis failed on %r; the if: rule matches it",
            command[:200],
            exc_info=True,
        )
        return None


def _parser() -> Parser:
    """A new parser for each parse: a reused tree-sitter parser was seen to crash the
    process after some inputs (invalid UTF-8), and a new one costs microseconds."""
    if _LANGUAGE is None:
        global _warned
        if not _warned:
            _warned = True
            log.warning(
                "tree-sitter-bash is not usable here, so every Bash(...) if: rule matches "
                "every command; reinstall hermes-hooks with its dependencies"
            )
        raise _Unknown
    return Parser(_LANGUAGE)


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "surrogateescape") if raw is not None else ""


class _Analysis:
    """One analysis; raises :class:`_Unknown` as soon as a program cannot be named."""

    def __init__(self) -> None:
        self.found: list[SimpleCommand] = []

    def run(self, source: str, depth: int) -> list[SimpleCommand]:
        if depth > MAX_DEPTH:
            raise _Unknown
        if _JOINED_LINE.search(source) or _ASTRAL.search(source):
            raise _Unknown
        try:
            data = source.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no text bash could be given
            raise _Unknown from None
        tree = _parser().parse(data)
        root = tree.root_node
        if root.has_error:
            raise _Unknown
        stack = [root]
        while stack:
            node = stack.pop()
            self._visit(node, depth)
            if node.type != "comment":
                stack.extend(reversed(node.children))
        return self.found

    def _visit(self, node: Node, depth: int) -> None:
        kind = node.type
        if node.is_missing or kind == "ERROR":
            raise _Unknown
        if not node.is_named:  # punctuation and keywords
            return
        if kind not in _KNOWN:
            raise _Unknown
        if kind in ("arithmetic_expansion", "c_style_for_statement") or (
            kind == "compound_statement" and node.child_count and node.children[0].type == "(("
        ):
            self._arithmetic(node)
        elif kind == "test_command":
            if any(_text(n) in _ARITHMETIC_TESTS for n in _descendants(node)):
                raise _Unknown  # [[ a -eq b ]] evaluates variables' values as arithmetic
        elif kind == "subscript":
            index = node.child_by_field_name("index")
            if index is None or index.type != "number":
                raise _Unknown  # an array index is arithmetic on what it names
        elif kind == "expansion":
            self._expansion(node)
        elif kind == "variable_assignment":
            name = node.child_by_field_name("name")
            if name is not None and is_code_variable(_text(name)):
                raise _Unknown
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node)
        elif kind == "command":
            self._command(node, depth)
        if kind in _LITERALS:
            self._literal(node, depth)

    def _arithmetic(self, node: Node) -> None:
        """Arithmetic that reads a variable evaluates the variable's value, which may
        hold a command substitution in an array index: only numbers are proved safe."""
        for child in _descendants(node):
            if child.is_named and child.type not in _PLAIN_ARITHMETIC:
                raise _Unknown

    def _expansion(self, node: Node) -> None:
        """``${x:offset:length}``: the offsets are arithmetic."""
        after_colon = False
        for child in node.children:
            if not child.is_named and child.type == ":":
                after_colon = True
            elif after_colon and child.is_named and child.type != "number":
                raise _Unknown

    def _declaration(self, node: Node) -> None:
        """``declare -i`` makes later assignments arithmetic; a name or option that is
        an expansion could be anything (an array index with code in it)."""
        for child in node.children:
            if not child.is_named or child.type in ("variable_assignment", "variable_name"):
                continue
            value = static_value(child)
            if value is None or (value.startswith(("-", "+")) and "i" in value):
                raise _Unknown
            if is_code_variable(value.split("=", 1)[0]):
                raise _Unknown

    def _literal(self, node: Node, depth: int) -> None:
        """Text that bash could evaluate later (a prompt, an array index, an unquoted
        here-document's backquotes) is read as code too."""
        if node.named_child_count:
            return
        value = static_value(node) if node.type not in ("heredoc_body", "heredoc_content") else None
        text = value if value is not None else _text(node)
        if "$(" in text or "`" in text:
            self.found.extend(_Analysis().run(text, depth + 1))

    def _command(self, node: Node, depth: int) -> None:
        words: list[str] = []
        open_ = False
        named = False
        for child in node.children:
            kind = child.type
            if not child.is_named or kind in _REDIRECTS or kind == "comment":
                continue
            if kind in ("variable_assignment", "variable_assignments"):
                if named:
                    raise _Unknown  # not a shape bash produces
                continue
            if kind == "command_name":
                parts = child.named_children
                name = static_value(parts[0]) if len(parts) == 1 else None
                if name is None or not name:
                    raise _Unknown  # the program is an expansion
                words.append(name)
                named = True
                continue
            if not named:
                raise _Unknown
            if open_:
                continue
            value = static_value(child)
            if value is None:
                open_ = True  # the rest of the words are known only at run time
            else:
                words.append(value)
        if words:
            self._expand(words, open_, depth)

    def _expand(self, words: list[str], open_: bool, depth: int) -> None:
        """Record ``words`` and what they run through a wrapper, recursively."""
        if depth > MAX_DEPTH or not words[0]:
            raise _Unknown  # too deep, or an empty program name (as in the parse)
        self.found.append(SimpleCommand(tuple(words), open_))
        program = words[0].rsplit("/", 1)[-1]
        if program != words[0]:
            if not program:
                return
            words = [program, *words[1:]]
            self.found.append(SimpleCommand(tuple(words), open_))
        runs = inner(words, open_)
        if runs is None:
            raise _Unknown
        for command, more in runs.commands:
            if command:
                self._expand(command, more, depth + 1)
        for script in runs.scripts:
            self.found.extend(_Analysis().run(script, depth + 1))


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        out.append(child)
        stack.extend(child.children)
    return out
