"""A user's regular expression, matched in bounded time with the answers of ``re``.

A ``matcher:`` is written by a user and run on every tool call, and Python's ``re``
backtracks: ``(\\w+)+_danger`` on a 34-character name takes longer than the agent
lives, and nothing can interrupt ``re`` once it runs.  :class:`UserRegex` answers
every question in bounded time, and with exactly what ``re`` would say whenever an
answer comes at all:

* **RE2** (the ``google-re2`` package), which runs in time linear in the name, answers
  when its answer provably equals ``re``'s: the expression is one both engines read
  the same way (no ``{,n}``, no ``[:`` inside a set, nothing RE2 refuses such as a
  back-reference or a look-around), and, when the expression depends on what counts as
  a letter, a digit, a space, a case or a line end (``\\w``, ``\\b``, ``(?i)``, ``$``),
  the name is plain printable ASCII, where the two engines agree on all of those.
* **``re`` in a child process** answers everything else (a look-around, a
  back-reference, a non-ASCII name): the real ``re`` of this Python, so the answer is
  exactly ``re``'s, stopped after :data:`MATCH_SECONDS` per name.  Answers are cached
  per expression, so a firing pays for the child once per tool name.
* A name the child could not finish on has no answer (``None``).  :meth:`UserRegex.decide`
  turns that into the caller's choice (a gate runs its hook; anything else does not)
  and logs one WARNING per expression.

Without ``google-re2`` installed, everything goes to the child: slower, still bounded
and exact.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterable
from typing import Any

try:
    import re2
except ImportError:  # pragma: no cover - a dependency; the child process still answers
    re2 = None

__all__ = ["MATCH_SECONDS", "START_SECONDS", "UserRegex"]

#: How long ``re`` may work on one name in the child before the answer is "unknown".
MATCH_SECONDS = 1.0
#: How long the child may take to start (a loaded machine starts Python slowly).
START_SECONDS = 15.0
_CACHE_LIMIT = 512
_UNASKED = object()
_CHILD = (
    "import json,re,sys\n"
    "q=json.loads(sys.stdin.readline())\n"
    "p=re.compile(q['pattern'],q['flags'])\n"
    "t=p.search if q['search'] else p.fullmatch\n"
    "print('ready',flush=True)\n"
    "for s in q['names']:\n"
    "    print(1 if t(s) else 0,flush=True)\n"
)
#: Escapes whose meaning depends on Unicode tables or line ends: ``re`` and RE2 agree on
#: them only for printable ASCII names.
_UNICODE_ESCAPES = frozenset("wWdDsSbB")


class UserRegex:
    """A user's expression, compiled by ``re`` (which raises for an invalid one, as
    ``re.compile`` does), matched with :meth:`fullmatch` or :meth:`search` semantics."""

    __slots__ = ("_cache", "_lock", "_re2", "_sensitive", "_warned", "flags", "regex", "search")

    def __init__(self, pattern: str, flags: int = 0, *, search: bool = False) -> None:
        #: ``re``'s compiled expression: its syntax, and the semantics every answer has.
        self.regex = re.compile(pattern, flags)
        self.flags = flags
        #: True: the expression may match anywhere in the name (``re.search``); False:
        #: it must match the whole name (``re.fullmatch``).
        self.search = search
        self._sensitive = _depends_on_unicode(pattern, flags)
        self._re2 = _compile_re2(pattern, flags)
        self._cache: dict[str, bool | None] = {}
        self._lock = threading.Lock()
        self._warned = False

    @property
    def pattern(self) -> str:
        """The expression as written."""
        return self.regex.pattern

    def __repr__(self) -> str:
        return f"UserRegex({self.pattern!r}, search={self.search})"

    def test(self, name: str) -> bool | None:
        """Whether ``name`` matches, as ``re`` says; None when no answer came in time."""
        # The per-firing path: a cached answer or RE2's, without the batch's bookkeeping
        # (one dict read is safe without the lock).
        cached = self._cache.get(name, _UNASKED)
        if cached is not _UNASKED:
            return cached  # type: ignore[return-value]
        fast = self._linear(name)
        if fast is not None:
            return fast
        return self.test_all([name])[0]

    def test_all(self, names: Iterable[str]) -> list[bool | None]:
        """:meth:`test` for several names at once (one child process for all of those
        RE2 cannot answer)."""
        names = list(names)
        answers: dict[str, bool | None] = {}
        pending: list[str] = []
        with self._lock:
            cached = {n: self._cache[n] for n in names if n in self._cache}
        for name in dict.fromkeys(names):
            if name in cached:
                answers[name] = cached[name]
                continue
            fast = self._linear(name)
            if fast is None:
                pending.append(name)
            else:
                answers[name] = fast
        if pending:
            # Shortest first: a name ``re`` cannot finish is most likely a long one, and
            # every name after it in the child's queue goes unanswered.
            pending.sort(key=len)
            slow, finished = _ask_child(self.pattern, self.flags, self.search, pending)
            answers.update(zip(pending, slow, strict=True))
            # An unknown answer is kept only when ``re`` really ran out of time on the
            # name, never when the child could not start: that may pass.
            answers_to_keep = {
                n: a for n, a in zip(pending, slow, strict=True) if a is not None or finished
            }
            with self._lock:
                if len(self._cache) + len(answers_to_keep) > _CACHE_LIMIT:
                    self._cache.clear()
                self._cache.update(answers_to_keep)
        return [answers[name] for name in names]

    def decide(self, name: str, *, gate: bool, where: str, log: logging.Logger) -> bool:
        """Whether ``name`` matches; when no answer comes in time, ``gate`` decides (a
        hook that can block runs, as it does whenever it is unclear whether it
        applies; any other hook does not) and one WARNING per expression says so,
        naming ``where`` (the file and the entry)."""
        answer = self.test(name)
        if answer is not None:
            return answer
        with self._lock:
            first, self._warned = not self._warned, True
        if first:
            log.warning(
                "%s: matcher %r could not be matched against %r within %gs (the expression "
                "backtracks without end on such names); %s. Fix: rewrite it without a "
                "repetition inside a repetition, e.g. '\\w+_danger' for '(\\w+)+_danger'",
                where,
                self.pattern,
                name,
                MATCH_SECONDS,
                "the hook runs, as a gate does whenever it is unclear whether it applies"
                if gate
                else "the hook is skipped for such names",
            )
        return gate

    def _linear(self, name: str) -> bool | None:
        """RE2's answer when it provably equals ``re``'s, else None."""
        if self._re2 is None:
            return None
        if self._sensitive and not (name.isascii() and name.isprintable() and name):
            return None
        try:
            found = self._re2.search(name) if self.search else self._re2.fullmatch(name)
        except (UnicodeError, re2.error):  # a lone surrogate cannot be encoded for RE2
            return None
        return found is not None


def _depends_on_unicode(pattern: str, flags: int) -> bool:
    """Whether the expression's answer may depend on Unicode tables, case folding or
    line ends, on which ``re`` and RE2 differ outside printable ASCII: a class escape
    (``\\w``), a word boundary, ``$``, an inline flag group, a non-ASCII character, or
    a flag (re.IGNORECASE) passed in."""
    if flags or not pattern.isascii() or "$" in pattern or "(?" in pattern:
        # "(?" also covers non-flag groups such as (?:...): cautious, never wrong.
        return True
    escaped = False
    for char in pattern:
        if escaped:
            if char in _UNICODE_ESCAPES:
                return True
            escaped = False
        elif char == "\\":
            escaped = True
    return False


def _compile_re2(pattern: str, flags: int) -> Any:
    """The expression for RE2, or None where RE2 refuses it or would read it otherwise
    than ``re`` (``a{,2}`` is a repetition to ``re`` and literal text to RE2; ``[[:alpha:]]``
    is a POSIX class to RE2 and a set of characters to ``re``; a back-slash before a
    digit is an octal escape or a back-reference)."""
    if re2 is None or flags & ~re.IGNORECASE:
        return None
    if "{," in pattern or "[:" in pattern or re.search(r"\\[0-9]", pattern):
        return None
    options = re2.Options()
    options.log_errors = False  # a refused expression is expected, not worth a line
    if flags & re.IGNORECASE:
        options.case_sensitive = False
    try:
        return re2.compile(pattern, options)
    except Exception:  # refused, or too large for RE2's memory: the child answers instead
        return None


def _ask_child(
    pattern: str, flags: int, search: bool, names: list[str]
) -> tuple[list[bool | None], bool]:
    """``re``'s answers for ``names`` from a child process, each within
    :data:`MATCH_SECONDS` (None for a name it did not finish, and for every name
    after it), and whether the child started (False: no answer says anything about
    the expression)."""
    answers: list[bool | None] = [None] * len(names)
    request = json.dumps({"pattern": pattern, "flags": flags, "search": search, "names": names})
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
    except (OSError, ValueError):
        return answers, False
    lines: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_read_lines, args=(child, request, lines), daemon=True)
    reader.start()
    started = False
    try:
        if lines.get(timeout=START_SECONDS) != "ready":
            return answers, False
        started = True
        for i in range(len(names)):
            line = lines.get(timeout=MATCH_SECONDS)
            if line not in ("0", "1"):
                break
            answers[i] = line == "1"
    except queue.Empty:
        pass
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        reader.join()
    return answers, started


def _read_lines(child: subprocess.Popen[str], request: str, lines: queue.Queue[str | None]) -> None:
    """Send the request, then pass on each line the child prints (None at the end)."""
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(request + "\n")
        child.stdin.close()
        for line in child.stdout:
            lines.put(line.strip())
    except (OSError, ValueError):  # the child was killed or died: no more answers
        pass
    finally:
        child.stdout.close()
        lines.put(None)
