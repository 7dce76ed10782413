"""pybloom_compat against the real pybloom_live (installed from PyPI into the test venv):
the same bits for the same keys, and files that load both ways."""

import io
import pickle
import struct

import pybloom_live.pybloom as real
import pytest
from conftest import keys

from filterlab import FilterlabError
from filterlab.pybloom_compat import BloomFilter, ScalableBloomFilter, make_hashfuncs

# Shapes that take each of pybloom_live's five digests and three word sizes: (slices, bits
# per slice) -> the hash's name.
SHAPES = [
    ((5, 1), "xxh3_128"),
    ((8, 32_767), "xxh3_128"),
    ((4, 32_768), "xxh3_128"),
    ((10, 2), "openssl_sha1"),
    ((15, 2), "openssl_sha256"),
    ((20, 3), "openssl_sha384"),
    ((100, 20), "openssl_sha512"),
    ((7, 1 << 31), "openssl_sha512"),
]

# str, ints (keyed by str()) and text beyond ASCII: keys both pybloom_live versions hash alike.
KEYS = keys("k", 300) + list(range(-5, 200, 7)) + ["", "ünïcödé", "日本語", "🎉" * 9]


@pytest.mark.parametrize("shape,name", SHAPES)
def test_make_hashfuncs_gives_pybloom_lives_indices_and_hash(shape, name):
    ours, our_fn = make_hashfuncs(*shape)
    theirs, their_fn = real.make_hashfuncs(*shape)
    assert our_fn.__name__ == their_fn.__name__ == name
    for key in KEYS[:80]:
        assert list(ours(key)) == list(theirs(key)), key


@pytest.mark.parametrize("capacity,rate", [(100, 0.5), (1_000, 0.01), (1_000, 0.001), (20_000, 1e-6), (40_000, 0.2)])
def test_a_file_pybloom_live_writes_loads_here_and_answers_alike(capacity, rate):
    theirs = real.BloomFilter(capacity, rate)
    for k in KEYS[: capacity // 2]:
        theirs.add(k)
    buf = io.BytesIO()
    theirs.tofile(buf)
    buf.seek(0)
    ours = BloomFilter.fromfile(buf)
    assert (ours.num_slices, ours.bits_per_slice, ours.capacity, ours.count) == (
        theirs.num_slices,
        theirs.bits_per_slice,
        theirs.capacity,
        theirs.count,
    )
    probes = KEYS + keys("probe", 3_000, seed=5)
    assert [p in ours for p in probes] == [p in theirs for p in probes]
    # Written back, the bytes are pybloom_live's own.
    again = io.BytesIO()
    ours.tofile(again)
    assert again.getvalue() == buf.getvalue()


def test_a_file_written_here_loads_in_pybloom_live(tmp_path):
    ours = BloomFilter(5_000, 0.001)
    for k in KEYS:
        ours.add(k)
    path = tmp_path / "ours.bloom"
    with open(path, "wb") as f:
        ours.tofile(f)
    with open(path, "rb") as f:
        theirs = real.BloomFilter.fromfile(f)
    assert len(theirs) == len(ours) and theirs.num_bits == ours.num_bits
    probes = KEYS + keys("probe", 3_000, seed=6)
    assert [p in theirs for p in probes] == [p in ours for p in probes]
    assert all(k in theirs for k in KEYS)


def test_the_same_adds_give_the_same_bits_and_counts():
    ours, theirs = BloomFilter(400, 0.01), real.BloomFilter(400, 0.01)
    for k in KEYS[:399]:
        assert ours.add(k) == theirs.add(k), k
    a, b = io.BytesIO(), io.BytesIO()
    ours.tofile(a)
    theirs.tofile(b)
    assert a.getvalue() == b.getvalue()


@pytest.mark.parametrize("mode", [ScalableBloomFilter.SMALL_SET_GROWTH, ScalableBloomFilter.LARGE_SET_GROWTH])
def test_scalable_files_load_both_ways_with_the_same_stages(mode):
    theirs = real.ScalableBloomFilter(initial_capacity=50, error_rate=0.01, mode=mode)
    ours = ScalableBloomFilter(initial_capacity=50, error_rate=0.01, mode=mode)
    for k in KEYS:
        assert ours.add(k) == theirs.add(k), k
    assert [f.capacity for f in ours.filters] == [f.capacity for f in theirs.filters]
    assert len(ours.filters) > 2
    a, b = io.BytesIO(), io.BytesIO()
    ours.tofile(a)
    theirs.tofile(b)
    assert a.getvalue() == b.getvalue()
    a.seek(0)
    back = real.ScalableBloomFilter.fromfile(a)
    b.seek(0)
    mine = ScalableBloomFilter.fromfile(b)
    probes = KEYS + keys("probe", 2_000, seed=8)
    assert [p in back for p in probes] == [p in mine for p in probes] == [p in theirs for p in probes]
    assert (mine.scale, mine.initial_capacity, mine.error_rate, len(mine)) == (mode, 50, 0.01, len(theirs))


def test_bytes_keys_are_hashed_as_the_release_hashes_them():
    # pybloom_live 4.0.0 hashes bytes as str(key); its repository (and raw_bytes=True) as they are.
    bf = BloomFilter(100, 0.01)
    bf.add(b"raw")
    assert b"raw" in bf and "b'raw'" in bf and "raw" not in bf


def test_pickles_keep_bits_count_and_parameters_and_copies_reset_the_count():
    bf = BloomFilter(1e3, 0.01)  # a float capacity, as pybloom_live takes it
    for k in KEYS[:100]:
        bf.add(k)
    # pybloom_live 4.0.0's copy() is a new filter with the bits copied: count 0.
    for other, count in ((pickle.loads(pickle.dumps(bf)), len(bf)), (bf.copy(), 0)):
        assert (other.capacity, other.error_rate, len(other)) == (1e3, 0.01, count)
        assert all(k in other for k in KEYS[:100])
    c = bf.copy()
    c.add("only in the copy")
    assert "only in the copy" not in bf


def test_union_and_intersection_return_new_filters():
    a, b = BloomFilter(100, 0.01), BloomFilter(100, 0.01)
    for ch in "abcdefghijklmnop":
        a.add(ch)
    for ch in "jklmnopqrstuvwxyz":
        b.add(ch)
    both, common = a | b, a & b
    assert all(ch in both for ch in "abcdefghijklmnopqrstuvwxyz")
    assert all(ch in common for ch in "jklmnop")
    assert sum(ch in common for ch in "abcdefghiqrstuvwxyz") <= 1
    assert "q" not in a  # the operands are unchanged
    with pytest.raises(ValueError, match="same capacity and error rate"):
        a.union(BloomFilter(200, 0.01))
    with pytest.raises(ValueError, match="equal capacity and error rate"):
        a.intersection(BloomFilter(100, 0.001))


def test_a_filter_past_capacity_refuses_the_next_key():
    # pybloom_live 4.0.0 checks `count > capacity` before the add: capacity + 1 keys go in.
    bf = BloomFilter(5, 0.01)
    for i in range(6):
        bf.add(f"item_{i}")
    with pytest.raises(IndexError, match="BloomFilter is at capacity"):
        bf.add("one more")
    assert len(bf) == 6


def _header(rate=0.01, slices=7, per_slice=100, capacity=10, count=0):
    return struct.pack(b"<dQQQQ", rate, slices, per_slice, capacity, count)


@pytest.mark.parametrize(
    "data,error",
    [
        (_header()[:20], "truncated"),
        (_header() + bytes(10), "Bit length mismatch"),
        (_header() + bytes(89), "Bit length mismatch"),
        (_header(per_slice=1 << 62) + bytes(8), "2\\^40 bits"),
        (_header(slices=0) + bytes(8), "num_slices"),
        (_header(slices=1 << 40) + bytes(8), "num_slices"),
        (_header(per_slice=0), "2\\^40 bits"),
    ],
)
def test_crafted_files_are_refused_with_a_clear_error(data, error):
    with pytest.raises(ValueError, match=error):
        BloomFilter.fromfile(io.BytesIO(data))


def test_a_scalable_file_declaring_absurd_stages_is_refused():
    head = struct.pack("<idQd", 4, 0.9, 100, 0.01)
    for count in (-1, 1 << 30):
        with pytest.raises(ValueError, match="stages"):
            ScalableBloomFilter.fromfile(io.BytesIO(head + struct.pack(b"<l", count)))


def test_errors_from_the_table_are_filterlab_errors():
    with pytest.raises(FilterlabError):
        BloomFilter.fromfile(io.BytesIO(_header() + bytes(3)))
