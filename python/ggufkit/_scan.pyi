from typing import Any, Iterable, List, NamedTuple, Optional, Tuple

import pyarrow

TABLES: Tuple[str, str, str, str]

class ScanTables(NamedTuple):
    """The four tables of a scan, one ``pyarrow.Table`` each."""

    files: pyarrow.Table
    metadata: pyarrow.Table
    tensors: pyarrow.Table
    findings: pyarrow.Table

def scan(
    locations: Iterable[str],
    *,
    jobs: Optional[int] = None,
    full_arrays: bool = False,
    full_audit: bool = False,
) -> ScanTables:
    """Scans files, folders, URLs and object-store prefixes into the four tables of ``gguf scan``."""
    ...

def scan_batch(
    batch: Any,
    *,
    table: str = "files",
    column: str = "item",
    jobs: Optional[int] = None,
    full_arrays: bool = False,
    full_audit: bool = False,
) -> pyarrow.Table:
    """For Ray Data's ``map_batches``: one table of the scan of ``batch[column]``, or with
    ``table="all"`` the four in one (a ``table`` column says which)."""
    ...

def scan_columns(table: str) -> List[str]:
    """The column names of one of the four tables, in order."""
    ...
