"""A drop-in for gguf-py's ``gguf.GGUFReader``, built on ggufkit and built lazily.

gguf-py makes a numpy array per field part when it opens a file (seconds for a large
vocabulary); this reader validates and indexes the header with ggufkit, answers ``contents()``
from ggufkit's zero-copy views and string arrays, and builds a field's ``parts`` (views of one
memory map of the file, with gguf-py's dtypes and byte order) only when they are touched.

One difference a script can see: a tensor's ``shape`` is a ``uint64`` array as in gguf-py, but
iterating it (``list(shape)``, ``for d in shape``) gives Python ints, not numpy scalars.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from enum import IntEnum
from typing import Any, Iterator

import numpy as np

from . import _native

__all__ = ["GGUFReader", "ReaderField", "ReaderTensor", "GGUFValueType", "GGMLQuantizationType", "GGUFEndian"]


class GGUFEndian(IntEnum):
    LITTLE = 0
    BIG = 1


class GGUFValueType(IntEnum):
    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12


class GGMLQuantizationType(IntEnum):
    """gguf-py's member names and values, plus Q2_0 (42), which gguf-py 0.19.0 lacks."""

    F32 = 0
    F16 = 1
    Q4_0 = 2
    Q4_1 = 3
    Q5_0 = 6
    Q5_1 = 7
    Q8_0 = 8
    Q8_1 = 9
    Q2_K = 10
    Q3_K = 11
    Q4_K = 12
    Q5_K = 13
    Q6_K = 14
    Q8_K = 15
    IQ2_XXS = 16
    IQ2_XS = 17
    IQ3_XXS = 18
    IQ1_S = 19
    IQ4_NL = 20
    IQ3_S = 21
    IQ2_S = 22
    IQ4_XS = 23
    I8 = 24
    I16 = 25
    I32 = 26
    I64 = 27
    F64 = 28
    IQ1_M = 29
    BF16 = 30
    TQ1_0 = 34
    TQ2_0 = 35
    MXFP4 = 39
    NVFP4 = 40
    Q1_0 = 41
    Q2_0 = 42


_T = GGUFValueType
# numpy scalar types of the fixed-size value types, from the library's one map, in gguf-py's
# order (bool last)
_SCALAR_NP = {_T(tid): np.dtype(code).type for tid, code in _native.value_dtypes()}
_SCALAR_NP[_T.BOOL] = _SCALAR_NP.pop(_T.BOOL)
_BY_NAME = {m.name.lower(): m for m in GGUFValueType}
_QUANT_BY_ID = {m.value: m for m in GGMLQuantizationType}
# numpy element types of tensor data as gguf-py gives it; other types are raw uint8 blocks
_TENSOR_NP = {0: np.float32, 1: np.float16, 28: np.float64, 24: np.int8, 25: np.int16, 26: np.int32, 27: np.int64}


class _Header:
    """The file's bytes as gguf-py sees them: one numpy memory map, read in the file's order.
    Where each part lies comes from the library (``_native.*_parts``: the spans of the fields,
    the walk of the values); this only makes the views."""

    def __init__(self, mm: np.memmap, order: str) -> None:
        self.mm = mm
        self.order = order

    def get(self, offset: int, dtype: Any, count: int = 1) -> np.ndarray:
        itemsize = np.dtype(dtype).itemsize
        arr = self.mm[offset:offset + itemsize * count].view(dtype)[:count]
        return arr.view(arr.dtype.newbyteorder(self.order))

    def part(self, p: tuple[int, int, int, bool]) -> np.ndarray:
        """The view of one part the library described: (offset, value type id, count, data)."""
        return self.get(p[0], _SCALAR_NP[p[1]], p[2])

    def split(self, described: list[tuple[int, int, int, bool]]) -> tuple[list[np.ndarray], list[int]]:
        """gguf-py's parts and data indices of a field the library split into parts."""
        return [self.part(p) for p in described], [i for i, p in enumerate(described) if p[3]]


class _Parts:
    """A field's parts, each built on first use: a lazy ``Sequence[np.ndarray]``."""

    __slots__ = ("_build", "_len", "_cache")

    def __init__(self, length: int, build: Any) -> None:
        self._len = length
        self._build = build
        self._cache: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        i = int(i)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("list index out of range")
        p = self._cache.get(i)
        if p is None:
            p = self._cache[i] = self._build(i)
        return p

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(self._len))

    def __repr__(self) -> str:
        return f"<{self._len} parts>"


class ReaderField:
    """A key-value pair (or a tensor's info) as gguf-py's ``ReaderField``: ``offset``, ``name``,
    ``parts``, ``data`` (indices of the value parts), ``types`` and ``contents()``."""

    __slots__ = ("offset", "name", "_reader", "_kind", "_parts", "_data", "_types", "_eager")
    _fields = ("offset", "name", "parts", "data", "types")

    def __init__(self, reader: GGUFReader, offset: int, name: str, kind: Any) -> None:
        self.offset = offset
        self.name = name
        self._reader = reader
        self._kind = kind  # ("kv", native Field) | ("tensor", ReaderTensor, index) | ("head", part, type)
        self._parts: Any = None
        self._data: Any = None
        self._types: Any = None
        self._eager: Any = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.offset, self.name, self.parts, self.data, self.types))

    def __len__(self) -> int:
        return 5

    def __getitem__(self, i: int) -> Any:
        return tuple(self)[i]

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def __repr__(self) -> str:
        return f"ReaderField(offset={self.offset}, name={self.name!r}, types={self.types!r})"

    # -- the parts ----------------------------------------------------------------------------
    def _flat(self) -> Any:
        """(element type, count) for a flat array of scalars or strings, else None."""
        kind, f = self._kind[0], self._kind[1]
        if kind != "kv" or f.type != "array" or f.element_type == "array":
            return None
        return _BY_NAME[f.element_type], len(f.value)

    def _walk(self) -> Any:
        """The whole split, as gguf-py builds it (nested arrays and tensor infos)."""
        if self._eager is None:
            h, f = self._reader._header, self._reader._file
            kind = self._kind[0]
            if kind == "tensor":
                parts, data = h.split(_native.info_parts(f, self._kind[2]))
                self._eager = (parts, data, [])
            elif kind == "head":
                self._eager = ([self._kind[1]], [0], [self._kind[2]])
            else:
                described, types = _native.kv_parts(f, self.offset)
                parts, data = h.split(described)
                self._eager = (parts, data, [GGUFValueType(t) for t in types])
        return self._eager

    @property
    def types(self) -> list[GGUFValueType]:
        if self._types is None:
            kind = self._kind[0]
            if kind == "kv" and self._kind[1].type != "array":
                self._types = [_BY_NAME[self._kind[1].type]]
            elif (flat := self._flat()) is not None:
                self._types = [_T.ARRAY, flat[0]] if flat[1] else [_T.ARRAY]
            else:
                self._types = self._walk()[2]
        return self._types

    @property
    def data(self) -> list[int]:
        if self._data is None:
            f = self._kind[1] if self._kind[0] == "kv" else None
            if f is not None and f.type == "string":
                self._data = [4]
            elif f is not None and f.type != "array":
                self._data = [3]
            elif (flat := self._flat()) is not None:
                if flat[0] == _T.STRING:
                    self._data = list(range(6, 6 + 2 * flat[1], 2))
                else:
                    self._data = list(range(5, 5 + flat[1]))
            else:
                self._data = self._walk()[1]
        return self._data

    @property
    def parts(self) -> Any:
        if self._parts is None:
            flat = self._flat()
            if flat is None:
                self._parts = self._walk()[0]
            else:
                self._parts = self._lazy_array_parts(*flat)
        return self._parts

    def _lazy_array_parts(self, et: GGUFValueType, n: int) -> _Parts:
        h, f = self._reader._header, self._reader._file
        o = self.offset
        head, base = _native.array_head(f, o)  # key length, key, value type, element type, count

        if et == _T.STRING:
            rows: list[np.ndarray] = []

            def build(i: int) -> np.ndarray:
                if i < 5:
                    return h.part(head[i])
                if not rows:  # where each string lies, walked by the library the first time
                    rows.append(_native.string_parts(f, o))
                j, rest = divmod(i - 5, 2)
                at, start, length = rows[0][j].tolist()
                return h.get(at, np.uint64) if rest == 0 else h.get(start, np.uint8, length)

            return _Parts(5 + 2 * n, build)
        np_t = _SCALAR_NP[et]
        size = np.dtype(np_t).itemsize

        def build_scalar(i: int) -> np.ndarray:
            if i < 5:
                return h.part(head[i])
            return h.get(base + (i - 5) * size, np_t)

        return _Parts(5 + n, build_scalar)

    # -- the value ----------------------------------------------------------------------------
    def contents(self, index_or_slice: Any = slice(None)) -> Any:
        """The value as gguf-py's ``contents()`` gives it (nested arrays flattened)."""
        kind = self._kind[0]
        if kind == "kv" and (self._kind[1].type != "array" or self._flat() is not None):
            f = self._kind[1]
            if f.type == "string":
                return _checked(f.value, self.parts, -1)
            if f.type != "array":
                return f.value
            v = f.value
            if f.element_type == "string":
                out = v[index_or_slice]
                if self._reader._suspect_text:
                    idx = self.data[index_or_slice]
                    if isinstance(index_or_slice, int):
                        return _checked(out, self.parts, idx)
                    return [_checked(s, self.parts, j) for s, j in zip(out, idx)]
                return out
            if isinstance(index_or_slice, int):
                self.data[index_or_slice]  # IndexError as gguf-py
                return v[index_or_slice].tolist()
            return v[index_or_slice].tolist()
        if not self.types:
            return None
        parts, data, types = self.parts, self.data, self.types
        to_str = lambda x: str(x.tobytes(), encoding="utf-8")  # noqa: E731
        if types[0] == _T.ARRAY:
            if types[-1] == _T.STRING:
                idx = data[index_or_slice]
                if isinstance(index_or_slice, int):
                    return to_str(parts[idx])
                return [to_str(parts[i]) for i in idx]
            if isinstance(index_or_slice, int):
                return parts[data[index_or_slice]].tolist()[0]
            return [v for i in data[index_or_slice] for v in parts[i].tolist()]
        if types[0] == _T.STRING:
            return to_str(parts[-1])
        return parts[-1].tolist()[0]


def _checked(s: str, parts: Any, i: int) -> str:
    """``s`` as gguf-py decodes it: bytes that are not UTF-8 raise UnicodeDecodeError."""
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return str(parts[i].tobytes(), encoding="utf-8")  # raises as gguf-py does
    return s


ReaderTensor = _native.ReaderTensor
"""A tensor as gguf-py's ``ReaderTensor`` (made natively, in bulk); ``data`` is a zero-copy view
of the file made on first use, ``field`` the tensor's info as a ``ReaderField``."""

# GGMLQuantizationType members by id, None where the enum has none
_QUANT_LIST = [_QUANT_BY_ID.get(i) for i in range(max(_QUANT_BY_ID) + 1)]


class _Dims(np.ndarray):
    """A tensor's dimensions: gguf-py's ``uint64`` array (indexing, arithmetic, ``tolist()`` and
    ``repr`` as numpy's), iterated as Python ints. gguf-dump formats every dimension it iterates,
    and an int formats several times faster than a numpy scalar; the values and the text are
    the same."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))


def _tensors(reader: GGUFReader) -> tuple[list[ReaderTensor], list[int]]:
    """Every tensor of ``reader``'s file, made from ggufkit's tensor table in one call, and the
    offset of each tensor's info."""
    dims, width, ndims = reader._file._tensor_shapes()
    n = len(ndims)
    table = np.frombuffer(dims, np.uint64).reshape(n, width)
    table = table.astype(np.dtype(np.uint64).newbyteorder(reader.byte_order)).view(_Dims)
    shapes = list(np.ndarray.__iter__(table))  # one view per row, each a _Dims
    for i, nd in enumerate(ndims):
        if nd != width:
            shapes[i] = shapes[i][:nd]
    return reader._file._reader_tensors(reader, _QUANT_LIST, GGMLQuantizationType, shapes)


class GGUFReader:
    """gguf-py's ``GGUFReader(path, mode='r')`` over ggufkit. Opens permissively by default
    (what gguf-py reads, ggufkit reads); ``permissive=False`` applies the spec's every rule."""

    gguf_scalar_to_np = dict(_SCALAR_NP)

    def __init__(self, path: Any, mode: str = "r", *, permissive: bool = True) -> None:
        self._file = _native.open(path, permissive=permissive)
        f = self._file
        big = f.endian == "big"
        self.byte_order = "S" if big != (sys.byteorder == "big") else "I"
        self.endianess = GGUFEndian.BIG if big else GGUFEndian.LITTLE
        self._mode = mode
        self.data = np.memmap(path, mode=mode)
        self._header = h = _Header(self.data, self.byte_order)
        self._suspect_text = any("utf" in x.rule for x in f.report().errors)
        self.fields: OrderedDict[str, ReaderField] = OrderedDict()
        # the version and the two counts, where the library's spans of the fixed fields say
        for hp, name in zip(_native.header_parts(), ("version", "tensor_count", "kv_count")):
            self.fields["GGUF." + name] = ReaderField(self, hp[0], "GGUF." + name, ("head", h.part(hp), GGUFValueType(hp[1])))
        keys = f._keys()
        if len(keys) != int(self.fields["GGUF.kv_count"].parts[0][0]):  # a repeated key: gguf-py refuses it, so does ggufkit
            _native.open(path)
        for k in keys:
            field = f.field(k)
            self.fields[k] = ReaderField(self, field.offset, k, ("kv", field))
        self.alignment: Any = 32
        if "general.alignment" in self.fields:
            self.alignment = self.fields["general.alignment"].parts[-1][0]
        self.data_offset = int(f.tensor_data_offset)
        self.tensors, self._info_offsets = _tensors(self)
        self._tfields: Any = None

    def _tensor_data(self, index: int, n_elements: int, n_bytes: int, data_offset: int,
                     tensor_type: Any, shape: np.ndarray) -> np.ndarray:
        """Tensor ``index``'s data as gguf-py shapes it: a view of the file."""
        dims = tuple(reversed(shape.tolist()))
        if self._mode == "r":
            raw = self._file.tensors[index].raw
        else:
            raw = self.data[data_offset:data_offset + n_bytes]
        np_t = _TENSOR_NP.get(int(tensor_type))
        if np_t is None:
            row = dims[-1] if dims else 1
            per = n_bytes // (n_elements // row) if n_elements and row else 0
            return raw.reshape((*dims[:-1], per)) if dims else raw
        return raw.view(np.dtype(np_t).newbyteorder(self.byte_order)).reshape(dims)

    def _tensor_fields(self) -> list[ReaderField]:
        """The tensor infos as fields, made the first time one is asked for."""
        if self._tfields is None:
            self._tfields = [ReaderField(self, pos, t.name, ("tensor", t, i))
                             for i, (t, pos) in enumerate(zip(self.tensors, self._info_offsets))]
        return self._tfields

    def get_field(self, key: str) -> ReaderField | None:
        return self.fields.get(key, None)

    def get_tensor(self, idx: int) -> ReaderTensor:
        return self.tensors[idx]
