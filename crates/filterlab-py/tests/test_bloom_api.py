"""filterlab.Bloom: rbloom's API on the classic filter, checked behaviour by behaviour and
beside the real rbloom (installed from PyPI into the test venv)."""

import gc
import math
import pickle
import weakref
from hashlib import sha256

import pytest
import rbloom
from conftest import binomial_within, keys

from filterlab import Bloom, ClassicBloom, FilterlabError


def stable(obj):
    """A hash function that survives the process (rbloom's README's recipe, in our words)."""
    return int.from_bytes(sha256(pickle.dumps(obj)).digest()[:16], "big") - 2**127


@pytest.mark.parametrize("n,p", [(27_000, 0.0317), (1, 0.5), (1140, 0.999), (10_000_000, 0.01), (13_242, 1e-7)])
def test_sizes_and_repr_are_rbloom_s(n, p):
    ours, theirs = Bloom(n, p), rbloom.Bloom(n, p)
    assert ours.size_in_bits == theirs.size_in_bits
    # rbloom gives 1140 keys at 99.9% zero hash functions (every query then answers yes, and
    # its repr divides by zero); filterlab takes at least one.
    if p < 0.9:
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("n,p,error", [(0, 0.1, "expected_items"), (10, 0.0, "false_positive_rate"), (10, 1.0, "false_positive_rate")])
def test_bad_arguments_are_value_errors_with_rbloom_s_messages(n, p, error):
    with pytest.raises(ValueError, match=error):
        Bloom(n, p)


def test_hash_func_is_kept_and_checked():
    assert Bloom(10, 0.1).hash_func is hash
    assert Bloom(10, 0.1, hash_func=hash).hash_func is hash
    assert Bloom(10, 0.1, hash_func=stable).hash_func is stable
    with pytest.raises(TypeError, match="callable"):
        Bloom(10, 0.1, hash_func=42)
    bad = Bloom(10, 0.1, hash_func=lambda o: "not an int")
    with pytest.raises(TypeError, match="integer"):
        bad.add("x")
    with pytest.raises(TypeError, match="integer"):
        Bloom(10, 0.1, hash_func=lambda o: 2**127).add("x")


def test_add_contains_bool_and_approx_items():
    b = Bloom(1_000, 0.01)
    assert not b and b.approx_items == 0.0
    b.add("foo")
    b.add(("a", 1))  # any hashable object, as with rbloom
    assert b and "foo" in b and ("a", 1) in b and "bar" not in b
    with pytest.raises(TypeError):
        b.add(["unhashable"])


def test_approx_items_and_the_rate_ignore_duplicates():
    b = Bloom(50_000, 0.01)
    members = keys("m", 20_000)
    b.update(members)
    est, rate = b.approx_items, b.expected_fpr()
    assert abs(est - 20_000) < 0.02 * 20_000
    b.update(members)  # every key again
    assert (b.approx_items, b.expected_fpr()) == (est, rate)


def test_classic_bloom_estimates_from_its_table_too():
    # Issue 38: 100,000 adds of one key reported an expected FP of 1.0 (len() counts adds).
    f = ClassicBloom(1_000, 0.01)
    for _ in range(100_000):
        f.add("the same key")
    assert len(f) == 100_000 and f.expected_fpr() > 0.99
    assert f.approx_items == pytest.approx(1.0, abs=0.01)
    assert f.realised_fpr() < 1e-10


def test_the_rate_matches_the_formula_at_the_load():
    b = Bloom(20_000, 0.01)
    b.update(keys("member", 20_000))
    m, n = b.size_in_bits, 20_000
    k = int(-math.log(0.01) / math.log(2))  # rbloom's k, (m/n) ln 2 rounded down: 6
    formula = (1 - math.exp(-k * n / m)) ** k
    probes = keys("probe", 200_000, seed=3)
    fp = sum(p in b for p in probes)
    assert binomial_within(fp, len(probes), formula), (fp / len(probes), formula)
    assert binomial_within(fp, len(probes), b.expected_fpr())


def test_set_operations_return_new_filters_and_leave_operands():
    a, b = Bloom(1_000, 0.01), Bloom(1_000, 0.01)
    a.update(["x", "y"])
    b.update(["y", "z"])
    u, i = a | b, a & b
    assert all(k in u for k in "xyz") and "y" in i and "x" not in i
    assert "z" not in a and "x" not in b
    assert a.union(b) == u and a.intersection(b) == i
    assert a.union(b, ["w"]) >= u and "w" in a.union(b, ["w"])
    assert a.intersection(b, ["y"]) == i
    c = a.copy()
    c |= b
    assert c == u and c is not u
    c &= a
    assert c == a


def test_comparisons_are_subset_relations():
    small, big = Bloom(1_000, 0.01), Bloom(1_000, 0.01)
    small.add("a")
    big.update(["a", "b"])
    assert small < big and small <= big and big > small and big >= small and small != big
    assert small.issubset(big) and big.issuperset(small)
    assert small.issubset(["a", "c"]) and not big.issubset(["a"])
    assert big.issuperset(["a"]) and not small.issuperset(["b"])
    assert not small < small and small <= small and small == small.copy()
    with pytest.raises(TypeError):
        hash(small)


def test_clear_and_copy():
    b = Bloom(100, 0.01)
    b.add("a")
    c = b.copy()
    c.clear()
    assert not c and "a" in b and c.size_in_bits == b.size_in_bits


def test_operations_with_itself():
    b = Bloom(1_000, 0.1)
    b.add("foo")
    b |= b
    b &= b
    b.update(b, ["bob"], b)
    assert "foo" in b and "bob" in b
    b.intersection_update(b, ["foo"], b)
    assert "foo" in b and "bob" not in b
    assert b.union(b) == b and b.intersection(b, b) == b


def test_an_iterable_may_query_the_filter_it_feeds():
    b = Bloom(1_000, 0.01)
    b.update(k for k in keys("g", 100) if k not in b)
    assert all(k in b for k in keys("g", 100))


@pytest.mark.parametrize(
    "other,error",
    [(lambda: Bloom(2_000, 0.01), "size and max false positive rate"), (lambda: Bloom(1_000, 0.01, hash_func=stable), "same hash function")],
)
def test_incompatible_filters_are_refused(other, error):
    a = Bloom(1_000, 0.01)
    for op in (lambda x, y: x | y, lambda x, y: x & y, lambda x, y: x == y, lambda x, y: x.issubset(y)):
        with pytest.raises(ValueError, match=error):
            op(a, other())


def test_saved_filters_load_with_their_hash_function(tmp_path):
    b = Bloom(10_000, 0.01, hash_func=stable)
    b.update(keys("s", 5_000) + [42, (1, 2)])
    data = b.save_bytes()
    assert type(data) is bytes and Bloom.load_bytes(data, stable) == b
    path = tmp_path / "b.bloom"
    b.save(path)
    back = Bloom.load(path, stable)
    assert back == b and back.hash_func is stable and 42 in back and (1, 2) in back


def test_the_built_in_hash_cannot_be_saved_or_loaded():
    b = Bloom(100, 0.01)
    with pytest.raises(ValueError, match="built-in hash"):
        b.save_bytes()
    saved = Bloom(100, 0.01, hash_func=stable).save_bytes()
    with pytest.raises(ValueError, match="built-in hash"):
        Bloom.load_bytes(saved, hash)


def test_damaged_saved_bytes_are_refused():
    saved = bytearray(Bloom(1_000, 0.01, hash_func=stable).save_bytes())
    with pytest.raises(FilterlabError, match="not a saved filterlab.Bloom"):
        Bloom.load_bytes(b"rbloom" + bytes(saved[6:]), stable)
    saved[40] ^= 1
    with pytest.raises(FilterlabError):
        Bloom.load_bytes(bytes(saved), stable)
    with pytest.raises(FilterlabError):
        Bloom.load_bytes(bytes(saved[:30]), stable)


def test_the_hash_function_is_collected_with_the_filter():
    def f(x):
        return stable(x)

    ref = weakref.ref(f)
    b = Bloom(100, 0.1, hash_func=f)
    assert gc.get_referents(b) == [f]
    f.bloom = b  # a cycle through the filter
    del b, f
    gc.collect()
    assert ref() is None
