"""The first article's BloomFilter class, re-done on filterlab.

The article hand-rolls k seeded mmh3 calls over a bitarray (bench-harness/python/articles_bloom.py
keeps it verbatim). On filterlab the same interface is a few lines, sized by the formulas
(m = -n ln p / ln² 2, k = round(m/n ln 2), not the article's int() truncations; m then grows until
the exact rate meets p), and its reads and writes run in Rust. Its usage block, from the article,
runs unchanged below.
"""

from filterlab import ClassicBloom


class BloomFilter:
    def __init__(self, capacity: int, error_rate: float = 0.01):
        self._filter = ClassicBloom(capacity, error_rate)
        self.capacity, self.error_rate = capacity, error_rate
        self.size, self.hash_count = self._filter.bits, self._filter.hashes

    @property
    def count(self) -> int:
        return len(self._filter)

    def add(self, item: str) -> None:
        self._filter.add(item)

    def __contains__(self, item: str) -> bool:
        return item in self._filter


if __name__ == "__main__":
    # The article's usage, as published (its comments give its own figures: 1.20 MB is the
    # size for 1M items, 11.4 MiB for 10M; k is 7 here, 6 with the article's truncation).
    bf = BloomFilter(capacity=10_000_000, error_rate=0.01)
    print(f"Size: {bf.size / 8 / 1024 / 1024:.2f} MB")  # 1.20 MB
    print(f"Hashes: {bf.hash_count}")  # 7

    bf.add("ahmed@example.com")
    print("ahmed@example.com" in bf)  # True
    print("not_added@example.com" in bf)  # False (in 99% of cases)
