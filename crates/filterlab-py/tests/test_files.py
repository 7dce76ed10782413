"""Files and pickle through the checksummed format, shared with the Rust crates and the CLI."""

import json
import os
import pickle
import subprocess

import pytest
from conftest import keys

import filterlab
from filterlab import (
    AlephFilter,
    AtomicBlockedBloom,
    AtomicClassicBloom,
    BlockedBloom,
    ClassicBloom,
    CountingBloom,
    CuckooFilter,
    ExpandableCuckoo,
    FilterlabError,
    QuotientFilter,
    ScalableBloom,
    VectorQuotient,
)

SINGLE = {
    "classic": ClassicBloom,
    "counting": CountingBloom,
    "scalable": ScalableBloom,
    "cuckoo": CuckooFilter,
    "blocked": BlockedBloom,
    "quotient": QuotientFilter,
    "expandable": ExpandableCuckoo,
    "aleph": AlephFilter,
    "vqf": VectorQuotient,
}
ATOMIC = {"classic": AtomicClassicBloom, "blocked": AtomicBlockedBloom}
ALL = list(SINGLE.values()) + list(ATOMIC.values())


def filled(cls, n=2_000):
    f = cls(n, 0.01)
    f.add_many(keys("file", n // 2))
    return f


@pytest.mark.parametrize("cls", ALL)
def test_bytes_file_and_pickle_round_trips(cls, tmp_path):
    f = filled(cls)
    data = f.to_bytes()
    path = tmp_path / "f.filter"
    f.save(path)
    assert path.read_bytes() == data
    for g in (cls.from_bytes(data), cls.load(path), cls.load(str(path)), pickle.loads(pickle.dumps(f))):
        assert type(g) is cls
        assert g.to_bytes() == data
        assert len(g) == len(f)


@pytest.mark.parametrize("name", list(ATOMIC))
def test_atomic_and_single_forms_read_each_other(name):
    single, atomic = filled(SINGLE[name]), filled(ATOMIC[name])
    assert single.to_bytes() == atomic.to_bytes()
    assert ATOMIC[name].from_bytes(single.to_bytes()).to_bytes() == single.to_bytes()
    assert SINGLE[name].from_bytes(atomic.to_bytes()).to_bytes() == atomic.to_bytes()


@pytest.mark.parametrize("name,cls", list(SINGLE.items()))
def test_module_load_returns_the_variant_in_the_file(name, cls, tmp_path):
    path = tmp_path / f"{name}.filter"
    filled(cls).save(path)
    assert type(filterlab.load(path)) is cls
    assert type(filterlab.from_bytes(path.read_bytes())) is cls


def test_bad_bytes_raise_with_the_rust_message(tmp_path):
    data = filled(ClassicBloom).to_bytes()
    corrupted = bytearray(data)
    corrupted[len(data) // 2] ^= 0x10
    for bad in (bytes(corrupted), data[: len(data) // 2], b"", b"not a filter at all"):
        with pytest.raises(FilterlabError) as e:
            ClassicBloom.from_bytes(bad)
        assert str(e.value)
        with pytest.raises(FilterlabError):
            filterlab.from_bytes(bad)
    path = tmp_path / "bad.filter"
    path.write_bytes(bytes(corrupted))
    with pytest.raises(FilterlabError, match="bad.filter is not a usable filterlab filter"):
        filterlab.load(path)


def crafted(tmp_path):
    """A classic filter's file whose header declares a 3 GiB payload, extended (sparse) to
    exactly that length: only its parameters can tell that it lies."""
    data = filled(ClassicBloom, 10).to_bytes()
    at = 24 + int.from_bytes(data[20:24], "little")
    declared = 3 << 30
    path = tmp_path / "crafted.filter"
    path.write_bytes(data[:at] + declared.to_bytes(8, "little"))
    os.truncate(path, at + 8 + declared + 8)
    return path


def test_a_crafted_header_is_refused_before_its_payload_is_read(tmp_path):
    """Issue 37, item 7: `load` read the 3 GiB the header declares before refusing them; the
    refusal now comes from the parameters, having read the header."""
    path = crafted(tmp_path)
    for load in (filterlab.load, ClassicBloom.load):
        with pytest.raises(FilterlabError, match="its parameters describe"):
            load(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    """Issue 37, item 8: `load` on a FIFO without a writer waited forever in the open."""
    fifo = tmp_path / "f.filter"
    os.mkfifo(fifo)
    for load in (filterlab.load, ClassicBloom.load):
        with pytest.raises(FilterlabError, match="a FIFO, not a regular file"):
            load(fifo)


def test_a_file_of_another_variant_is_refused():
    with pytest.raises(FilterlabError):
        ClassicBloom.from_bytes(filled(CountingBloom).to_bytes())
    with pytest.raises(FilterlabError):
        AtomicBlockedBloom.from_bytes(filled(ClassicBloom).to_bytes())


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        filterlab.load(tmp_path / "absent.filter")
    with pytest.raises(OSError):
        ClassicBloom(10).save(tmp_path / "no" / "such" / "dir.filter")


# The CLI binary: scripts/python.sh builds it and sets FILTERLAB_CLI.
CLI = os.environ.get("FILTERLAB_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="FILTERLAB_CLI not set (scripts/python.sh sets it)")


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


def test_the_cli_is_there_when_named():
    if CLI:
        assert os.access(CLI, os.X_OK), f"FILTERLAB_CLI={CLI} is not an executable"


@needs_cli
@pytest.mark.parametrize("name,cls", list(SINGLE.items()))
def test_a_file_the_cli_built_loads_in_python(name, cls, tmp_path):
    members = keys("cli", 1_000)
    (tmp_path / "keys.txt").write_text("\n".join(members) + "\n")
    out = tmp_path / f"{name}.filter"
    r = cli("build", "--variant", name, "--n", 2_000, "--fpr", 0.01, "--keys", tmp_path / "keys.txt", "-o", out)
    assert r.returncode == 0, r.stderr
    f = filterlab.load(out)
    assert type(f) is cls
    assert len(f) == 1_000
    assert f.contains_many(members) == [True] * 1_000
    assert cls.load(out).to_bytes() == out.read_bytes()


@needs_cli
@pytest.mark.parametrize("name,cls", list(SINGLE.items()) + [(f"atomic-{k}", c) for k, c in ATOMIC.items()])
def test_a_file_python_saved_answers_the_same_in_the_cli(name, cls, tmp_path):
    f = filled(cls)
    path = tmp_path / f"{name}.filter"
    f.save(path)
    probes = keys("file", 50) + keys("absent", 200, seed=3)
    r = cli("query", "--json", path, *probes)
    assert r.returncode in (0, 1), r.stderr
    answers = [row["maybe_present"] for row in json.loads(r.stdout)]
    assert answers == f.contains_many(probes)
    assert answers[:50] == [True] * 50
    info = cli("info", "--json", path)
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["items"] == len(f)


@needs_cli
@pytest.mark.parametrize("name,extra", [("item-window", []), ("apbf", []), ("time-window", ["--at", 0])])
def test_a_sliding_window_file_is_refused_naming_its_variant(name, extra, tmp_path):
    # The windows are rows of the registry without a Python class (their constructors take a
    # window, and a time window takes a time with every call): refused with a clear message.
    (tmp_path / "keys.txt").write_text("\n".join(keys("win", 100)) + "\n")
    out = tmp_path / f"{name}.filter"
    r = cli("build", "--variant", name, "--n", 1_000, "--fpr", 0.01, "--keys", tmp_path / "keys.txt", "-o", out, *extra)
    assert r.returncode == 0, r.stderr
    with pytest.raises(FilterlabError, match=f"{name} filters are not supported by this package"):
        filterlab.load(out)
    assert filterlab.peek_variant(out.read_bytes()) == name
