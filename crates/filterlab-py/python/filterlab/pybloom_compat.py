"""The part of pybloom_live's API that tutorials use, on filterlab's filters.

Code written for pybloom_live runs unchanged after swapping the import::

    from filterlab.pybloom_compat import BloomFilter, ScalableBloomFilter

- ``BloomFilter(capacity, error_rate=0.001)`` is a classic Bloom filter; ``add`` returns
  ``True`` when the key was (probably) there already and counts only new keys, and raises
  ``IndexError`` past capacity, as pybloom_live does.
- ``ScalableBloomFilter(initial_capacity=100, error_rate=0.001, mode=SMALL_SET_GROWTH)``
  grows by stages of 2x (``SMALL_SET_GROWTH``) or 4x (``LARGE_SET_GROWTH``) at tightening
  ratio 0.9, and unlike pybloom_live keeps its false-positive rate under ``error_rate``.
- Keys: ``str`` and ``bytes`` as they are; any other object as ``str(key)``, like pybloom_live.
  The bits differ from pybloom_live's (another hash), so its files do not load here.

The attributes ``size`` and ``hash_count`` of the first article's own class are aliases of
``num_bits`` and ``num_slices``.
"""

from typing import Any, Union

from ._filterlab import ClassicBloom, ScalableBloom

__all__ = ["BloomFilter", "ScalableBloomFilter", "SMALL_SET_GROWTH", "LARGE_SET_GROWTH"]

SMALL_SET_GROWTH = 2
LARGE_SET_GROWTH = 4

# pybloom_live's stage rate ratio.
_RATIO = 0.9


def _key(key: Any) -> Union[str, bytes]:
    return key if isinstance(key, (str, bytes)) else str(key)


class BloomFilter:
    """A fixed-capacity Bloom filter with pybloom_live's interface."""

    def __init__(self, capacity: int, error_rate: float = 0.001) -> None:
        if not 0 < error_rate < 1:
            raise ValueError("Error_Rate must be between 0 and 1.")
        if not capacity > 0:
            raise ValueError("Capacity must be > 0")
        self._filter = ClassicBloom(capacity, error_rate)
        self.capacity = capacity
        self.error_rate = error_rate
        self.count = 0

    @property
    def num_bits(self) -> int:
        return self._filter.bits

    @property
    def num_slices(self) -> int:
        return self._filter.hashes

    size = num_bits
    hash_count = num_slices

    def add(self, key: Any, skip_check: bool = False) -> bool:
        """Adds ``key``; returns whether it was (probably) present already."""
        if self.count > self.capacity:
            raise IndexError("BloomFilter is at capacity")
        key = _key(key)
        if skip_check:
            self._filter.add(key)
            self.count += 1
            return False
        if self._filter.insert_if_absent(key):
            self.count += 1
            return False
        return True

    def __contains__(self, key: Any) -> bool:
        return _key(key) in self._filter

    def __len__(self) -> int:
        return self.count

    def copy(self) -> "BloomFilter":
        new = BloomFilter.__new__(BloomFilter)
        new.__dict__.update(self.__dict__)
        new._filter = ClassicBloom.from_bytes(self._filter.to_bytes())
        return new

    def union(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter holding the keys of both (same capacity and error rate)."""
        if self.capacity != other.capacity or self.error_rate != other.error_rate:
            raise ValueError("Unioning filters requires both filters to have both the same capacity and error rate")
        new = self.copy()
        new._filter.union(other._filter)
        new.count = len(new._filter)
        return new

    def __or__(self, other: "BloomFilter") -> "BloomFilter":
        return self.union(other)


class ScalableBloomFilter:
    """A growing Bloom filter with pybloom_live's interface."""

    SMALL_SET_GROWTH = SMALL_SET_GROWTH
    LARGE_SET_GROWTH = LARGE_SET_GROWTH

    def __init__(
        self,
        initial_capacity: int = 100,
        error_rate: float = 0.001,
        mode: int = SMALL_SET_GROWTH,
    ) -> None:
        if not error_rate or error_rate < 0:
            raise ValueError("Error_Rate must be a decimal less than 0.")
        self._filter = ScalableBloom.with_growth(initial_capacity, error_rate, float(mode), _RATIO)
        self.initial_capacity = initial_capacity
        self.error_rate = error_rate
        self.scale = mode
        self.ratio = _RATIO

    def add(self, key: Any) -> bool:
        """Adds ``key``; returns whether it was (probably) present already."""
        return not self._filter.insert_if_absent(_key(key))

    def __contains__(self, key: Any) -> bool:
        return _key(key) in self._filter

    def __len__(self) -> int:
        return len(self._filter)

    @property
    def capacity(self) -> int:
        """Items the stages allocated so far were sized for."""
        return self._filter.capacity

    @property
    def count(self) -> int:
        return len(self._filter)
