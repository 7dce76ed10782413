"""The Aleph filter from Python: it grows past its capacity in place, deletes, and an estimate
of the final size gives it a static filter's fingerprints there."""

from filterlab import AlephFilter


def keys(tag, n):
    return [f"{tag}-{i}@example.com" for i in range(n)]


def test_grows_in_place_and_deletes():
    f = AlephFilter(1_000, 0.01)
    members = keys("m", 50_000)
    f.add_many(members)
    assert f.expansions >= 5
    assert all(f.contains_many(members))
    for k in members[::10]:
        f.remove(k)
    kept = [k for i, k in enumerate(members) if i % 10]
    assert all(f.contains_many(kept))
    assert len(f) == len(kept)
    assert f.expected_fpr() <= 0.01


def test_an_estimate_makes_a_smaller_filter_at_that_size():
    plain, told = AlephFilter(1_000, 0.01), AlephFilter.with_estimate(1_000, 0.01, 64_000)
    members = keys("e", 64_000)
    plain.add_many(members)
    told.add_many(members)
    assert all(told.contains_many(members))
    assert told.size_in_bytes < plain.size_in_bytes
    back = AlephFilter.from_bytes(told.to_bytes())
    assert back.to_bytes() == told.to_bytes()
