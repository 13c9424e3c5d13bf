"""The exceptions of ggufkit.

``GGUFError`` is the base of every error about a GGUF that is not an I/O failure (those are
``OSError``). ``FormatError`` is a broken rule of the format: it carries the rule id (as in the CLI
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
