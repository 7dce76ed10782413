"""pybloom_live's API and file layout, bit for bit, with the hashing and bits in Rust.

Code written for pybloom_live runs after swapping the import::

    from filterlab.pybloom_compat import BloomFilter, ScalableBloomFilter, make_hashfuncs

The classes lay out their bits as pybloom_live 4.x does (one slice per hash, salted xxh3-128
or SHA digests, bitarray's little-endian bit order), so a file pybloom_live's ``tofile``
wrote loads with ``fromfile`` here and answers every key as pybloom_live does, and a file
written here loads in pybloom_live. Pickles are this module's own.

- ``BloomFilter(capacity, error_rate=0.001)``: ``add`` returns ``True`` when the key was
  (probably) there already and counts only new keys; as in pybloom_live 4.0.0 the capacity
  check runs before the add and refuses only once ``count > capacity``, so ``capacity + 1``
  new keys go in and the next ``add`` raises ``IndexError``. ``union``/``|``,
  ``intersection``/``&`` and ``copy`` return new filters with the bits and a ``count`` of 0,
  as pybloom_live 4.0.0's do; ``tofile``/``fromfile`` read and write pybloom_live's files.
  A float capacity (``1e6``) is accepted, as pybloom_live accepts it.
- ``ScalableBloomFilter(initial_capacity=100, error_rate=0.001, mode=LARGE_SET_GROWTH)``:
  stage ``i`` holds ``initial_capacity * mode**i`` keys at ``error_rate * 0.9**(i + 1)``, as
  in pybloom_live. Its false-positive rate is therefore the sum over its stages, up to
  ``9 * error_rate`` (``error_rate * 0.9 / (1 - 0.9)``), not ``error_rate``: for a bound held
  at every size use ``filterlab.ScalableBloom``.
- Keys, as pybloom_live 4.0.0 (its PyPI release) hashes them: ``str`` as UTF-8, anything
  else as ``str(key)`` in UTF-8. So ``42`` and ``"42"`` are one key, a tuple is its
  ``repr``-like text, and ``b'a'`` is hashed as the text ``"b'a'"`` (not as the byte ``a``).
  A file pybloom_live 4.0.0 filled with any kind of key answers every one of them here.
- ``raw_bytes=True`` (keyword of the constructors, ``fromfile`` and ``make_hashfuncs``) is the
  faster opt-in: ``bytes`` keys hashed as they are (as pybloom_live's repository, after
  4.0.0, does), one ``str()`` call fewer per key. A filter made so answers a 4.0.0 file's
  ``bytes`` keys as absent, so it is never the default; ``str`` and other keys hash alike
  either way. The choice is not in the file (pybloom_live's layout has no room for it): give
  the same ``raw_bytes`` to ``fromfile`` as to the filter that wrote it. Pickles keep it;
  a pickle of this module from before the option (which hashed ``bytes`` as they are) loads
  with ``raw_bytes=True``.

Where this module differs from pybloom_live:

- pybloom_live reads its digests in the machine's byte order; this module in little-endian,
  which is the order of every machine pybloom_live's wheels are built for.
- The ``bitarray`` attribute is not there (the bits live in Rust); ``num_bits``,
  ``num_slices``, ``bits_per_slice``, ``capacity``, ``count`` and ``error_rate`` are.
- ``copy()`` keeps the filter's own slices; pybloom_live 4.0.0 recomputes them from
  ``capacity`` and ``error_rate``, which gives the same shape for every filter it made.
"""

import copy as _copy
import hashlib
import math
from struct import calcsize, pack, unpack
from typing import Any, BinaryIO, Callable, Iterator, List, Tuple

from ._filterlab import _SlicedHashes, _SlicedTable, _xxh3_128_digest

__all__ = [
    "BloomFilter",
    "ScalableBloomFilter",
    "make_hashfuncs",
    "SMALL_SET_GROWTH",
    "LARGE_SET_GROWTH",
]

SMALL_SET_GROWTH = 2
LARGE_SET_GROWTH = 4

# pybloom_live's stage rate ratio.
_RATIO = 0.9
# Stages a file may declare: 2^10 stages of at least twice the one before hold more keys
# than any table can.
_MOST_STAGES = 1024


class _Xxh3_128:
    """A hashlib-style object for xxh3-128 (digests in Python ``xxhash``'s byte order)."""

    name = "xxh3_128"
    digest_size = 16
    block_size = 64

    def __init__(self, data: bytes = b"") -> None:
        self._data = bytearray(data)

    def update(self, data: bytes) -> None:
        self._data += data

    def copy(self) -> "_Xxh3_128":
        return _Xxh3_128(bytes(self._data))

    def digest(self) -> bytes:
        return _xxh3_128_digest(bytes(self._data))

    def hexdigest(self) -> str:
        return self.digest().hex()

    def intdigest(self) -> int:
        return int.from_bytes(self.digest(), "big")


def xxh3_128(data: bytes = b"") -> _Xxh3_128:
    """xxh3-128, the digest pybloom_live uses for tables of up to 128 bits of indices."""
    return _Xxh3_128(data)


_HASHES = {
    "xxh3_128": xxh3_128,
    "openssl_sha1": hashlib.sha1,
    "openssl_sha256": hashlib.sha256,
    "openssl_sha384": hashlib.sha384,
    "openssl_sha512": hashlib.sha512,
}


def _hashing(
    num_slices: int, num_bits: int, raw_bytes: bool = False
) -> Tuple[Callable[[Any], Iterator[int]], Any]:
    shape = _SlicedHashes(num_slices, num_bits, raw_bytes)
    hashfn = _HASHES[shape.hash_name]

    def make_hashes(key: Any) -> Iterator[int]:
        return iter(shape.indices(key))

    return make_hashes, hashfn


def make_hashfuncs(
    num_slices: int, num_bits: int, *, raw_bytes: bool = False
) -> Tuple[Callable[[Any], Iterator[int]], Any]:
    """``(make_hashes, hashfn)`` as pybloom_live gives them: ``make_hashes(key)`` yields the
    bit index within each of ``num_slices`` slices of ``num_bits`` bits, ``hashfn`` is the
    digest constructor those indices come from (its ``__name__`` is pybloom_live's).
    ``raw_bytes``: ``bytes`` keys hashed as they are, not as ``str(key)``."""
    return _hashing(num_slices, num_bits, raw_bytes)


def _read_exactly(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ValueError(f"truncated file: expected {n} bytes, read {len(data)}")
    return data


class BloomFilter:
    """A fixed-capacity Bloom filter with pybloom_live's interface and file layout."""

    FILE_FMT = b"<dQQQQ"

    def __init__(self, capacity: float, error_rate: float = 0.001, *, raw_bytes: bool = False) -> None:
        if not (0 < error_rate < 1):
            raise ValueError("Error_Rate must be between 0 and 1.")
        if not capacity > 0:
            raise ValueError("Capacity must be > 0")
        # pybloom_live's sizing, to the bit: k = ceil(log2(1/p)) slices of
        # ceil(n |ln p| / (k ln(2)^2)) bits.
        num_slices = int(math.ceil(math.log(1.0 / error_rate, 2)))
        bits_per_slice = int(
            math.ceil((capacity * abs(math.log(error_rate))) / (num_slices * (math.log(2) ** 2)))
        )
        self.raw_bytes = bool(raw_bytes)
        self._setup(error_rate, num_slices, bits_per_slice, capacity, 0)
        self._table = _SlicedTable(num_slices, bits_per_slice, self.raw_bytes)

    def _setup(
        self, error_rate: float, num_slices: int, bits_per_slice: int, capacity: float, count: int
    ) -> None:
        self.error_rate = error_rate
        self.num_slices = num_slices
        self.bits_per_slice = bits_per_slice
        self.capacity = capacity
        self.num_bits = num_slices * bits_per_slice
        self.count = count
        self.make_hashes, self.hashfn = _hashing(num_slices, bits_per_slice, self.raw_bytes)

    # The first article's class names these `size` and `hash_count`.
    @property
    def size(self) -> int:
        return self.num_bits

    @property
    def hash_count(self) -> int:
        return self.num_slices

    def __contains__(self, key: Any) -> bool:
        return key in self._table

    def __len__(self) -> int:
        return self.count

    def add(self, key: Any, skip_check: bool = False) -> bool:
        """Adds ``key``; returns whether it was (probably) present already (always ``False``
        with ``skip_check``, which counts every add). Refused with ``IndexError`` once
        ``count > capacity`` (pybloom_live 4.0.0's check, made before the add)."""
        if self.count > self.capacity:
            raise IndexError("BloomFilter is at capacity")
        present = self._table.add(key)
        if skip_check or not present:
            self.count += 1
            return False
        return True

    def copy(self) -> "BloomFilter":
        """An independent filter with the same bits and parameters and a ``count`` of 0, as
        pybloom_live 4.0.0's ``copy`` (which builds a new filter and copies only the bits)."""
        new = BloomFilter.__new__(BloomFilter)
        new.raw_bytes = self.raw_bytes
        new._setup(self.error_rate, self.num_slices, self.bits_per_slice, self.capacity, 0)
        new._table = self._table.__copy__()
        return new

    def _check_shape(self, other: "BloomFilter", message: str) -> None:
        if self.capacity != other.capacity or self.error_rate != other.error_rate:
            raise ValueError(message)
        if self.raw_bytes != other.raw_bytes:
            raise ValueError(f"{message}; and both the same raw_bytes (their bytes keys hash differently)")

    def union(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter with the keys of both and a ``count`` of 0 (a ``copy``, as in
        pybloom_live 4.0.0)."""
        self._check_shape(
            other,
            "Unioning filters requires both filters to have both the same capacity and error rate",
        )
        new = self.copy()
        new._table = self._table.union(other._table)
        return new

    def __or__(self, other: "BloomFilter") -> "BloomFilter":
        return self.union(other)

    def intersection(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter with the bits both have (every key of both, and perhaps others) and a
        ``count`` of 0 (a ``copy``, as in pybloom_live 4.0.0)."""
        self._check_shape(
            other,
            "Intersecting filters requires both filters to have equal capacity and error rate",
        )
        new = self.copy()
        new._table = self._table.intersection(other._table)
        return new

    def __and__(self, other: "BloomFilter") -> "BloomFilter":
        return self.intersection(other)

    def tofile(self, f: BinaryIO) -> None:
        """Writes the filter to the binary file object ``f`` in pybloom_live's layout."""
        capacity = int(self.capacity)
        f.write(
            pack(self.FILE_FMT, self.error_rate, self.num_slices, self.bits_per_slice, capacity, self.count)
        )
        f.write(self._table.to_bits())

    @classmethod
    def fromfile(cls, f: BinaryIO, n: int = -1, *, raw_bytes: bool = False) -> "BloomFilter":
        """Reads a filter that pybloom_live's (or this module's) ``tofile`` wrote; with
        ``n > 0``, reads only ``n`` bytes (the filter's length within a larger file).
        ``raw_bytes``: as the filter that wrote it was made (the file does not say)."""
        headerlen = calcsize(cls.FILE_FMT)
        if 0 < n < headerlen:
            raise ValueError("n too small!")
        error_rate, num_slices, bits_per_slice, capacity, count = unpack(
            cls.FILE_FMT, _read_exactly(f, headerlen)
        )
        bits = _read_exactly(f, n - headerlen) if n > 0 else f.read()
        new = cls.__new__(cls)
        new.raw_bytes = bool(raw_bytes)
        new._table = _SlicedTable.from_bits(num_slices, bits_per_slice, bits, new.raw_bytes)
        new._setup(error_rate, num_slices, bits_per_slice, capacity, count)
        return new

    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("make_hashes", "hashfn", "_table")}
        state["bits"] = self._table.to_bits()
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        bits = state.pop("bits")
        # A pickle from before `raw_bytes` was hashed that way.
        state.setdefault("raw_bytes", True)
        self.__dict__.update(state)
        self.make_hashes, self.hashfn = _hashing(self.num_slices, self.bits_per_slice, self.raw_bytes)
        self._table = _SlicedTable.from_bits(self.num_slices, self.bits_per_slice, bits, self.raw_bytes)


class ScalableBloomFilter:
    """A growing Bloom filter with pybloom_live's interface, stages and file layout."""

    SMALL_SET_GROWTH = SMALL_SET_GROWTH
    LARGE_SET_GROWTH = LARGE_SET_GROWTH
    FILE_FMT = "<idQd"

    def __init__(
        self,
        initial_capacity: float = 100,
        error_rate: float = 0.001,
        mode: int = LARGE_SET_GROWTH,
        *,
        raw_bytes: bool = False,
    ) -> None:
        if not error_rate or error_rate < 0:
            raise ValueError("Error_Rate must be a decimal less than 0.")
        self.raw_bytes = bool(raw_bytes)
        self._setup(mode, _RATIO, initial_capacity, error_rate)
        self.filters: List[BloomFilter] = []

    def __setstate__(self, state: dict) -> None:
        # A pickle from before `raw_bytes` was hashed that way.
        self.__dict__.update({"raw_bytes": True, **state})

    def _setup(self, mode: int, ratio: float, initial_capacity: float, error_rate: float) -> None:
        self.scale = mode
        self.ratio = ratio
        self.initial_capacity = initial_capacity
        self.error_rate = error_rate

    def __contains__(self, key: Any) -> bool:
        return any(key in f for f in reversed(self.filters))

    def add(self, key: Any) -> bool:
        """Adds ``key``; returns whether it was (probably) present already."""
        if key in self:
            return True
        if not self.filters:
            stage = BloomFilter(self.initial_capacity, self.error_rate * self.ratio, raw_bytes=self.raw_bytes)
            self.filters.append(stage)
        else:
            stage = self.filters[-1]
            if stage.count >= stage.capacity:
                stage = BloomFilter(
                    stage.capacity * self.scale, stage.error_rate * self.ratio, raw_bytes=self.raw_bytes
                )
                self.filters.append(stage)
        stage.add(key, skip_check=True)
        return False

    def union(self, other: "ScalableBloomFilter") -> "ScalableBloomFilter":
        """A new filter whose stages are the unions of both filters' stages. As in
        pybloom_live 4.0.0, a united stage is a ``|`` (its ``count`` 0) and the longer
        filter's further stages are copied with their counts."""
        if (self.scale, self.initial_capacity, self.error_rate, self.raw_bytes) != (
            other.scale,
            other.initial_capacity,
            other.error_rate,
            other.raw_bytes,
        ):
            raise ValueError(
                "Unioning two scalable bloom filters requires both filters to have both "
                "the same mode, initial capacity and error rate (and raw_bytes)"
            )
        larger, smaller = (self, other) if len(self.filters) > len(other.filters) else (other, self)
        new = _copy.deepcopy(larger)
        new.filters = [a | b for a, b in zip(new.filters, smaller.filters)] + new.filters[
            len(smaller.filters) :
        ]
        return new

    def __or__(self, other: "ScalableBloomFilter") -> "ScalableBloomFilter":
        return self.union(other)

    @property
    def capacity(self) -> float:
        """Keys the stages allocated so far were sized for."""
        return sum(f.capacity for f in self.filters)

    @property
    def count(self) -> int:
        return len(self)

    def __len__(self) -> int:
        return sum(f.count for f in self.filters)

    def tofile(self, f: BinaryIO) -> None:
        """Writes the filter to the binary file object ``f`` in pybloom_live's layout (the
        stages' lengths first, so ``f`` need not be seekable)."""
        f.write(pack(self.FILE_FMT, self.scale, self.ratio, int(self.initial_capacity), self.error_rate))
        f.write(pack(b"<l", len(self.filters)))
        if self.filters:
            header = calcsize(BloomFilter.FILE_FMT)
            sizes = [header + (s.num_bits + 7) // 8 for s in self.filters]
            f.write(pack(b"<" + b"Q" * len(sizes), *sizes))
            for stage in self.filters:
                stage.tofile(f)

    @classmethod
    def fromfile(cls, f: BinaryIO, *, raw_bytes: bool = False) -> "ScalableBloomFilter":
        """Reads a filter that pybloom_live's (or this module's) ``tofile`` wrote;
        ``raw_bytes`` as the filter that wrote it was made (the file does not say)."""
        new = cls(raw_bytes=raw_bytes)
        new._setup(*unpack(cls.FILE_FMT, _read_exactly(f, calcsize(cls.FILE_FMT))))
        (stages,) = unpack(b"<l", _read_exactly(f, calcsize(b"<l")))
        if not 0 <= stages <= _MOST_STAGES:
            raise ValueError(f"{stages} stages: a file holds 0 to {_MOST_STAGES}")
        lengths = unpack(b"<" + b"Q" * stages, _read_exactly(f, 8 * stages))
        new.filters = [BloomFilter.fromfile(f, length, raw_bytes=raw_bytes) for length in lengths]
        return new
