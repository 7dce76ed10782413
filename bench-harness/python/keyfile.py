"""The harness's key files, read by its Python scripts (bench.py, articles_bloom.py).

A key file holds one key a line, UTF-8; the scripts import this module from their own folder
(Python puts a script's folder first on its path).
"""


def read_keys(path, limit):
    """The first `limit` keys of the key file at `path`, as str, without their newlines."""
    keys = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            keys.append(line.rstrip("\n"))
            if len(keys) == limit:
                break
    return keys
