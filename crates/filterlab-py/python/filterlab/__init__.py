"""filterlab: approximate-membership filters of the Bloom family, implemented in Rust.

Every class takes keys as ``str`` (hashed as UTF-8, so ``"a"`` and ``b"a"`` are one key) or
``bytes``. Files written by ``save`` are the checksummed format the Rust crates and the
``filterlab`` command-line tool read, and the other way round::

    from filterlab import ClassicBloom
    seen = ClassicBloom(capacity=10_000_000, fpr=0.01)
    seen.add_many(["alice@example.com", "bob@example.com"])
    "alice@example.com" in seen      # True
    seen.save("emails.filter")       # `filterlab info emails.filter` reads it

``filterlab.open(path)`` opens a saved file in place, read-only, with no copy: the same ``in``
and ``contains_many``, memory that grows only by the pages the lookups touch, and pages shared
with every other process that opens the file::

    seen = filterlab.open("emails.filter")   # verify=True also checks the whole checksum
    "alice@example.com" in seen              # True

``Bloom`` is rbloom's API (a set-like filter of any hashable object) on the classic filter;
``pybloom_compat`` is pybloom_live's API and file layout, bit for bit.
"""

# One list of the public names: the extension module's `__all__` (pyo3 writes it as the module adds
# each class and function; the stub _filterlab.pyi declares the same list, which stubtest checks).
from ._filterlab import *
from ._filterlab import __all__ as __all__
# Not in `__all__` (a star import would hide the built-in `open`): `filterlab.open` by name.
from ._filterlab import open as open
