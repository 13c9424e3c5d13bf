from collections import OrderedDict
from collections.abc import Iterator, Sequence
from enum import IntEnum
from os import PathLike
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

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

class ReaderField:
    offset: int
    name: str
    @property
    def parts(self) -> Sequence[npt.NDArray[Any]]: ...
    @property
    def data(self) -> list[int]: ...
    @property
    def types(self) -> list[GGUFValueType]: ...
    def contents(self, index_or_slice: int | slice = ...) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def _asdict(self) -> dict[str, Any]: ...

class ReaderTensor:
    @property
    def name(self) -> str: ...
    @property
    def tensor_type(self) -> GGMLQuantizationType: ...
    @property
    def shape(self) -> npt.NDArray[np.uint64]: ...
    @property
    def n_elements(self) -> int: ...
    @property
    def n_bytes(self) -> int: ...
    @property
    def data_offset(self) -> int: ...
    @property
    def data(self) -> npt.NDArray[Any]: ...
    @property
    def field(self) -> ReaderField: ...

class GGUFReader:
    byte_order: Literal["I", "S"]
    endianess: GGUFEndian
    alignment: int | np.uint32
    data_offset: int
    data: np.memmap
    fields: OrderedDict[str, ReaderField]
    tensors: list[ReaderTensor]
    gguf_scalar_to_np: dict[GGUFValueType, type[np.generic]]
    def __init__(self, path: PathLike[str] | str, mode: Literal["r", "r+", "c"] = ..., *, permissive: bool = ...) -> None: ...
    def get_field(self, key: str) -> ReaderField | None: ...
    def get_tensor(self, idx: int) -> ReaderTensor: ...
