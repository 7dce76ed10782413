"""filterlab.pybloom_compat: pybloom_live's interface, and the articles' code on it."""

import pathlib
import runpy
import subprocess
import sys

import pytest
from conftest import binomial_upper, binomial_within, keys

from filterlab import pybloom_compat
from filterlab.pybloom_compat import (
    LARGE_SET_GROWTH,
    SMALL_SET_GROWTH,
    BloomFilter,
    ScalableBloomFilter,
)

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "articles_bloom.py"

# The first article's usage block, verbatim (its comments translated).
ARTICLE_USAGE = '''
bf = BloomFilter(capacity=10_000_000, error_rate=0.01)
print(f"Size: {bf.size / 8 / 1024 / 1024:.2f} MB")  # 1.20 MB
print(f"Hashes: {bf.hash_count}")  # 7

bf.add("ahmed@example.com")
print("ahmed@example.com" in bf)  # True
print("not_added@example.com" in bf)  # False (in 99% of cases)
'''


def test_the_articles_usage_runs_unchanged_on_the_drop_in(capsys):
    exec(ARTICLE_USAGE, {"BloomFilter": BloomFilter})
    lines = capsys.readouterr().out.splitlines()
    # pybloom_live's sizing: 7 slices of 13,692,941 bits for 10M at 1%, 95,850,587 bits.
    assert lines[0] == "Size: 11.43 MB"
    assert lines[1] == "Hashes: 7"
    assert lines[2] == "True"
    assert lines[3] in ("True", "False")


def test_the_articles_class_redone_on_the_package():
    r = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["Size: 11.44 MB", "Hashes: 7", "True"]
    cls = runpy.run_path(str(EXAMPLE))["BloomFilter"]
    bf = cls(capacity=1_000, error_rate=0.01)
    bf.add("a")
    assert "a" in bf and bf.count == 1


def test_add_reports_keys_already_present_and_counts_new_ones():
    bf = BloomFilter(capacity=1_000, error_rate=0.01)
    assert bf.add("user123") is False
    assert bf.add("user123") is True
    assert len(bf) == 1 and bf.count == 1
    assert 42 not in bf
    bf.add(42)
    assert 42 in bf and "42" in bf  # other objects are keyed by str(), as pybloom_live does


def test_a_full_bloom_filter_raises_index_error_like_pybloom_live():
    bf = BloomFilter(capacity=10, error_rate=0.01)
    with pytest.raises(IndexError, match="at capacity"):
        for k in keys("cap", 100):
            bf.add(k)
    assert len(bf) == 11  # pybloom_live 4.0.0 refuses once count > capacity


@pytest.mark.parametrize("capacity,error_rate", [(0, 0.01), (10, 0.0), (10, 1.0)])
def test_bad_parameters_are_value_errors(capacity, error_rate):
    with pytest.raises(ValueError):
        BloomFilter(capacity, error_rate)


def test_union_and_copy():
    a, b = BloomFilter(1_000, 0.01), BloomFilter(1_000, 0.01)
    a.add("left")
    b.add("right")
    both = a | b
    assert "left" in both and "right" in both and "right" not in a
    with pytest.raises(ValueError):
        a.union(BloomFilter(2_000, 0.01))


def test_the_mode_constants_are_pybloom_lives():
    assert (SMALL_SET_GROWTH, LARGE_SET_GROWTH) == (2, 4)
    assert ScalableBloomFilter.SMALL_SET_GROWTH == 2 and ScalableBloomFilter.LARGE_SET_GROWTH == 4
    assert set(pybloom_compat.__all__) >= {"BloomFilter", "ScalableBloomFilter"}


@pytest.mark.parametrize("mode", [SMALL_SET_GROWTH, LARGE_SET_GROWTH])
def test_scalable_stays_within_the_sum_of_its_stages_rates(mode):
    # pybloom_live's stages: stage i at error_rate * 0.9^(i+1), so the filter's rate is bounded
    # by their sum (up to 9x error_rate), not by error_rate. 1k grown to 50k, 200k probes.
    sbf = ScalableBloomFilter(initial_capacity=1_000, error_rate=0.01, mode=mode)
    members = keys("member", 50_000)
    for k in members:
        sbf.add(k)
    rates = [f.error_rate for f in sbf.filters]
    # A key taken for present (a false positive) is not added, so not counted.
    assert 50_000 - binomial_upper(50_000, sum(rates)) <= len(sbf) <= 50_000
    assert sbf.capacity >= len(sbf)
    assert rates == pytest.approx([0.01 * 0.9 ** (i + 1) for i in range(len(rates))])
    assert all(k in sbf for k in members)
    probes = keys("probe", 200_000, seed=11)
    fp = sum(1 for k in probes if k in sbf)
    assert fp <= binomial_upper(len(probes), sum(rates)), fp / len(probes)


def test_scalable_defaults_are_pybloom_lives():
    sbf = ScalableBloomFilter()
    assert (sbf.initial_capacity, sbf.error_rate, sbf.scale, sbf.filters) == (100, 0.001, 4, [])
    sbf.add("first")
    assert len(sbf.filters) == 1 and sbf.add("first") is True


def pybloom_fpr(n, slices, per_slice):
    """pybloom_live's FP rate after n keys: each slice's index is a 16-, 32- or 64-bit word
    modulo the slice's size, so the first `word % per_slice` indices are a little likelier
    (modulo bias); a probe is positive when every slice's bit is set."""
    word = 1 << (16 if per_slice < 1 << 15 else 32 if per_slice < 1 << 31 else 64)
    q, r = divmod(word, per_slice)
    rate = 0.0
    for count, p in ((r, (q + 1) / word), (per_slice - r, q / word)):
        rate += count * p * (1 - (1 - p) ** n)
    return rate**slices


def test_the_drop_ins_rate_is_pybloom_lives_formula_with_its_modulo_bias():
    # 20k keys at 1%: 7 slices of 27,386 bits take 16-bit words, and 65,536 % 27,386 = 10,764
    # indices come up 3 times in 65,536 instead of 2: the rate is 1.13%, not 1%.
    bf = BloomFilter(capacity=20_000, error_rate=0.01)
    for k in keys("member", 20_000):
        bf.add(k)
    expected = pybloom_fpr(20_000, bf.num_slices, bf.bits_per_slice)
    assert 0.0112 < expected < 0.0114
    probes = keys("probe", 200_000, seed=11)
    fp = sum(1 for k in probes if k in bf)
    assert binomial_within(fp, len(probes), expected), (fp / len(probes), expected)
    # At 10M keys the words are 32-bit and the bias is gone: 1.004%, the partitioned layout's own excess.
    assert abs(pybloom_fpr(10_000_000, 7, 13_692_941) - 0.010039) < 1e-6


def test_the_articles_class_holds_one_percent_at_design_load():
    # The example's class, as the articles' code uses it: filled to capacity one key at a
    # time, then asked about 200k keys never added.
    bf = runpy.run_path(str(EXAMPLE))["BloomFilter"](capacity=20_000, error_rate=0.01)
    for k in keys("member", 20_000):
        bf.add(k)
    probes = keys("probe", 200_000, seed=11)
    fp = sum(1 for k in probes if k in bf)
    assert fp <= binomial_upper(len(probes), 0.01), fp / len(probes)
