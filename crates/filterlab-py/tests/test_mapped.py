"""Issue 39 in Python: `filterlab.open` (a filter file opened in place, read-only) and
`filterlab.load` with one copy of the filter in memory."""

import json
import os
import pickle
import subprocess
import sys
import threading

import pytest
from conftest import keys

import filterlab
from filterlab import (
    BinaryFuse8,
    BinaryFuse16,
    BlockedBloom,
    ClassicBloom,
    CountingBloom,
    CuckooFilter,
    FilterlabError,
    MappedFilter,
    Ribbon,
    ScalableBloom,
    VectorQuotient,
)

# The variants that open in place, and how each is made from a key set.
SIZED = [ClassicBloom, CountingBloom, CuckooFilter, BlockedBloom, VectorQuotient]
STATIC = [BinaryFuse8, BinaryFuse16, Ribbon]


def made(cls, members):
    if cls in STATIC:
        return cls(members, 0.01)
    f = cls(len(members) * 2, 0.01)
    f.add_many(members)
    return f


def saved(cls, path, n=5_000):
    members = keys("member", n)
    made(cls, members).save(path)
    return members


def to_version_1(data):
    """The version 1 file of the same filter as the version 2 file `data` (what a build before
    format version 2 wrote): the head without the payload's offset and the head's checksum,
    no padding, and the checksum of the whole recomputed."""
    xxhash = pytest.importorskip("xxhash")
    params = int.from_bytes(data[20:24], "little")
    length_at = 24 + params
    payload_len = int.from_bytes(data[length_at : length_at + 8], "little")
    offset = int.from_bytes(data[length_at + 8 : length_at + 16], "little")
    out = bytearray(data[:length_at + 8])
    out[8:10] = (1).to_bytes(2, "little")
    out += data[offset : offset + payload_len]
    out += xxhash.xxh3_64_intdigest(bytes(out)).to_bytes(8, "little")
    return bytes(out)


@pytest.mark.parametrize("cls", SIZED + STATIC)
def test_an_open_filter_answers_as_the_loaded_one(cls, tmp_path):
    path = tmp_path / "f.filter"
    members = saved(cls, path)
    strangers = keys("stranger", 20_000)
    run = members + strangers
    m, loaded = filterlab.open(path), filterlab.load(path)
    assert isinstance(m, MappedFilter)
    answers = loaded.contains_many(run)
    assert m.contains_many(run) == answers
    assert [k in m for k in run] == answers
    buffer = b"".join(k.encode() for k in run)
    offsets = [0]
    for k in run:
        offsets.append(offsets[-1] + len(k.encode()))
    assert m.contains_buffer(buffer, offsets) == answers
    assert all(answers[: len(members)]), "a false negative"
    assert (len(m), m.size_in_bytes, m.name) == (len(loaded), loaded.size_in_bytes, loaded.name)
    assert m.expected_fpr() == loaded.expected_fpr()
    assert m.path == str(path)
    if cls in SIZED:
        assert m.capacity == loaded.capacity
    assert not hasattr(m, "add") and not hasattr(m, "add_many")


def test_count_where_the_variant_counts(tmp_path):
    path = tmp_path / "f.filter"
    members = saved(CountingBloom, path)
    m = filterlab.open(path)
    assert m.count(members[0]) >= 1
    saved(ClassicBloom, path)
    with pytest.raises(FilterlabError, match="count"):
        filterlab.open(path).count(members[0])


def test_verify_refuses_a_file_with_a_flipped_payload_byte(tmp_path):
    path = tmp_path / "f.filter"
    saved(ClassicBloom, path)
    assert filterlab.open(path, verify=True).verify() is None
    data = bytearray(path.read_bytes())
    data[len(data) - 100] ^= 0x10  # in the bit table, before the checksum
    path.write_bytes(bytes(data))
    # An unverified open reads none of the payload: it opens.
    m = filterlab.open(path)
    with pytest.raises(FilterlabError, match="checksum"):
        m.verify()
    with pytest.raises(FilterlabError, match="checksum"):
        filterlab.open(path, verify=True)
    # The control: the load checks the checksum always.
    with pytest.raises(FilterlabError, match="checksum"):
        filterlab.load(path)


def test_pickling_raises_a_type_error_that_says_what_to_do(tmp_path):
    path = tmp_path / "f.filter"
    saved(ClassicBloom, path)
    m = filterlab.open(path)
    with pytest.raises(TypeError, match=r"pickle a loaded filter \(filterlab.load\(path\)\)"):
        pickle.dumps(m)
    # A loaded filter pickles.
    assert pickle.loads(pickle.dumps(filterlab.load(path))).contains_many(["x"]) == [False]


def test_a_version_1_file_is_refused_with_the_way_to_load_it(tmp_path):
    path = tmp_path / "f.filter"
    members = saved(ClassicBloom, path)
    path.write_bytes(to_version_1(path.read_bytes()))
    with pytest.raises(FilterlabError, match=r"version 1 .*filterlab\.load") as e:
        filterlab.open(path)
    assert isinstance(e.value, ValueError)
    # It loads (by copy), with the same answers.
    assert filterlab.load(path).contains_many(members) == [True] * len(members)


def test_a_variant_that_does_not_open_in_place_is_refused_with_the_way_to_load_it(tmp_path):
    path = tmp_path / "f.filter"
    f = ScalableBloom(1000, 0.01)
    f.add("a")
    f.save(path)
    with pytest.raises(FilterlabError, match=r"scalable.*filterlab\.load"):
        filterlab.open(path)


def test_a_missing_file_or_a_directory_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError):
        filterlab.open(tmp_path / "absent.filter")
    with pytest.raises((FilterlabError, OSError)):
        filterlab.open(tmp_path)


def test_open_does_not_hide_the_built_in_open_on_a_star_import():
    assert "open" not in filterlab.__all__ and "MappedFilter" in filterlab.__all__
    scope = {}
    exec("from filterlab import *", scope)
    assert "open" not in scope


def test_threads_query_one_mapped_filter_at_once(tmp_path):
    path = tmp_path / "f.filter"
    members = saved(BlockedBloom, path, n=20_000)
    m = filterlab.open(path)
    want = filterlab.load(path).contains_many(members + keys("other", 20_000))
    results = []

    def work():
        for _ in range(5):
            results.append(m.contains_many(members + keys("other", 20_000)))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40 and all(r == want for r in results)


# Memory, each measured in a fresh interpreter (this one's heap holds what earlier tests
# freed): /proc/self/status, as bench-harness/python/bench.py measures the load.
MEASURE = r"""
import json, sys
import filterlab

def kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])

path, what = sys.argv[1], sys.argv[2]
before = kib("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
if what == "open":
    f = filterlab.open(path)
    answer = "member0" in f
else:
    f = filterlab.load(path)
print(json.dumps({"grown": (kib("VmRSS") - before) * 1024, "peak": (kib("VmHWM") - before) * 1024}))
"""

needs_proc = pytest.mark.skipif(
    not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's /proc/self/clear_refs"
)


def measured(path, what):
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path), what], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """A classic filter file of about 64 MiB holding a few keys."""
    path = tmp_path_factory.mktemp("big") / "big.filter"
    f = ClassicBloom(56_000_000, 0.01)
    f.add_many(keys("member", 1000))
    f.save(path)
    del f
    return path


@needs_proc
def test_an_open_grows_memory_by_the_pages_it_touches_not_the_file(big_file):
    size = os.path.getsize(big_file)
    assert size > 60 << 20
    opened = measured(big_file, "open")
    assert opened["grown"] < size // 16, opened
    # The control: a load of the same file grows the memory by the file.
    loaded = measured(big_file, "load")
    assert loaded["grown"] > size // 2, loaded


@needs_proc
def test_a_load_peaks_at_one_copy_of_the_filter(big_file, tmp_path):
    size = os.path.getsize(big_file)
    loaded = measured(big_file, "load")
    assert loaded["peak"] <= size * 1.05, loaded
    # The control: the same filter's version 1 file is read whole, then decoded (2x).
    v1 = tmp_path / "v1.filter"
    v1.write_bytes(to_version_1(big_file.read_bytes()))
    copied = measured(v1, "load")
    assert copied["peak"] > size * 1.5, copied
