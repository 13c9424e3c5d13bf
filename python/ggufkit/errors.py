"""The exceptions of ggufkit.

``GGUFError`` is the base of every error about a GGUF that is not an I/O failure (those are
``OSError``). ``TemplateError`` is a chat template that cannot be rendered. ``FormatError`` is a broken rule of the format: it carries the rule id (as in the CLI
contract), the byte offset of the offending field and the message, and is also a ``ValueError``.
"""

from __future__ import annotations

from typing import Optional


class GGUFError(Exception):
    """An error about a GGUF file: its message names the file."""


class FormatError(GGUFError, ValueError):
    """A rule of the format broken: ``.rule``, ``.offset`` and ``.message`` say which, where and
    what; ``str(e)`` is one line naming the file too."""

    rule: Optional[str]
    offset: Optional[int]
    message: str

    def __init__(
        self,
        line: str,
        rule: Optional[str] = None,
        offset: Optional[int] = None,
        message: Optional[str] = None,
    ) -> None:
        super().__init__(line)
        self.rule = rule
        self.offset = offset
        self.message = line if message is None else message

    def __reduce__(self):  # picklable, e.g. across multiprocessing
        return (type(self), (str(self), self.rule, self.offset, self.message))


class TemplateError(GGUFError, ValueError):
    """A chat template that cannot be rendered: ``.message`` is the template's own message when it
    called ``raise_exception(...)`` (what transformers raises as ``jinja2.TemplateError``), else
    what failed; ``.kind`` is ``"raised"``, ``"render"``, ``"syntax"``, ``"limit"`` (the sandbox's
    work or recursion budget), ``"refused"`` (a template the audit flags as reaching for Python's
    internals) or ``"missing"`` (no such template in the file); ``str(e)`` is one
    line naming the file too."""

    message: str
    kind: str

    def __init__(self, line: str, message: Optional[str] = None, kind: str = "render") -> None:
        super().__init__(line)
        self.message = line if message is None else message
        self.kind = kind

    def __reduce__(self):
        return (type(self), (str(self), self.message, self.kind))
