"""ggufkit: a zero-copy, fully validated reader and writer of GGUF, the model file format of ggml
and llama.cpp.

>>> import ggufkit
>>> f = ggufkit.open("model.gguf")            # doctest: +SKIP
>>> f.metadata["tokenizer.ggml.tokens"][:3]   # doctest: +SKIP
>>> f.tensor("token_embd.weight").numpy()     # doctest: +SKIP

The surface is fixed by ``docs/python-api.md`` of the ggufkit project; the work is done by the
Rust library, so answers are the ``gguf`` command line's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Iterator

from . import _native
from ._native import (
    AuditFinding,
    Field,
    File,
    Finding,
    Report,
    StringArray,
    Tensor,
    Tokenizer,
    Writer,
    apply_chat_template,
    audit,
    convert,
    dequantize,
    edit,
    quantize,
    validate,
)
from .errors import FormatError, GGUFError, TemplateError
from ._scan import ScanTables, scan, scan_batch, scan_columns

__version__ = _native.__version__

__all__ = [
    "open",
    "validate",
    "audit",
    "quantize",
    "dequantize",
    "edit",
    "convert",
    "scan",
    "scan_batch",
    "scan_columns",
    "ScanTables",
    "File",
    "Field",
    "Tensor",
    "Tokenizer",
    "StringArray",
    "Metadata",
    "Report",
    "Finding",
    "AuditFinding",
    "Writer",
    "GGUFError",
    "FormatError",
    "TemplateError",
    "apply_chat_template",
]

Sequence.register(StringArray)


class Metadata(Mapping):
    """The metadata of a file: a read-only mapping of key to value, in file order. Values are
    converted when they are read: numeric arrays are read-only numpy views of the file, string
    arrays lazy ``StringArray`` sequences."""

    __slots__ = ("_file",)

    def __init__(self, file: File) -> None:
        self._file = file

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str):
            raise KeyError(key)
        return self._file._get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._file._keys())

    def __len__(self) -> int:
        return self._file._len()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._file._contains(key)

    def __repr__(self) -> str:
        return f"<ggufkit.Metadata of {self._file.name!r}: {len(self)} keys>"


def _metadata(self: File) -> Metadata:
    return Metadata(self)


File.metadata = property(_metadata, doc=Metadata.__doc__)  # type: ignore[attr-defined]


def open(source: Any, *, permissive: bool = False) -> File:  # noqa: A001 - the documented name
    """Opens a GGUF: a path (memory-mapped), bytes/bytearray/memoryview, or an http(s)/s3/gs/az
    URL (the header by range requests). Only the header is read.

    With ``permissive=True``, files that ggml would load open even when the spec rejects them;
    ``File.report()`` says what is wrong. Raises ``FormatError`` for a file that breaks a rule,
    ``OSError`` when it cannot be read."""
    return _native.open(source, permissive=permissive)


open.__module__ = __name__
