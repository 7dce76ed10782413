"""The atomic filters shared by Python threads, batches running with the GIL released."""

import threading
import time

import pytest
from conftest import keys

from filterlab import (
    AtomicBlockedBloom,
    AtomicClassicBloom,
    ClassicBloom,
    CountingBloom,
    FilterBusyError,
)


@pytest.mark.parametrize("cls", [AtomicClassicBloom, AtomicBlockedBloom])
def test_threads_share_one_filter(cls):
    f = cls(100_000, 0.01)
    threads_n, per = 8, 5_000
    chunks = [keys(f"t{t}-", per) for t in range(threads_n)]
    misses = []

    def work(chunk):
        f.add_many(chunk[: per // 2])
        for k in chunk[per // 2 :]:
            f.add(k)
        misses.extend(k for k, hit in zip(chunk, f.contains_many(chunk)) if not hit)

    threads = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert misses == []
    assert len(f) == threads_n * per
    everything = [k for c in chunks for k in c]
    assert f.contains_many(everything) == [True] * len(everything)


def test_a_single_threaded_filter_refuses_a_second_borrower_by_name_instead_of_racing():
    """A writer's batch runs with the GIL released; a reader that comes in meanwhile gets
    FilterBusyError naming the atomic classes (pyo3's own was "Already mutably borrowed")."""
    f = ClassicBloom(1_000_000, 0.01)
    big = keys("big", 400_000)
    errors = []
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            f.add_many(big)

    def reader():
        deadline = time.monotonic() + 20
        while not errors and time.monotonic() < deadline:
            try:
                "x" in f
                f.union(ClassicBloom(1_000_000, 0.01))
            except RuntimeError as e:
                errors.append(e)
        stop.set()

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors, "the reader never met the writer's batch in 20 s"
    for e in errors:
        assert isinstance(e, FilterBusyError)
        assert "AtomicClassicBloom" in str(e) and "ClassicBloom is single-threaded" in str(e)
    assert f.contains_many(big) == [True] * len(big)


def test_threads_may_query_one_single_threaded_filter_at_once():
    f = ClassicBloom(200_000, 0.01)
    members = keys("m", 100_000)
    f.add_many(members)
    answers, errors = [], []

    def reader():
        try:
            for _ in range(5):
                answers.append(all(f.contains_many(members)) and members[-1] in f)
        except RuntimeError as e:
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and answers == [True] * 20


def test_a_generator_may_query_the_filter_it_feeds():
    """The batch borrows the filter per chunk (16,384 keys), not while the generator runs: a
    generator that skips keys already present sees the chunks before its own."""
    f = CountingBloom(100_000, 0.001)
    first = keys("g", 20_000)
    stream = first + first  # every key again, two chunks later

    def fresh():
        for k in stream:
            if k not in f:
                yield k

    f.add_many(fresh())
    assert [f.count(k) for k in first[:2_000]] == [1] * 2_000
    # The last keys' repeats came within their own chunk, before it was added: counted twice.
    assert f.count(first[-1]) == 2
    # A filter that is fed while it is also being queried from inside the batch's own
    # generator is whole afterwards.
    assert f.contains_many(first) == [True] * len(first)

