"""Issue 40 in Python: `filterlab.GuavaBloomFilter`, and `filterlab.load` / `from_bytes` of the
bytes Guava's `writeTo` writes.

The bits are checked against Guava's rules written out here from its source
(BloomFilterStrategies.java) over mmh3, an independent MurmurHash3; the Rust type itself is
checked against Guava on the JDK (crates/filter-interop/tests/guava_peer.rs)."""

import math
import pickle
import struct

import mmh3
import pytest

import filterlab
from filterlab import FilterlabError, GuavaBloomFilter

MASK64 = (1 << 64) - 1


def guava_shape(n, fpp):
    """BloomFilter.create's bits (whole longs) and k (Guava 31's rule)."""
    bits = int(-n * math.log(fpp) / (math.log(2) ** 2))
    words = -(-bits // 64)
    k = max(1, round(bits / n * math.log(2)))
    return words, k


def mitz64_positions(key, k, m):
    h = mmh3.hash128(key, 0, x64arch=True)
    h1, h2 = h & MASK64, h >> 64
    c = h1
    for _ in range(k):
        yield (c & (MASK64 >> 1)) % m
        c = (c + h2) & MASK64


def guava_bytes(keys, n, fpp):
    """writeTo's bytes for a MURMUR128_MITZ_64 filter holding `keys`."""
    words, k = guava_shape(n, fpp)
    array = [0] * words
    for key in keys:
        for bit in mitz64_positions(key.encode(), k, words * 64):
            array[bit >> 6] |= 1 << (bit & 63)
    return struct.pack(">bBi", 1, k, words) + b"".join(struct.pack(">Q", w) for w in array)


KEYS = [f"user{i}@example.com" for i in range(3000)]


def test_bits_and_bytes_are_guavas():
    f = GuavaBloomFilter(5000, 0.01)
    for k in KEYS:
        f.add(k)
    assert f.strategy == "MURMUR128_MITZ_64"
    assert f.to_bytes() == guava_bytes(KEYS, 5000, 0.01)
    # A str and its UTF-8 bytes are one key (stringFunnel(UTF_8) and byteArrayFunnel()).
    assert all(k.encode() in f for k in KEYS[:100])


def test_a_wrong_rule_is_told_apart():
    # The check above can fail: a filter of other keys, or of one key fewer, has other bytes.
    f = GuavaBloomFilter(5000, 0.01)
    for k in KEYS[:-1]:
        f.add(k)
    assert f.to_bytes() != guava_bytes(KEYS, 5000, 0.01)


def test_load_and_from_bytes_read_guava_files(tmp_path):
    path = tmp_path / "users.guava"
    path.write_bytes(guava_bytes(KEYS, 5000, 0.01))
    loaded = filterlab.load(path)
    assert isinstance(loaded, GuavaBloomFilter)
    assert all(loaded.contains_many(KEYS))
    probes = [f"other{i}@example.org" for i in range(20000)]
    answers = loaded.contains_many(probes)
    words, k = guava_shape(5000, 0.01)
    ones = sum(bin(w).count("1") for w in struct.unpack(f">{words}Q", path.read_bytes()[6:]))
    expected = (ones / (words * 64)) ** k
    assert loaded.expected_fpr() == pytest.approx(expected, rel=1e-12)
    # Binomial tolerance: 20,000 probes at ~0.4%, within 5 standard deviations.
    sd = math.sqrt(expected * (1 - expected) / len(probes))
    assert abs(sum(answers) / len(probes) - expected) < 5 * sd + 1e-4
    assert abs(loaded.estimated_count() - 3000) < 4 * loaded.estimated_count_sd() + 1
    same = filterlab.from_bytes(path.read_bytes())
    assert same.to_bytes() == path.read_bytes()
    back = pickle.loads(pickle.dumps(loaded))
    assert back.to_bytes() == loaded.to_bytes()
    loaded.save(tmp_path / "again.guava")
    assert (tmp_path / "again.guava").read_bytes() == path.read_bytes()


def test_files_that_lie_are_refused(tmp_path):
    good = guava_bytes(KEYS[:10], 100, 0.01)
    # Cut: not taken for a Guava file, and the filterlab loader refuses it.
    cut = tmp_path / "cut.guava"
    cut.write_bytes(good[:-8])
    with pytest.raises(FilterlabError):
        filterlab.load(cut)
    with pytest.raises(FilterlabError):
        GuavaBloomFilter.from_bytes(good[:-8])
    # A strategy Guava does not define, a k of 0.
    for bad in (b"\x07" + good[1:], good[:1] + b"\x00" + good[2:]):
        with pytest.raises(FilterlabError):
            GuavaBloomFilter.from_bytes(bad)
    with pytest.raises(FilterlabError):
        GuavaBloomFilter(100, 0.01, strategy="mitz99")
    with pytest.raises(FilterlabError):
        GuavaBloomFilter(100, 1.5)
