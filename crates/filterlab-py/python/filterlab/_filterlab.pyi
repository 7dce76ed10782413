"""Type stubs of the Rust extension (src/*.rs); `python -m mypy.stubtest filterlab` checks them."""

import os
from typing import Any, Generic, Iterable, List, Sequence, Tuple, TypeVar, Union, final, type_check_only

from typing_extensions import Self

_Key = Union[str, bytes]
_Path = Union[str, "os.PathLike[str]"]
_F = TypeVar("_F")
_AnyFilter = Union[
    "ClassicBloom",
    "CountingBloom",
    "ScalableBloom",
    "CuckooFilter",
    "BlockedBloom",
    "QuotientFilter",
    "ExpandableCuckoo",
    "BinaryFuse8",
    "BinaryFuse16",
    "Ribbon",
]

__all__ = [
    "AtomicBlockedBloom",
    "AtomicClassicBloom",
    "BinaryFuse16",
    "BinaryFuse8",
    "BlockedBloom",
    "ClassicBloom",
    "CountingBloom",
    "CuckooFilter",
    "ExpandableCuckoo",
    "FilterlabError",
    "QuotientFilter",
    "Ribbon",
    "ScalableBloom",
    "from_bytes",
    "load",
    "peek_variant",
]

class FilterlabError(ValueError):
    """A filterlab operation was refused; the message is the Rust library's."""

# The shared parts of the classes, as the Rust side writes them (src/filters.rs, one macro body
# and its capabilities). They do not exist at runtime (`type_check_only`); `_F` is the class
# itself, for the static methods that return one.

@type_check_only
class _Filter(Generic[_F]):
    """What every class has: queries, sizes, files, pickle."""

    def __contains__(self, key: _Key, /) -> bool: ...
    def contains_many(self, keys: Iterable[_Key]) -> List[bool]: ...
    def __len__(self, /) -> int: ...
    @property
    def size_in_bytes(self) -> int: ...
    def expected_fpr(self) -> float: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> _F: ...
    def save(self, path: _Path) -> None: ...
    @staticmethod
    def load(path: _Path) -> _F: ...
    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]: ...

@type_check_only
class _Sized(_Filter[_F]):
    """A filter sized for a capacity that takes keys later (single-threaded or shared)."""

    def __new__(cls, capacity: int, fpr: float = 0.01) -> Self: ...
    def add(self, key: _Key) -> None: ...
    def add_many(self, keys: Iterable[_Key]) -> None: ...
    def add_buffer(self, data: bytes, offsets: Sequence[int]) -> None: ...
    def contains_buffer(self, data: bytes, offsets: Sequence[int]) -> List[bool]: ...
    @property
    def capacity(self) -> int: ...

@type_check_only
class _Single(_Sized[_F]):
    """A single-threaded filter."""

    def insert_if_absent(self, key: _Key) -> bool: ...
    @property
    def name(self) -> str: ...

@type_check_only
class _Unites(_Single[_F]):
    """A filter that adds another one's keys (same capacity, rate and seed)."""

    def union(self, other: _F) -> None: ...

@type_check_only
class _Deletes(_Single[_F]):
    """A filter that removes keys and counts copies."""

    def remove(self, key: _Key) -> None: ...
    def count(self, key: _Key) -> int: ...

@type_check_only
class _Grows(_Single[_F]):
    """A filter that adds stages as it fills, under a bound on its rate."""

    @property
    def stages(self) -> int: ...
    def fpr_bound(self) -> float: ...

@type_check_only
class _Static(_Filter[_F]):
    """A static filter, built once from its whole key set."""

    def __new__(cls, keys: Iterable[_Key], fpr: float = 0.01) -> Self: ...
    @property
    def name(self) -> str: ...

@final
class ClassicBloom(_Unites["ClassicBloom"]):
    """The classic Bloom filter (Bloom 1970)."""

    @property
    def bits(self) -> int: ...
    @property
    def hashes(self) -> int: ...

@final
class BlockedBloom(_Unites["BlockedBloom"]):
    """The split-block Bloom filter (Putze et al. 2007)."""

@final
class CountingBloom(_Unites["CountingBloom"], _Deletes["CountingBloom"]):
    """The counting Bloom filter (Fan et al. 2000)."""

@final
class CuckooFilter(_Deletes["CuckooFilter"]):
    """The cuckoo filter (Fan et al. 2014)."""

@final
class ScalableBloom(_Grows["ScalableBloom"]):
    """The scalable Bloom filter (Almeida et al. 2007)."""

    @staticmethod
    def with_growth(capacity: int, fpr: float, growth: float, tightening: float) -> "ScalableBloom": ...

@final
class QuotientFilter(_Deletes["QuotientFilter"]):
    """The quotient filter (Bender et al. 2012; rank-and-select layout of Pandey et al. 2017)."""

    def resize(self) -> None: ...
    def merge(self, other: "QuotientFilter") -> None: ...

@final
class ExpandableCuckoo(_Deletes["ExpandableCuckoo"], _Grows["ExpandableCuckoo"]):
    """The expandable cuckoo filter: nested cuckoo stages that grow and delete."""

@final
class BinaryFuse8(_Static["BinaryFuse8"]):
    """The binary fuse filter with 8-bit fingerprints (Graf & Lemire 2022), built once from its keys."""

@final
class BinaryFuse16(_Static["BinaryFuse16"]):
    """The binary fuse filter with 16-bit fingerprints (Graf & Lemire 2022), built once from its keys."""

@final
class Ribbon(_Static["Ribbon"]):
    """The standard ribbon filter (Dillinger & Walzer 2021), built once from its keys."""

@final
class AtomicClassicBloom(_Sized["AtomicClassicBloom"]):
    """The classic Bloom filter shared by threads."""

@final
class AtomicBlockedBloom(_Sized["AtomicBlockedBloom"]):
    """The split-block Bloom filter shared by threads."""

def from_bytes(data: bytes) -> _AnyFilter: ...
def load(path: _Path) -> _AnyFilter: ...
def peek_variant(data: bytes) -> str: ...

# pybloom_live's layout, private to filterlab.pybloom_compat (not in __all__).
@final
class _SlicedHashes:
    def __init__(self, num_slices: int, bits_per_slice: int) -> None: ...
    def indices(self, key: object) -> List[int]: ...
    @property
    def hash_name(self) -> str: ...

@final
class _SlicedTable:
    def __init__(self, num_slices: int, bits_per_slice: int) -> None: ...
    @staticmethod
    def from_bits(num_slices: int, bits_per_slice: int, data: bytes) -> _SlicedTable: ...
    def add(self, key: object) -> bool: ...
    def __contains__(self, key: object) -> bool: ...
    def to_bits(self) -> bytes: ...
    def count_ones(self) -> int: ...
    def union(self, other: _SlicedTable) -> _SlicedTable: ...
    def intersection(self, other: _SlicedTable) -> _SlicedTable: ...
    def __copy__(self) -> _SlicedTable: ...

def _xxh3_128_digest(data: bytes) -> bytes: ...
