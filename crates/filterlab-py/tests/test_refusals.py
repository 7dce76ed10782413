"""Refusals that say what a file is and which call reads it, and `filterlab.open` checking a
file's head before it maps anything."""

import hashlib
import os
import subprocess
import sys

import pytest

import filterlab
from filterlab import Bloom, ClassicBloom, CountingBloom, FilterlabError


def stable(obj):
    return int.from_bytes(hashlib.sha256(repr(obj).encode()).digest()[:16], "big") - 2**127


@pytest.fixture
def bloom_file(tmp_path):
    path = tmp_path / "objects.bloom"
    b = Bloom(1_000, 0.01, stable)
    b.add(("a", 1))
    b.save(path)
    return path


@pytest.mark.parametrize("call", [filterlab.load, filterlab.open, ClassicBloom.load])
def test_a_saved_bloom_is_named_with_the_call_that_loads_it(bloom_file, call):
    # Before: "not a filterlab filter (bad magic bytes)".
    with pytest.raises(FilterlabError, match=r"saved filterlab\.Bloom.*filterlab\.Bloom\.load\(path, hash_func\)"):
        call(bloom_file)
    assert ("a", 1) in Bloom.load(bloom_file, stable)


def test_saved_bloom_bytes_are_named_too(bloom_file):
    data = bloom_file.read_bytes()
    for call in (filterlab.from_bytes, CountingBloom.from_bytes):
        with pytest.raises(FilterlabError, match=r"filterlab\.Bloom\.load_bytes\(data, hash_func\)"):
            call(data)


def test_editing_a_saved_bloom_names_its_class(bloom_file):
    with pytest.raises(FilterlabError, match=r"filterlab\.Bloom\.load"):
        with filterlab.editing(bloom_file):
            pass


def test_a_file_of_another_variant_names_its_python_class_and_filterlab_load(tmp_path):
    # Before: "variant id 2, not a classic filter; load it with the matching type (or with
    # filterlab::any::AnyFilter ...)".
    path = tmp_path / "c.filter"
    CountingBloom(100, 0.01).save(path)
    with pytest.raises(FilterlabError) as e:
        ClassicBloom.load(path)
    message = str(e.value)
    assert "holds a CountingBloom" in message and "not a ClassicBloom" in message
    assert "filterlab.CountingBloom.load(path)" in message and "filterlab.load(path)" in message
    assert "variant id" not in message and "::" not in message
    with pytest.raises(FilterlabError, match=r"filterlab\.CountingBloom\.from_bytes\(data\).*filterlab\.from_bytes"):
        filterlab.AtomicClassicBloom.from_bytes(path.read_bytes())


# Run in a child whose address space is capped a little above what it uses, so that mapping
# the file fails (ENOMEM) wherever the open maps before it checks.
CAPPED = """
import resource, sys
import filterlab
used = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
cap = used + int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    filterlab.open(sys.argv[1])
    print("opened")
except Exception as e:
    print(type(e).__name__, e)
"""


def capped_open(path, headroom):
    r = subprocess.run([sys.executable, "-c", CAPPED, str(path), str(headroom)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_open_checks_the_head_before_it_maps(tmp_path):
    # A small filter's head on a 1 GiB (sparse) file: before, `OSError: Cannot allocate
    # memory` under an address-space limit; now the head's refusal, as `load` gives it.
    path = tmp_path / "crafted.filter"
    ClassicBloom(1_000, 0.01).save(path)
    os.truncate(path, 1 << 30)
    out = capped_open(path, 256 << 20)
    assert out.startswith("FilterlabError") and "unexpected bytes after the end" in out, out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_a_refused_mapping_says_why(tmp_path):
    # A valid 48 MB filter in a process allowed 16 MB more: the map itself is refused.
    path = tmp_path / "big.filter"
    ClassicBloom(40_000_000, 0.01).save(path)
    out = capped_open(path, 16 << 20)
    assert out.startswith("OSError") and "cannot map" in out and "ulimit -v" in out, out
    assert capped_open(path, 512 << 20) == "opened"
