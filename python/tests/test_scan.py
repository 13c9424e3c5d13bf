"""``ggufkit.scan``: the four tables as ``pyarrow.Table``s, row for row the Parquet tables
``gguf scan`` writes for the same files; DuckDB reads those Parquet tables; a local Ray cluster
scanning the same locations through ``scan_batch`` gives the same tables again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import List

import pytest

import ggufkit

from conftest import SAMPLE, corpus_files, import_or_skip

PIP = "pip install it in the venv scripts/test.sh uses (.ci/run does)"
pa = import_or_skip("pyarrow", "pyarrow", PIP)
import_or_skip("pyarrow.compute", "pyarrow", PIP)
pq = import_or_skip("pyarrow.parquet", "pyarrow", PIP)


def locations() -> List[str]:
    """The corpus's files (and the sample), with a missing path and a broken file among them."""
    files = [str(p) for p in corpus_files() if p.stat().st_size < 32 << 20]
    return [str(SAMPLE), *files, "/nonexistent/missing.gguf"]


def rows(table) -> List[str]:
    """A table's rows as sorted JSON texts (order across files is the order they finished)."""
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in table.to_pylist())


def cli_scan(gguf: Path, locs: List[str], out: Path) -> None:
    # one location per argument, as the Python call gets them
    subprocess.run(
        [str(gguf), "scan", *locs, "-o", str(out), "--jobs", "2"],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def scanned(tmp_path_factory, gguf):
    locs = locations()
    out = tmp_path_factory.mktemp("scan")
    cli_scan(gguf, locs, out)
    return locs, out, ggufkit.scan(locs, jobs=2)


def test_tables_are_the_cli_parquet_row_for_row(scanned):
    locs, out, tables = scanned
    assert tables.files.num_rows == len(locs)
    for name, table in zip(ggufkit.ScanTables._fields, tables):
        written = pq.read_table(out / name)
        assert table.schema.names == written.schema.names, name
        assert [f.type for f in table.schema] == [f.type for f in written.schema], name
        assert rows(table) == rows(written), name
    missing = [r for r in tables.files.to_pylist() if r["location"].endswith("missing.gguf")]
    assert missing[0]["read_error"] and missing[0]["valid"] is None


def test_full_audit_adds_the_per_token_rules(tmp_path, gguf):
    """``full_audit=True`` is ``gguf scan --full-audit``: the findings gain the per-token rules
    (duplicate tokens, merges naming no token) that the default leaves out."""
    path = tmp_path / "dup.gguf"
    with ggufkit.Writer(path) as w:
        w.add("general.architecture", "llama")
        w.add("tokenizer.ggml.tokens", ["a", "b", "a", "ab"])
        w.add("tokenizer.ggml.merges", ["a b", "a zz"])
    rules = lambda t: sorted(r["rule"] for r in t.findings.to_pylist())  # noqa: E731
    default = rules(ggufkit.scan([str(path)], jobs=1))
    full = rules(ggufkit.scan([str(path)], jobs=1, full_audit=True))
    assert "tokenizer.duplicate" not in default and "tokenizer.merge-unknown" not in default
    assert "tokenizer.duplicate" in full and "tokenizer.merge-unknown" in full
    out = tmp_path / "out"
    subprocess.run([str(gguf), "scan", str(path), "-o", str(out), "--full-audit"], check=True,
                   capture_output=True)
    assert full == sorted(pq.read_table(out / "findings").column("rule").to_pylist())


def test_duckdb_reads_the_parquet(scanned):
    duckdb = import_or_skip("duckdb", "duckdb", PIP)
    locs, out, tables = scanned
    con = duckdb.connect()
    files = str(out / "files" / "*.parquet")
    n, invalid = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE NOT valid) FROM read_parquet('{files}')"
    ).fetchone()
    expected = tables.files.to_pylist()
    assert n == len(expected)
    assert invalid == sum(1 for r in expected if r["valid"] is False)
    by_arch = con.execute(
        f"SELECT architecture, file_type, count(*) FROM read_parquet('{files}') "
        "WHERE valid GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    want = {}
    for r in expected:
        if r["valid"]:
            k = (r["architecture"], r["file_type"])
            want[k] = want.get(k, 0) + 1
    assert sorted(by_arch, key=str) == sorted(((a, f, c) for (a, f), c in want.items()), key=str)
    tensors = str(out / "tensors" / "*.parquet")
    (t,) = con.execute(f"SELECT count(*) FROM read_parquet('{tensors}')").fetchone()
    assert t == tables.tensors.num_rows


def test_scan_batch_takes_ray_batch_formats():
    locs = [str(SAMPLE)]
    want = rows(ggufkit.scan(locs).tensors)
    for batch in ({"item": locs}, pa.table({"item": locs})):
        assert rows(ggufkit.scan_batch(batch, table="tensors")) == want
    with pytest.raises(ValueError):
        ggufkit.scan_batch({"item": locs}, table="nope")


def test_all_tables_in_one_batch_split_back():
    locs = locations()[:12]
    tables = ggufkit.scan(locs)
    every = ggufkit.scan_batch({"item": locs}, table="all")
    assert every.num_rows == sum(t.num_rows for t in tables)
    for name, table in zip(ggufkit.ScanTables._fields, tables):
        assert ggufkit.scan_columns(name) == table.schema.names
        mine = every.filter(pa.compute.equal(every["table"], name))
        assert rows(mine.select(ggufkit.scan_columns(name))) == rows(table), name


def test_a_local_ray_cluster_gives_the_same_tables(scanned, tmp_path):
    ray = import_or_skip("ray", "ray", PIP)
    import_or_skip("ray.data", "ray", PIP)
    locs, _, tables = scanned
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        ds = ray.data.from_items(locs)
        # one table, as a pipeline writes just it
        files = ds.map_batches(
            ggufkit.scan_batch, fn_kwargs={"table": "files"}, batch_format="pyarrow", batch_size=16
        )
        files.write_parquet(str(tmp_path / "files-only"))
        assert rows(pq.read_table(tmp_path / "files-only")) == rows(tables.files)
        # all four from one pass over the headers, split back by the `table` column
        every = ds.map_batches(
            ggufkit.scan_batch, fn_kwargs={"table": "all"}, batch_format="pyarrow", batch_size=16
        ).materialize()
        for name, table in zip(ggufkit.ScanTables._fields, tables):
            dest = tmp_path / name
            (
                every.filter(expr=f"table == '{name}'")
                .select_columns(ggufkit.scan_columns(name))
                .write_parquet(str(dest))
            )
            assert rows(pq.read_table(dest)) == rows(table), name
    finally:
        ray.shutdown()
