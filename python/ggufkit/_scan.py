"""``ggufkit.scan``: many GGUF files indexed into four ``pyarrow.Table``s (``files``, ``metadata``,
``tensors``, ``findings``), the tables of ``gguf scan``, by the same library scan; and
``scan_batch``, the same for one batch of locations of a Ray Data pipeline::

    import ray, ggufkit
    ds = ray.data.from_items(["s3://bucket/models/a.gguf", ...])
    files = ds.map_batches(ggufkit.scan_batch, batch_format="pyarrow")
    files.write_parquet("s3://bucket/index/files")

With ``fn_kwargs={"table": "all"}`` a batch gives all four tables in one table (each header read
once), a ``table`` column saying which each row belongs to; ``scan_columns`` names the columns
to select back for each.

Columns, their types and their nullability are the library's (``docs/scale.md`` lists them), so
a table here equals the Parquet part ``gguf scan`` writes for the same files.
"""

from __future__ import annotations

from typing import Any, Iterable, List, NamedTuple, Optional, Sequence

from . import _native

TABLES = ("files", "metadata", "tensors", "findings")


class ScanTables(NamedTuple):
    """The four tables of a scan, one ``pyarrow.Table`` each."""

    files: Any
    metadata: Any
    tensors: Any
    findings: Any


def _pyarrow():
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ggufkit.scan needs pyarrow (pip install pyarrow)") from e
    return pyarrow


def _arrow_type(pa, kind: str):
    # the library's column kinds, as its Parquet writer maps them (scan/parquet.rs)
    return {
        "string": pa.string(),
        "uint64": pa.uint64(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "list<uint64>": pa.list_(pa.field("item", pa.uint64(), nullable=False)),
    }[kind]


def _table(pa, columns: Sequence[tuple], values: Sequence[list]):
    schema = pa.schema(
        [pa.field(name, _arrow_type(pa, kind), nullable=nullable) for name, kind, nullable in columns]
    )
    arrays = [pa.array(v, type=f.type) for v, f in zip(values, schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def scan(
    locations: Iterable[str],
    *,
    jobs: Optional[int] = None,
    full_arrays: bool = False,
    full_audit: bool = False,
) -> ScanTables:
    """Scans ``locations`` (files, folders walked for ``*.gguf``, URLs, object-store prefixes such
    as ``s3://bucket/models/``) with ``jobs`` files in flight (default: the cores) and returns the
    four tables. A file that cannot be read is a ``files`` row with ``read_error``, never an
    exception. Arrays in ``metadata.value`` keep their first 64 elements unless ``full_arrays``.
    ``findings`` holds every audit rule's findings but the two per-token lookups (duplicate
    tokens, merges naming no token) unless ``full_audit``.
    Every row is held in memory until the tables are built: for millions of files use ``gguf
    scan`` (which writes as it goes) or ``scan_batch`` on Ray."""
    pa = _pyarrow()
    raw = _native.scan([str(x) for x in locations], jobs, full_arrays, full_audit)
    return ScanTables(*(_table(pa, *raw[name]) for name in TABLES))


def scan_columns(table: str) -> List[str]:
    """The column names of ``table`` (``files``, ``metadata``, ``tensors`` or ``findings``), in order."""
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
    columns, _ = _native.scan([], None, False)[table]
    return [name for name, _, _ in columns]


def _all(pa, tables: ScanTables):
    # the union of the four schemas (a column two tables share has one type in both: the
    # library's), every column nullable, and which table each row is from
    types = {}
    for t in tables:
        for f in t.schema:
            types.setdefault(f.name, f.type)
    schema = pa.schema(
        [pa.field("table", pa.string(), nullable=False)]
        + [pa.field(n, ty, nullable=True) for n, ty in types.items()]
    )
    parts = []
    for name, t in zip(TABLES, tables):
        arrays = [pa.array([name] * t.num_rows, pa.string())]
        for n, ty in types.items():
            arrays.append(t.column(n) if n in t.schema.names else pa.nulls(t.num_rows, ty))
        parts.append(pa.Table.from_arrays(arrays, schema=schema))
    return pa.concat_tables(parts)


def _locations(batch: Any, column: str) -> list:
    # Ray hands a batch as a pyarrow.Table, a pandas.DataFrame or a dict of numpy arrays
    if hasattr(batch, "column_names") and hasattr(batch, "column"):
        return [str(x) for x in batch.column(column).to_pylist()]
    if hasattr(batch, "columns") and hasattr(batch, "__getitem__") and not isinstance(batch, dict):
        return [str(x) for x in batch[column].tolist()]
    return [str(x) for x in list(batch[column])]


def scan_batch(
    batch: Any,
    *,
    table: str = "files",
    column: str = "item",
    jobs: Optional[int] = None,
    full_arrays: bool = False,
    full_audit: bool = False,
):
    """For Ray Data's ``map_batches``: scans the locations in ``batch[column]`` (``"item"`` is what
    ``ray.data.from_items`` names a list of strings) and returns ``table`` (one of ``files``,
    ``metadata``, ``tensors``, ``findings``) as a ``pyarrow.Table``, chosen with
    ``fn_kwargs={"table": "tensors"}``. ``table="all"`` returns the four in one table, each
    header read once: a ``table`` column names each row's table, and the columns of the others
    are null (select ``scan_columns(name)`` of the rows whose ``table`` is ``name``)."""
    if table not in TABLES and table != "all":
        raise ValueError(f"table must be one of {', '.join(TABLES)} or 'all', not {table!r}")
    tables = scan(
        _locations(batch, column), jobs=jobs, full_arrays=full_arrays, full_audit=full_audit
    )
    if table == "all":
        return _all(_pyarrow(), tables)
    return getattr(tables, table)
