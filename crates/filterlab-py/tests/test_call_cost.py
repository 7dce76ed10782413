"""filterlab._filterlab._CallCost: ClassicBloom's `in` up to one part, for the harness's call costs."""

import pytest

import filterlab
from filterlab import ClassicBloom
from filterlab._filterlab import _CallCost

PARTS = ["call", "bytes", "lock", "hash"]


@pytest.mark.parametrize("part", PARTS)
def test_every_part_answers_false_for_members_too(part):
    c = _CallCost(part, 100, 0.01)
    assert c.part == part
    for key in ["alice@example.com", b"alice@example.com", "", "\u0130stanbul"]:
        assert (key in c) is False


def test_the_call_alone_does_not_read_the_key():
    # An int is no key: ClassicBloom refuses it, the call part never looks at it.
    assert (12 in _CallCost("call")) is False
    with pytest.raises(TypeError):
        12 in ClassicBloom(100)


@pytest.mark.parametrize("part", PARTS[1:])
def test_from_the_bytes_on_a_key_is_read_as_classicbloom_reads_it(part):
    with pytest.raises(TypeError, match="a key must be str or bytes, not int"):
        12 in _CallCost(part)
    with pytest.raises(UnicodeEncodeError):
        "\ud800" in _CallCost(part)


def test_unknown_parts_and_bad_sizes_are_refused():
    with pytest.raises(ValueError, match='unknown part "probe": one of call, bytes, lock, hash'):
        _CallCost("probe")
    with pytest.raises(filterlab.FilterlabError):
        _CallCost("hash", 0)


def test_it_is_not_public():
    assert "_CallCost" not in filterlab.__all__
    assert not hasattr(filterlab, "_CallCost")
