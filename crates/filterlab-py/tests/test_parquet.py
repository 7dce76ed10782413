"""Issue 40 in Python: `filterlab.load` of a Parquet file gives its column chunks' bloom filters
(`ParquetFilters`), answering which row groups may hold a value as the writer's own readers do.

Checked on parquet-testing's file written by parquet-mr (a fixture of the CLI's tests) and on a
file DuckDB writes here, against DuckDB's own `parquet_bloom_probe`."""

import pathlib

import duckdb
import pytest

import filterlab
from filterlab import FilterlabError, ParquetFilters

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "filterlab-cli" / "tests" / "data" / "parquet"


def test_a_parquet_mr_file_loads_with_its_filter():
    f = filterlab.load(FIXTURES / "data_index_bloom_encoding_stats.parquet")
    assert isinstance(f, ParquetFilters)
    assert f.columns == ["String"] and f.row_groups == 1
    assert f.may_hold("String", "Hello") == [0]
    (chunk,) = f.filters()
    assert chunk["filter_bytes"] > 0 and chunk["ndv_source"] in ("statistics", "estimated")
    assert 0 <= chunk["fpr"] <= 1
    with pytest.raises(FilterlabError, match="no column"):
        f.may_hold("nope", "Hello")
    with pytest.raises(TypeError):
        f.may_hold("String", 1.5j)


def test_row_groups_answer_as_duckdb_does(tmp_path):
    path = str(tmp_path / "duck.parquet")
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT 'u' || (i // 10) || '@x.com' AS email, ((i // 7) * 3)::BIGINT AS id,
        (i // 40) / 4.0 AS d FROM range(6000) t(i)) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)"""
    )
    f = filterlab.load(path)
    assert f.row_groups == 3
    probes = {
        "email": [f"u{i}@x.com" for i in range(0, 1200, 2)],
        "id": list(range(0, 3000, 5)),
        "d": [i / 8 for i in range(0, 600)],
    }
    absent = 0
    for column, keys in probes.items():
        for key in keys:
            rows = con.execute(
                f"SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, '{column}', ?)",
                [path, key],
            ).fetchall()
            duck = sorted(g for g, excluded in rows if not excluded)
            ours = f.may_hold(column, key)
            assert ours == duck, (column, key)
            absent += not ours
    # A reference that says "maybe" to everything would pass the comparison above; this cannot.
    assert absent > 100


def test_a_file_that_lies_is_refused(tmp_path):
    good = (FIXTURES / "data_index_bloom_encoding_stats.parquet").read_bytes()
    bad = tmp_path / "bad.parquet"
    # The footer's length (the 4 bytes before the closing magic) pointing past the start.
    bad.write_bytes(good[:-8] + (len(good) * 2).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(FilterlabError, match="Parquet"):
        filterlab.load(bad)
