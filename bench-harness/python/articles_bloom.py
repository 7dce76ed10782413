#!/usr/bin/env python3
"""The first article's Bloom filter, verbatim, timed on filterlab's key files.

The class below is the article's code as published (seeded 32-bit mmh3 calls, `int()`-truncated
m and k, `% m` indexing, a bitarray). The harness runs this script as a subprocess on the same
key files it measures its own filters on, when python3 has `mmh3` and `bitarray`
(`pip install mmh3 bitarray`), and prints one JSON object.

Every round constructs a fresh filter inside the timer (the allocation is timed, as the harness
times its own builds) and then times the negative and positive scans; the per-round figures are
printed in round order (`*_rounds`), so that the harness can pair and bootstrap them.

usage: articles_bloom.py MEMBERS_FILE PROBES_FILE N P QUERIES [ROUNDS]
"""

import json
import math
import sys
import time

import mmh3
from bitarray import bitarray

from keyfile import read_keys


class BloomFilter:
    def __init__(self, capacity: int, error_rate: float = 0.01):
        self.capacity = capacity
        self.error_rate = error_rate
        self.size = self._optimal_size(capacity, error_rate)
        self.hash_count = self._optimal_hashes(self.size, capacity)
        self.bits = bitarray(self.size)
        self.bits.setall(0)
        self.count = 0

    @staticmethod
    def _optimal_size(n: int, p: float) -> int:
        return int(-(n * math.log(p)) / (math.log(2) ** 2))

    @staticmethod
    def _optimal_hashes(m: int, n: int) -> int:
        return max(1, int((m / n) * math.log(2)))

    def add(self, item: str) -> None:
        for seed in range(self.hash_count):
            idx = mmh3.hash(item, seed) % self.size
            self.bits[idx] = 1
        self.count += 1

    def __contains__(self, item: str) -> bool:
        for seed in range(self.hash_count):
            idx = mmh3.hash(item, seed) % self.size
            if not self.bits[idx]:
                return False
        return True


def main():
    members_file, probes_file, n, p, queries = sys.argv[1:6]
    n, p, queries = int(n), float(p), int(queries)
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    members = read_keys(members_file, n)
    probes = read_keys(probes_file, queries)
    positives = members[: min(queries, len(members))]

    builds, negatives, positive_scans = [], [], []
    for _ in range(max(1, rounds)):
        start = time.perf_counter()
        bf = BloomFilter(capacity=n, error_rate=p)
        for key in members:
            bf.add(key)
        builds.append(time.perf_counter() - start)

        start = time.perf_counter()
        fp = sum(1 for key in probes if key in bf)
        negatives.append((time.perf_counter() - start) * 1e9 / len(probes))

        start = time.perf_counter()
        found = sum(1 for key in positives if key in bf)
        positive_scans.append((time.perf_counter() - start) * 1e9 / len(positives))

    json.dump(
        {
            "n": len(members),
            "m": bf.size,
            "k": bf.hash_count,
            "bytes": len(bf.bits.tobytes()),
            "rounds": len(builds),
            "build_seconds_rounds": builds,
            "ns_per_negative_lookup_rounds": negatives,
            "ns_per_positive_lookup_rounds": positive_scans,
            "false_positives": fp,
            "probes": len(probes),
            "false_negatives": len(positives) - found,
            "python": sys.version.split()[0],
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
