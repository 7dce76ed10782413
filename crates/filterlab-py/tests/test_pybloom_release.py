"""pybloom_compat answers as pybloom_live 4.0.0, its PyPI release (installed into the test venv):
every kind of key hashed as that release hashes it, files both ways, and the release's counts
after ``copy``, ``|``, ``&`` and at capacity. ``raw_bytes=True`` is the faster opt-in."""

import io
import pickle

import pybloom_live
import pybloom_live.pybloom as real
import pytest

from filterlab.pybloom_compat import BloomFilter, ScalableBloomFilter, make_hashfuncs

# The keys: one list per type pybloom_live 4.0.0 turns into text its own way.
KINDS = {
    "str": [f"user{i}@example.com" for i in range(2_000)],
    "bytes": [f"user{i}@example.com".encode() for i in range(2_000)],
    "int": [i * 7919 - 10**6 for i in range(2_000)] + [2**70, -(2**64)],
    "float": [i / 7 for i in range(2_000)] + [1e300, -0.0, float("inf")],
    "tuple": [(i, f"k{i}", b"x") for i in range(2_000)],
    "bytearray": [bytearray(f"b{i}", "ascii") for i in range(500)],
}
PROBES = {
    "str": [f"other{i}@example.com" for i in range(5_000)],
    "bytes": [f"other{i}@example.com".encode() for i in range(5_000)],
    "int": list(range(10**7, 10**7 + 5_000)),
    "float": [i / 11 + 0.5 for i in range(5_000)],
    "tuple": [(i, f"o{i}") for i in range(5_000)],
    "bytearray": [bytearray(f"o{i}", "ascii") for i in range(5_000)],
}


def test_the_installed_peer_is_the_release():
    # What this file compares against: 4.0.0, not the repository's later code.
    from importlib.metadata import version

    assert version("pybloom_live") == "4.0.0"
    assert pybloom_live.BloomFilter is real.BloomFilter


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_key_hashes_to_the_releases_indices(kind):
    for shape in ((7, 1_000), (4, 40_000), (15, 3)):
        ours, _ = make_hashfuncs(*shape)
        theirs, _ = real.make_hashfuncs(*shape)
        for key in KINDS[kind][:200]:
            assert list(ours(key)) == list(theirs(key)), (shape, key)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_same_adds_give_the_releases_bytes_and_answers(kind):
    ours, theirs = BloomFilter(3_000, 0.001), real.BloomFilter(3_000, 0.001)
    for key in KINDS[kind]:
        assert ours.add(key) == theirs.add(key), key
    a, b = io.BytesIO(), io.BytesIO()
    ours.tofile(a)
    theirs.tofile(b)
    assert a.getvalue() == b.getvalue()
    assert [p in ours for p in PROBES[kind]] == [p in theirs for p in PROBES[kind]]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_release_file_loads_here_and_one_written_here_loads_there(kind, tmp_path):
    theirs = real.BloomFilter(3_000, 0.001)
    for key in KINDS[kind]:
        theirs.add(key)
    path = tmp_path / "theirs.bloom"
    with open(path, "wb") as f:
        theirs.tofile(f)
    with open(path, "rb") as f:
        ours = BloomFilter.fromfile(f)
    assert all(key in ours for key in KINDS[kind])
    assert [p in ours for p in PROBES[kind]] == [p in theirs for p in PROBES[kind]]

    mine = BloomFilter(3_000, 0.001)
    for key in KINDS[kind]:
        mine.add(key)
    with open(tmp_path / "ours.bloom", "wb") as f:
        mine.tofile(f)
    with open(tmp_path / "ours.bloom", "rb") as f:
        back = real.BloomFilter.fromfile(f)
    assert all(key in back for key in KINDS[kind])
    assert len(back) == len(mine)


def test_a_release_file_of_100k_bytes_keys_finds_every_one():
    # The case: 998 of 100,000 found before (the drop-in hashed the bytes).
    members = [f"member-{i:06d}".encode() for i in range(100_000)]
    theirs = real.BloomFilter(100_000, 0.001)
    for key in members:
        theirs.add(key)
    buf = io.BytesIO()
    theirs.tofile(buf)
    buf.seek(0)
    ours = BloomFilter.fromfile(buf)
    assert sum(key in ours for key in members) == 100_000


def test_scalable_files_of_mixed_keys_load_both_ways():
    mixed = [k for kind in sorted(KINDS) for k in KINDS[kind][:400]]
    theirs = real.ScalableBloomFilter(initial_capacity=100, error_rate=0.01)
    ours = ScalableBloomFilter(initial_capacity=100, error_rate=0.01)
    for key in mixed:
        assert ours.add(key) == theirs.add(key), key
    a, b = io.BytesIO(), io.BytesIO()
    ours.tofile(a)
    theirs.tofile(b)
    assert a.getvalue() == b.getvalue()
    b.seek(0)
    loaded = ScalableBloomFilter.fromfile(b)
    assert all(key in loaded for key in mixed)


def test_raw_bytes_is_the_opt_in_that_hashes_bytes_as_they_are():
    fast = BloomFilter(100, 0.01, raw_bytes=True)
    fast.add(b"raw")
    assert b"raw" in fast and "raw" in fast and "b'raw'" not in fast
    release = BloomFilter(100, 0.01)
    release.add(b"raw")
    assert b"raw" in release and "b'raw'" in release and "raw" not in release
    # str and other keys hash alike either way.
    ours, _ = make_hashfuncs(7, 1_000, raw_bytes=True)
    theirs, _ = real.make_hashfuncs(7, 1_000)
    for key in KINDS["str"][:50] + KINDS["int"][:50] + KINDS["tuple"][:50]:
        assert list(ours(key)) == list(theirs(key))
    # A release file of bytes keys read with the opt-in misses them: the file cannot say.
    theirs_f = real.BloomFilter(2_000, 0.001)
    for key in KINDS["bytes"]:
        theirs_f.add(key)
    buf = io.BytesIO()
    theirs_f.tofile(buf)
    buf.seek(0)
    misread = BloomFilter.fromfile(buf, raw_bytes=True)
    assert sum(key in misread for key in KINDS["bytes"]) < 50


def test_raw_bytes_travels_with_copies_pickles_stages_and_refuses_mixed_unions():
    sbf = ScalableBloomFilter(initial_capacity=10, error_rate=0.01, raw_bytes=True)
    for i in range(100):
        sbf.add(f"k{i}".encode())
    assert len(sbf.filters) > 1 and all(f.raw_bytes for f in sbf.filters)
    assert all(f"k{i}" in sbf for i in range(100))
    again = pickle.loads(pickle.dumps(sbf))
    assert again.raw_bytes and all(f"k{i}" in again for i in range(100))
    bf = BloomFilter(100, 0.01, raw_bytes=True)
    bf.add(b"a")
    assert "a" in bf.copy() and "a" in pickle.loads(pickle.dumps(bf))
    with pytest.raises(ValueError, match="raw_bytes"):
        bf | BloomFilter(100, 0.01)


def test_a_pickle_from_before_the_option_keeps_hashing_bytes_as_they_are():
    bf = BloomFilter(100, 0.01, raw_bytes=True)
    bf.add(b"old")
    state = bf.__getstate__()
    del state["raw_bytes"]  # the state an older drop-in pickled
    old = BloomFilter.__new__(BloomFilter)
    old.__setstate__(state)
    assert old.raw_bytes and b"old" in old


def test_copy_union_and_intersection_reset_the_count_as_the_release_does():
    ours = [BloomFilter(1_000, 0.01), BloomFilter(1_000, 0.01)]
    theirs = [real.BloomFilter(1_000, 0.01), real.BloomFilter(1_000, 0.01)]
    for i in range(300):
        for o, t, key in ((ours[0], theirs[0], f"a{i}"), (ours[1], theirs[1], f"b{i}")):
            o.add(key)
            t.add(key)
    for op in (lambda a, b: a.copy(), lambda a, b: a | b, lambda a, b: a & b):
        o, t = op(*ours), op(*theirs)
        assert len(o) == len(t) == 0
        a, b = io.BytesIO(), io.BytesIO()
        o.tofile(a)
        t.tofile(b)
        assert a.getvalue() == b.getvalue()
    assert len(ours[0]) == len(theirs[0]) == 300  # the operands keep theirs


def test_a_scalable_union_counts_as_the_releases():
    def filled(cls, n, prefix):
        sbf = cls(initial_capacity=20, error_rate=0.01)
        for i in range(n):
            sbf.add(f"{prefix}{i}")
        return sbf

    ours = filled(ScalableBloomFilter, 30, "x") | filled(ScalableBloomFilter, 200, "y")
    theirs = filled(real.ScalableBloomFilter, 30, "x") | filled(real.ScalableBloomFilter, 200, "y")
    assert [f.count for f in ours.filters] == [f.count for f in theirs.filters]
    assert len(ours) == len(theirs) > 0


@pytest.mark.parametrize("capacity", [1, 5, 10, 2.5])
def test_the_capacity_check_lets_the_releases_number_of_adds_through(capacity):
    def outcomes(bf):
        out = []
        for i in range(20):
            try:
                out.append(bf.add(f"key{i}"))
            except IndexError:
                out.append("IndexError")
        return out, len(bf)

    assert outcomes(BloomFilter(capacity, 0.01)) == outcomes(real.BloomFilter(capacity, 0.01))
