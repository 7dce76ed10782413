"""Every variant through the package: keys, batches, rates, sizes, union, errors."""

import numpy as np
import pytest
from conftest import binomial_upper, binomial_within, keys

import filterlab
from filterlab import (
    AlephFilter,
    AtomicBlockedBloom,
    AtomicClassicBloom,
    BinaryFuse8,
    BinaryFuse16,
    BlockedBloom,
    ClassicBloom,
    CountingBloom,
    CuckooFilter,
    ExpandableCuckoo,
    FilterlabError,
    QuotientFilter,
    Ribbon,
    ScalableBloom,
    VectorQuotient,
)

SINGLE = [
    ClassicBloom,
    CountingBloom,
    ScalableBloom,
    CuckooFilter,
    BlockedBloom,
    QuotientFilter,
    ExpandableCuckoo,
    AlephFilter,
    VectorQuotient,
]
ATOMIC = [AtomicClassicBloom, AtomicBlockedBloom]
ALL = SINGLE + ATOMIC


@pytest.mark.parametrize("cls", ALL)
def test_no_false_negatives_one_at_a_time_and_in_batches(cls):
    f = cls(20_000, 0.01)
    members = keys("m", 10_000)
    for k in members[:5_000]:
        f.add(k)
    f.add_many(members[5_000:])
    assert len(f) == 10_000
    assert all(k in f for k in members)
    assert f.contains_many(members) == [True] * len(members)
    # What was asked, or a little more where the table rounds up (the expandable filter's first
    # stage holds whole buckets: 20,003).
    assert 20_000 <= f.capacity <= 20_400
    assert f.size_in_bytes > 0


@pytest.mark.parametrize("cls", ALL)
def test_str_and_bytes_are_the_same_key(cls):
    f = cls(1_000, 0.01)
    f.add("zoë@example.com")
    assert "zoë@example.com".encode() in f
    f.add_many([b"bytes@example.com"])
    assert f.contains_many(["bytes@example.com"]) == [True]


@pytest.mark.parametrize("cls", ALL)
def test_measured_fp_rate_matches_the_formula(cls):
    n, probes = 20_000, 200_000
    f = cls(n, 0.01)
    f.add_many(keys("member", n))
    fp = sum(f.contains_many(keys("probe", probes, seed=11)))
    expected = f.expected_fpr()
    assert binomial_within(fp, probes, expected), (fp / probes, expected)
    # And the promise: the rate asked for, at design load.
    assert fp <= binomial_upper(probes, 0.01), fp / probes


def test_the_tolerance_rejects_a_wrong_rate():
    # The statistical check above could fail: a count at 1.3% is refused at 1%.
    assert not binomial_within(2_600, 200_000, 0.01)
    assert binomial_within(2_050, 200_000, 0.01)
    assert 2_600 > binomial_upper(200_000, 0.01)


def test_scalable_keeps_its_bound_ten_times_past_capacity():
    f = ScalableBloom(1_000, 0.01)
    f.add_many(keys("member", 20_000))
    assert f.stages > 1
    probes = 200_000
    fp = sum(f.contains_many(keys("probe", probes, seed=11)))
    assert f.fpr_bound() <= 0.01 + 1e-12
    assert fp <= binomial_upper(probes, f.fpr_bound()), fp / probes


def test_scalable_add_of_a_key_it_holds_changes_nothing():
    # Issue 51: the second article's loop calls add per event; 1M events from 10k users cost
    # 72x the memory of the 10k users before.
    users = keys("user", 1_000)
    f = ScalableBloom(100, 0.01)
    f.add_many(users)
    built = f.to_bytes()
    for _ in range(3):
        for u in users:
            f.add(u)
    f.add_many(users)
    assert f.to_bytes() == built
    assert len(f) <= 1_000


@pytest.mark.parametrize("cls", SINGLE)
def test_insert_if_absent(cls):
    f = cls(1_000, 0.01)
    assert f.insert_if_absent("a@example.com") is True
    assert f.insert_if_absent("a@example.com") is False
    assert len(f) == 1


@pytest.mark.parametrize("cls", [ClassicBloom, BlockedBloom, CountingBloom])
def test_union_equals_the_filter_built_from_all_keys(cls):
    a, b, whole = cls(10_000, 0.01), cls(10_000, 0.01), cls(10_000, 0.01)
    ka, kb = keys("a", 3_000), keys("b", 3_000)
    a.add_many(ka)
    b.add_many(kb)
    whole.add_many(ka + kb)
    a.union(b)
    assert a.contains_many(ka + kb) == [True] * 6_000
    assert a.to_bytes() == whole.to_bytes()


@pytest.mark.parametrize("cls", [ClassicBloom, BlockedBloom, CountingBloom])
def test_a_filter_unites_with_itself(cls):
    """Issue 37: `a.union(a)` raised "Already mutably borrowed"; it unites `a` with a copy."""
    a = cls(10_000, 0.01)
    a.add_many(keys("a", 3_000))
    expected = cls.from_bytes(a.to_bytes())
    expected.union(cls.from_bytes(a.to_bytes()))
    a.union(a)
    assert a.to_bytes() == expected.to_bytes()


def test_a_quotient_filter_merges_with_itself():
    """Issue 37: `q.merge(q)` raised "Already mutably borrowed"; it merges a copy (counts
    doubled)."""
    q = QuotientFilter(1_000, 0.01)
    q.add("once@example.com")
    q.merge(q)
    assert q.count("once@example.com") == 2
    assert len(q) == 2


def test_len_saturates_on_a_tampered_count():
    """Issue 37: a file declaring 2^64 - 1 items made `len()` raise OverflowError; it
    saturates at sys.maxsize, as the counts saturate."""
    import sys

    xxhash = pytest.importorskip("xxhash")
    data = bytearray(ClassicBloom(100, 0.01).to_bytes())
    # The count follows m (8 bytes) and k (4) in the parameter section, at 24.
    data[36:44] = (2**64 - 1).to_bytes(8, "little")
    # Format version 2 seals its head too: XXH3-64 of [0, 40 + P) stored at 40 + P.
    assert int.from_bytes(data[8:10], "little") == 2
    head = 40 + int.from_bytes(data[20:24], "little")
    data[head : head + 8] = xxhash.xxh3_64_intdigest(bytes(data[:head])).to_bytes(8, "little")
    data[-8:] = xxhash.xxh3_64_intdigest(bytes(data[:-8])).to_bytes(8, "little")
    f = ClassicBloom.from_bytes(bytes(data))
    assert len(f) == sys.maxsize


@pytest.mark.parametrize("cls", [ClassicBloom, BlockedBloom, CountingBloom])
def test_union_of_other_shapes_is_refused(cls):
    a, b = cls(10_000, 0.01), cls(20_000, 0.01)
    with pytest.raises(FilterlabError):
        a.union(b)


@pytest.mark.parametrize(
    "cls",
    [CountingBloom, CuckooFilter, QuotientFilter, ExpandableCuckoo, AlephFilter, VectorQuotient],
)
def test_remove(cls):
    f = cls(1_000, 0.01)
    f.add("gone@example.com")
    assert f.count("gone@example.com") >= 1
    f.remove("gone@example.com")
    assert "gone@example.com" not in f
    with pytest.raises(FilterlabError):
        f.remove("never@example.com")


def test_a_full_cuckoo_filter_raises_and_keeps_its_items():
    f = CuckooFilter(100, 0.01)
    added = []
    with pytest.raises(FilterlabError, match="full|place|load"):
        for k in keys("c", 100_000):
            before = len(f)
            f.add(k)
            added.append(k)
    assert len(f) == before
    assert f.contains_many(added) == [True] * len(added)


@pytest.mark.parametrize("cls", ALL)
def test_buffer_with_offsets(cls):
    ks = [k.encode() for k in keys("buf", 1_000)]
    data = b"".join(ks)
    offsets = np.cumsum([0] + [len(k) for k in ks]).astype(np.uint64)
    f = cls(2_000, 0.01)
    f.add_buffer(data, offsets)
    assert f.contains_many(ks) == [True] * len(ks)
    assert f.contains_buffer(data, list(offsets)) == [True] * len(ks)
    assert f.contains_buffer(b"", [0]) == []


@pytest.mark.parametrize("cls", ALL)
def test_numpy_arrays_of_keys(cls):
    ks = keys("np", 1_000)
    f = cls(2_000, 0.01)
    f.add_many(np.array(ks))
    f.add_many(np.array([k.encode() for k in ks[:10]]))
    assert f.contains_many(np.array(ks)) == [True] * len(ks)


@pytest.mark.parametrize(
    "offsets,message",
    [([], "n \\+ 1"), ([0, 5, 3], "non-decreasing"), ([0, 99], "inside the 4-byte buffer")],
)
def test_bad_offsets_are_refused(offsets, message):
    with pytest.raises(FilterlabError, match=message):
        ClassicBloom(100, 0.01).add_buffer(b"abcd", offsets)


@pytest.mark.parametrize("cls", ALL)
def test_bad_parameters_raise_with_the_rust_message(cls):
    with pytest.raises(FilterlabError, match="fpr") as e:
        cls(1_000, 1.5)
    assert isinstance(e.value, ValueError)
    with pytest.raises(FilterlabError, match="capacity"):
        cls(0, 0.01)


@pytest.mark.parametrize("cls", ALL)
def test_keys_must_be_str_or_bytes(cls):
    f = cls(100, 0.01)
    with pytest.raises(TypeError, match="str or bytes, not int"):
        f.add(3)
    with pytest.raises(TypeError, match="str or bytes"):
        f.add_many(["ok", 3])
    with pytest.raises(TypeError, match="single str or bytes"):
        f.add_many("abc")
    assert len(f) == 0


def test_variant_names():
    assert ClassicBloom(10).name == "classic"
    assert CuckooFilter(10).name == "cuckoo"
    assert filterlab.peek_variant(CountingBloom(10).to_bytes()) == "counting"


CHUNK = 16_384  # keys per GIL release in add_many / contains_many (src/keys.rs)


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("n", [0, 1, CHUNK, 2 * CHUNK, 2 * CHUNK + 5])
def test_batches_across_chunk_boundaries(cls, n):
    f = cls(100_000, 0.01)
    ks = keys("chunk", n)
    f.add_many(k for k in ks)  # a generator: no len() to size anything by
    assert len(f) == n
    answers = f.contains_many(iter(ks))
    assert len(answers) == n and all(answers)


@pytest.mark.parametrize("cls", [ClassicBloom, AtomicBlockedBloom])
def test_a_bad_key_in_a_later_chunk_leaves_the_earlier_chunks_added(cls):
    f = cls(100_000, 0.01)
    ks = keys("later", CHUNK + 10)
    with pytest.raises(TypeError):
        f.add_many(ks + [None])
    assert len(f) == CHUNK
    assert f.contains_many(ks[:CHUNK]) == [True] * CHUNK


def test_the_exception_is_filterlabs_own():
    assert FilterlabError.__module__ == "filterlab"
    assert issubclass(FilterlabError, ValueError)


def test_the_stubs_ship_beside_the_module():
    import pathlib

    here = pathlib.Path(filterlab.__file__).parent
    assert (here / "py.typed").exists() and (here / "_filterlab.pyi").exists()


def test_the_package_exports_the_extensions_list_of_names():
    """One list of public names: the extension's `__all__`, naming each class and function it adds,
    but `open`, which a star import would let hide the built-in `open` (test_mapped.py)."""
    native = filterlab._filterlab
    public = sorted(name for name in vars(native) if not name.startswith("_"))
    assert sorted(filterlab.__all__ + ["open"]) == public
    assert {"ClassicBloom", "Ribbon", "AtomicBlockedBloom", "FilterlabError", "load"} <= set(public)
    assert all(getattr(filterlab, name) is getattr(native, name) for name in public)


@pytest.mark.parametrize("cls", [BinaryFuse8, BinaryFuse16, Ribbon])
def test_static_filters_hold_their_set_and_take_no_key(cls):
    members = keys("set", 5_000)
    f = cls(members, 0.01)
    assert len(f) == 5_000
    assert f.contains_many(members) == [True] * 5_000
    assert all(k in f for k in members[:100])
    back = cls.from_bytes(f.to_bytes())
    assert back.to_bytes() == f.to_bytes()
    assert type(filterlab.from_bytes(f.to_bytes())) is cls
    assert not hasattr(f, "add")
    probes = keys("absent", 50_000)
    fp = sum(f.contains_many(probes))
    assert fp <= binomial_upper(50_000, f.expected_fpr())
    with pytest.raises(FilterlabError):
        cls(members, 1e-9)


def test_a_str_without_utf8_form_raises_and_changes_nothing():
    # Keys are read in place as UTF-8 (abi3 from 3.10); a lone surrogate has no UTF-8 form.
    f = filterlab.ClassicBloom(1_000, 0.01)
    for call in (f.add, f.__contains__, lambda k: f.add_many(["ok", k]), lambda k: f.contains_many([k])):
        with pytest.raises(UnicodeEncodeError):
            call("\ud800")
    assert len(f) == 0 and "ok" not in f
    f.add("naïve ☃")
    assert "naïve ☃" in f and "naïve ☃".encode() in f
