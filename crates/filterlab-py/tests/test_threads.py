"""The atomic filters shared by Python threads, batches running with the GIL released."""

import threading

import pytest
from conftest import keys

from filterlab import AtomicBlockedBloom, AtomicClassicBloom, ClassicBloom


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


def test_a_single_threaded_filter_refuses_a_second_borrower_instead_of_racing():
    f = ClassicBloom(1_000_000, 0.01)
    big = keys("big", 400_000)
    errors = []
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            f.add_many(big)

    def reader():
        for _ in range(200):
            try:
                "x" in f
            except RuntimeError as e:
                errors.append(e)
        stop.set()

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Whether or not the reader ran while a batch held the filter, nothing crashed and every
    # refusal was a clean RuntimeError; the filter is whole.
    assert all("borrow" in str(e).lower() for e in errors)
    assert f.contains_many(big) == [True] * len(big)
