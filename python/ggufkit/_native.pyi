"""Type stubs of the native module (the PyO3 binding of the ggufkit library)."""

from os import PathLike
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Source = Union[str, "PathLike[str]", bytes, bytearray, memoryview]
_Path = Union[str, "PathLike[str]"]

class Finding:
    """One broken rule (error) or remark (warning)."""

    rule: str
    offset: int
    message: str
    def __init__(self, rule: str, offset: int, message: str) -> None: ...

class AuditFinding:
    """One finding of the audit: rule id, severity ("error", "warning", "note"), the key or
    tensor and its byte offset, the line and column inside a template (None otherwise)."""

    rule: str
    severity: str
    subject: str
    offset: int
    line: Optional[int]
    column: Optional[int]
    message: str

class Report:
    """The verdicts and findings of a check."""

    valid: bool
    ggml_compatible: bool
    errors: List[Finding]
    warnings: List[Finding]
    omitted: int
    def __bool__(self) -> bool: ...

class StringArray(Sequence[str]):
    """A metadata array of strings, decoded as they are read."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> List[str]: ...
    def __iter__(self) -> Iterator[str]: ...
    def __contains__(self, s: object) -> bool: ...
    def tolist(self) -> List[str]: ...

class Field:
    """One metadata pair."""

    key: str
    type: str
    element_type: Optional[str]
    offset: int
    value: Any

class Tensor:
    """One tensor of an opened file; it keeps the file alive."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def type_id(self) -> int: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def n_elements(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def data_offset(self) -> int: ...
    @property
    def raw(self) -> npt.NDArray[np.uint8]: ...
    def numpy(self, *, out: np.ndarray | None = None, copy: bool | None = True) -> np.ndarray:
        """The values (float32; integer tensors keep their dtype), shape reversed like
        ``gguf export``. ``out``: decode into this C-contiguous array of the result's dtype and
        shape, and return it. ``copy=None``: a read-only view of the map where the stored bytes
        already are the values (f32 and integer tensors in the machine's byte order), else a new
        array; ``copy=False``: that view or ``ValueError``."""
        ...

class File:
    """An opened GGUF (a context manager)."""

    @property
    def version(self) -> int: ...
    @property
    def endian(self) -> str: ...
    @property
    def alignment(self) -> int: ...
    @property
    def tensor_data_offset(self) -> int: ...
    @property
    def file_size(self) -> int: ...
    @property
    def cost(self) -> Optional[Dict[str, int]]:
        """What reading a remote file cost so far: ``{"bytes": N, "requests": M}`` (body bytes
        received, HTTP requests sent, retries included), the header and every tensor fetched
        since; the ``"remote"`` member of ``gguf --json``. None for a local file or bytes."""
        ...
    @property
    def architecture(self) -> Optional[str]: ...
    @property
    def name(self) -> str: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...
    @property
    def tensors(self) -> Tuple[Tensor, ...]: ...
    @property
    def closed(self) -> bool: ...
    def field(self, key: str) -> Field: ...
    def tensor(self, name: str) -> Tensor: ...
    def summary(self) -> dict: ...
    def report(self) -> Report: ...
    @property
    def tokenizer(self) -> "Tokenizer": ...
    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        add_generation_prompt: bool = False,
        template: Optional[str] = None,
        **kwargs: Any,
    ) -> str:
        """The conversation rendered with the file's chat template exactly as transformers'
        ``apply_chat_template(messages, tools=..., add_generation_prompt=..., tokenize=False,
        **kwargs)``: ``template`` names ``tokenizer.chat_template.NAME`` (default ``tool_use`` when
        tools are given and the file has it, else ``tokenizer.chat_template``); ``kwargs`` are
        further variables (``enable_thinking=False``, ``documents=[...]``). Raises
        ``ggufkit.TemplateError`` (``.message`` is the template's own for ``raise_exception``) and
        ``ValueError`` for an empty conversation."""
    def close(self) -> None: ...
    def __enter__(self) -> "File": ...
    def __exit__(self, *args: object) -> bool: ...
    def _keys(self) -> List[str]: ...
    def _len(self) -> int: ...
    def _get(self, key: str) -> Any: ...
    def _contains(self, key: str) -> bool: ...
    def _tensor_shapes(self) -> Tuple[bytes, int, List[int]]: ...
    def _reader_tensors(
        self, reader: Any, types: List[Any], make_type: Any, shapes: List[Any]
    ) -> Tuple[List[ReaderTensor], List[int]]: ...

class Tokenizer:
    """A GGUF's own tokenizer: ``encode`` and ``decode`` give llama.cpp's ids and text
    (``llama_tokenize`` and ``llama_detokenize``). It keeps its file's bytes alive."""

    @staticmethod
    def from_file(source: Union[_Path, str]) -> "Tokenizer":
        """The tokenizer of a GGUF at a path or an http(s)/s3/gs/az URL (the header only)."""
    def encode(
        self, text: Union[str, bytes], add_special: bool = True, parse_special: bool = False
    ) -> npt.NDArray[np.int32]:
        """Token ids as ``llama_tokenize(text, add_special, parse_special)``; bytes must be UTF-8."""
    def encode_batch(
        self,
        texts: "Iterable[Union[str, bytes]]",
        add_special: bool = True,
        parse_special: bool = False,
    ) -> List[npt.NDArray[np.int32]]:
        """``encode`` of each text, on every core with the GIL released."""
    def count(
        self, text: Union[str, bytes], add_special: bool = True, parse_special: bool = False
    ) -> int:
        """The number of tokens ``encode`` would give."""
    def decode(
        self, ids: "Iterable[int]", remove_special: bool = False, unparse_special: bool = False
    ) -> str:
        """The text as ``llama_detokenize``; bytes that are not UTF-8 become U+FFFD."""
    def decode_bytes(
        self, ids: "Iterable[int]", remove_special: bool = False, unparse_special: bool = False
    ) -> bytes:
        """``decode``'s bytes exactly, as llama.cpp writes them."""
    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        add_generation_prompt: bool = False,
        template: Optional[str] = None,
        **kwargs: Any,
    ) -> str:
        """The conversation rendered with this tokenizer's file's chat template exactly as transformers'
        ``apply_chat_template(messages, tools=..., add_generation_prompt=..., tokenize=False,
        **kwargs)``: ``template`` names ``tokenizer.chat_template.NAME`` (default ``tool_use`` when
        tools are given and the file has it, else ``tokenizer.chat_template``); ``kwargs`` are
        further variables (``enable_thinking=False``, ``documents=[...]``). Raises
        ``ggufkit.TemplateError`` (``.message`` is the template's own for ``raise_exception``) and
        ``ValueError`` for an empty conversation."""
    @property
    def vocab_size(self) -> int: ...
    @property
    def bos_id(self) -> Optional[int]: ...
    @property
    def eos_id(self) -> Optional[int]: ...
    @property
    def model(self) -> str: ...
    @property
    def pre(self) -> str: ...

class ReaderTensor:
    """A tensor of ``ggufkit.compat.GGUFReader``, as gguf-py's ``ReaderTensor``."""

    _fields: Tuple[str, ...]
    name: str
    tensor_type: Any
    shape: npt.NDArray[np.uint64]
    n_elements: int
    n_bytes: int
    data_offset: int
    @property
    def data(self) -> npt.NDArray[Any]: ...
    @property
    def field(self) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...

class Writer:
    """Writes a new GGUF atomically on close()."""

    def __init__(self, path: _Path, alignment: int = 32, endian: str = "little") -> None: ...
    def add(self, key: str, value: Any, type: Optional[str] = None) -> None: ...
    def add_tensor(
        self,
        name: str,
        array: Optional[npt.ArrayLike] = None,
        *,
        raw: Optional[Union[bytes, npt.NDArray[np.uint8]]] = None,
        type: Optional[str] = None,
        shape: Optional[Sequence[int]] = None,
    ) -> None: ...
    def close(self) -> None: ...
    def discard(self) -> None: ...
    def __enter__(self) -> "Writer": ...
    def __exit__(self, *args: object) -> bool: ...

def open(source: _Source, *, permissive: bool = False) -> File: ...
def apply_chat_template(
    source: Union[File, Tokenizer, _Path, str],
    messages: Sequence[Mapping[str, Any]],
    tools: Optional[Sequence[Mapping[str, Any]]] = None,
    add_generation_prompt: bool = False,
    template: Optional[str] = None,
    **kwargs: Any,
) -> str:
    """``File.apply_chat_template`` of a ``File``, a ``Tokenizer``'s file, or the GGUF at a path
    or URL (its header only)."""
def validate(source: Union[_Path, bytes, bytearray]) -> Report: ...
def audit(
    source: Union[_Source, File], *, severity: str = "warning"
) -> List[AuditFinding]: ...
def quantize(x: npt.ArrayLike, type: str) -> npt.NDArray[np.uint8]: ...
def dequantize(
    raw: Union[bytes, npt.NDArray[np.uint8]], type: str, shape: Optional[Sequence[int]] = None
) -> npt.NDArray[np.float32]: ...
def edit(
    path: _Path,
    set: Optional[Mapping[str, Any]] = None,
    remove: Optional[Sequence[str]] = None,
    output: Optional[_Path] = None,
    *,
    types: Optional[Mapping[str, str]] = None,
    overwrite: bool = True,
) -> str: ...
def convert(
    hf_dir: _Path,
    output: _Path,
    outtype: str = "auto",
    preset: Optional[str] = None,
    imatrix: Optional[_Path] = None,
    *,
    model_name: Optional[str] = None,
    metadata: Optional[_Path] = None,
    vocab_only: bool = False,
    split_max_size: Union[int, str, None] = None,
    split_max_tensors: int = 0,
    no_tensor_first_split: bool = False,
    pure: bool = False,
    leave_output_tensor: bool = False,
    output_tensor_type: Optional[str] = None,
    token_embedding_type: Optional[str] = None,
    tensor_types: Optional[Sequence[str]] = None,
    include_weights: Optional[Sequence[str]] = None,
    exclude_weights: Optional[Sequence[str]] = None,
    threads: Optional[int] = None,
    overwrite: bool = True,
) -> str:
    """The Hugging Face checkpoint folder ``hf_dir`` converted to ``output`` as
    convert_hf_to_gguf.py ``--outtype`` converts it, byte for byte; with ``preset`` quantized as
    llama-quantize quantizes that file, in one pass without an intermediate file (``imatrix`` and
    the keyword options as llama-quantize's ``--imatrix``, ``--pure``, ``--leave-output-tensor``,
    ``--output-tensor-type``, ``--token-embedding-type``, ``--tensor-type PATTERN=TYPE``,
    ``--include-weights``, ``--exclude-weights``). ``split_max_size`` (bytes, or the script's
    ``"500M"``, ``"2G"``), ``split_max_tensors`` and ``no_tensor_first_split`` write the
    conversion in shards as the script's options do (``model.gguf`` becomes
    ``model-00001-of-0000N.gguf``, ... beside it; not with a preset). Returns the path written (a
    split output's first shard). A folder it cannot
    convert raises ``GGUFError`` naming the file and key; nothing is written."""
    ...
def value_dtypes() -> List[Tuple[int, str]]:
    """The numpy type code of every fixed-size value type, by type id (the library's one map)."""
    ...
_Part = Tuple[int, int, int, bool]  # offset, value type id, count, is a data part
def kv_parts(file: File, offset: int) -> Tuple[List[_Part], List[int]]:
    """Every part of the pair at byte ``offset`` as gguf-py splits a field (from the library's
    spans and its walk of the value), and the field's types by id."""
    ...
def array_head(file: File, offset: int) -> Tuple[List[_Part], int]:
    """The five head parts of the array pair at byte ``offset`` and its first element's offset."""
    ...
def string_parts(file: File, offset: int) -> npt.NDArray[np.uint64]:
    """One row per string of the string-array pair at byte ``offset``: the length field's
    offset, the bytes' offset, the byte count."""
    ...
def info_parts(file: File, index: int) -> List[_Part]:
    """The six parts of tensor info ``index`` (name length, name, dimension count, dimensions,
    type, offset)."""
    ...
def header_parts() -> List[_Part]:
    """The version, tensor count and key-value count as parts."""
    ...
def scan(
    locations: Sequence[str],
    jobs: Optional[int] = None,
    full_arrays: bool = False,
    full_audit: bool = False,
) -> Mapping[str, Tuple[List[Tuple[str, str, bool]], List[List[Any]]]]:
    """The library's scan of ``locations``: each table as ``(columns, values)``, ``columns`` a list
    of ``(name, kind, nullable)`` and ``values`` one list per column (``ggufkit.scan`` makes them
    ``pyarrow.Table``s)."""
    ...
