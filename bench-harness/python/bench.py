#!/usr/bin/env python3
"""filterlab's Python package beside the Python Bloom filters its readers use, on the harness's keys.

Run by the harness (bench-harness/src/stages/python/) in the project's virtual environment
(target/python-venv, made by scripts/python.sh from PyPI), never on a global interpreter. Each
subcommand prints one JSON object on stdout, parsed by the harness into typed records:

  bench.py check
      the modules and their versions (exit 1, with the missing module named, when one is absent)
  bench.py session MEMBERS PROBES N P QUERIES SAMPLE_KEYS SAMPLE_PROBES
      loads the keys once and prints a hello (versions, sizes); then runs one round per line it
      reads on stdin, {"scale": "full" | "sample", "contenders": [...], "one_at_a_time": bool}:
      each contender built (one key at a time and, where the library has one, in a batch; with
      one_at_a_time false, in a batch alone where it can) and probed, in the order
      given, on the N members and QUERIES probes (full) or the first SAMPLE_KEYS members and
      SAMPLE_PROBES probes (sample); prints one line {"rows": [...]} per round: build seconds,
      ns per negative and positive lookup, the false positives over the probes and the false
      negatives over the members probed, and the rate each one promises. The harness decides
      how many rounds to ask for (bench-harness/src/measure/rounds.rs); SAMPLE_KEYS 0: no sample
  bench.py memory MEMBERS N P CONTENDER
      one contender built once in this fresh process: its peak memory, from /proc/self/status
      (VmHWM after the build, reset through /proc/self/clear_refs before it, minus VmRSS before)
  bench.py rbloom-bench N ROUNDS
      rbloom's published benchmark (N floats i + 0.5 at 1%, add every one then check every one),
      with filterlab's classic filter added, one key at a time and in a batch
  bench.py call-costs MEMBERS PROBES N P QUERIES ROUNDS
      where one `key in ClassicBloom` goes, on fresh str objects (issue 52): ROUNDS rounds, each
      a scan of the QUERIES probes through every part in CALL_PARTS (the bare loop; a
      `_CallCost` that stops after the call, the key's bytes, the lock, the hash; the whole
      `in` of a ClassicBloom of the N members), then rbloom's `in` on the same keys; ns per key
  bench.py make-file PATH BYTES MEMBERS KEYS
      a classic filter of about BYTES table bytes holding the first KEYS members, saved to PATH
      (the file's size and its load do not depend on how many keys it holds)
  bench.py load-file PATH
      the file loaded in this fresh process: its size and the load's peak memory

Lookups scan the probe file (non-members: every hit is a false positive) and the first QUERIES
members (positives); every timer holds only the calls it names (counting the answers of a batch
happens after its timer stops).
"""

import gc
import importlib
import importlib.metadata
import json
import os
import struct
import sys
import time

from keyfile import read_keys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ["filterlab", "numpy", "rbloom", "pybloom_live", "bloom_filter2", "mmh3", "bitarray"]
DISTRIBUTIONS = {
    "filterlab": "filterlab",
    "numpy": "numpy",
    "rbloom": "rbloom",
    "pybloom_live": "pybloom-live",
    "bloom_filter2": "bloom-filter2",
    "mmh3": "mmh3",
    "bitarray": "bitarray",
}
# The scalable filters grow from this capacity to N keys.
SCALABLE_START = 1000


def versions():
    return {m: importlib.metadata.version(d) for m, d in DISTRIBUTIONS.items()}


def status_kib(field):
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak():
    """Resets VmHWM to the current RSS (Linux clear_refs 5); returns the method name."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return "vm_hwm_reset"
    except OSError:
        return "vm_hwm"


def peak_of(action):
    """Runs action(); returns (its result, peak bytes above the RSS before it, method)."""
    gc.collect()
    before = status_kib("VmRSS")
    method = reset_peak()
    if method == "vm_hwm":
        before = status_kib("VmHWM")
    result = action()
    return result, max(0, status_kib("VmHWM") - before) * 1024, method


def articles_code(module, n, p, keys):
    """The articles' pybloom_live usage, unchanged whichever module provides BloomFilter."""
    bf = module.BloomFilter(capacity=n, error_rate=p)
    for email in keys:
        bf.add(email)
    return bf


def scalable_code(module, p, keys):
    """pybloom_live's ScalableBloomFilter grown from SCALABLE_START keys."""
    sbf = module.ScalableBloomFilter(
        initial_capacity=SCALABLE_START, error_rate=p, mode=module.ScalableBloomFilter.SMALL_SET_GROWTH
    )
    for email in keys:
        sbf.add(email)
    return sbf


def one_at_a_time(f, keys):
    add = f.add
    for k in keys:
        add(k)
    return f


def filterlab_contenders(n, p):
    import filterlab

    def variant(cls, capacity):
        return {
            "build": lambda keys: one_at_a_time(cls(capacity, p), keys),
            "build_batched": lambda keys: batched_build(cls(capacity, p), keys),
            "batched_lookups": True,
            "promise": "formula",
            "bytes": lambda f: f.size_in_bytes,
            "promised": lambda f: f.expected_fpr(),
        }

    return {
        "filterlab_classic": variant(filterlab.ClassicBloom, n),
        "filterlab_blocked": variant(filterlab.BlockedBloom, n),
        "filterlab_counting": variant(filterlab.CountingBloom, n),
        "filterlab_cuckoo": variant(filterlab.CuckooFilter, n),
        "filterlab_scalable": variant(filterlab.ScalableBloom, SCALABLE_START),
        "filterlab_atomic_classic": variant(filterlab.AtomicClassicBloom, n),
        "filterlab_atomic_blocked": variant(filterlab.AtomicBlockedBloom, n),
    }


def batched_build(f, keys):
    f.add_many(keys)
    return f


def peer_contenders(n, p):
    import bloom_filter2
    import pybloom_live
    import rbloom
    from filterlab import pybloom_compat

    sys.path.insert(0, HERE)
    articles = importlib.import_module("articles_bloom")
    requested = lambda f: p  # noqa: E731 (the rate the caller asked for)
    return {
        "rbloom": {
            "build": lambda keys: one_at_a_time(rbloom.Bloom(n, p), keys),
            "build_batched": lambda keys: rbloom_update(rbloom.Bloom(n, p), keys),
            "promise": "requested",
            "bytes": lambda f: f.size_in_bits // 8,
            "promised": requested,
        },
        "pybloom_live_bloom": {
            "build": lambda keys: articles_code(pybloom_live, n, p, keys),
            "promise": "requested",
            "bytes": lambda f: f.num_bits // 8,
            "promised": requested,
        },
        "pybloom_live_scalable": {
            "build": lambda keys: scalable_code(pybloom_live, p, keys),
            "promise": "requested",
            "bytes": lambda f: sum(b.num_bits for b in f.filters) // 8,
            "promised": requested,
        },
        "bloom_filter2": {
            "build": lambda keys: one_at_a_time(bloom_filter2.BloomFilter(max_elements=n, error_rate=p), keys),
            "promise": "requested",
            "bytes": lambda f: f.num_bits_m // 8,
            "promised": requested,
        },
        "articles_class": {
            "build": lambda keys: one_at_a_time(articles.BloomFilter(capacity=n, error_rate=p), keys),
            "promise": "requested",
            "bytes": lambda f: len(f.bits.tobytes()),
            "promised": requested,
        },
        "compat_bloom": {
            "build": lambda keys: articles_code(pybloom_compat, n, p, keys),
            "promise": "requested",
            "bytes": lambda f: f.num_bits // 8,
            "promised": requested,
        },
        "compat_scalable": {
            "build": lambda keys: scalable_code(pybloom_compat, p, keys),
            # pybloom_live's stages, kept by the drop-in: bounded by their rates' sum.
            "promise": "stage_sum",
            "bytes": lambda f: sum(b.num_bits for b in f.filters) // 8,
            "promised": lambda f: sum(b.error_rate for b in f.filters),
        },
    }


def rbloom_update(f, keys):
    f.update(keys)
    return f


def contenders(n, p):
    out = filterlab_contenders(n, p)
    out.update(peer_contenders(n, p))
    return out


def fresh(keys):
    """New str objects equal to `keys`, made untimed: none has its hash cached. CPython keeps a
    str's hash in the object the first time hash() runs on it, and rbloom hashes a key by
    hash(): lookups of objects already hashed skip that work, lookups of keys just read or
    received do not."""
    return [k.encode().decode() for k in keys]


def scan(f, keys):
    """(hits, seconds) of `key in f` over keys, one at a time."""
    hits = 0
    start = time.perf_counter()
    for k in keys:
        if k in f:
            hits += 1
    return hits, time.perf_counter() - start


def scan_batched(f, keys):
    start = time.perf_counter()
    answers = f.contains_many(keys)
    seconds = time.perf_counter() - start
    return sum(answers), seconds


def timed(build, keys):
    gc.collect()
    start = time.perf_counter()
    f = build(keys)
    return f, time.perf_counter() - start


def one_round(name, c, p, keys, key_by_key=True):
    """One round of one contender on keys = (members, probes, positives): its figures.

    Without key_by_key, a contender with a batch call is built by it alone (its FP and
    lookups on that build); otherwise it is built one key at a time, then again in a batch.
    """
    members, probes, positives = keys
    row = {
        "id": name,
        "promise": c["promise"],
        "target_fpr": p,
        "n": len(members),
        "probes": len(probes),
        "positives": len(positives),
    }
    batched_only = not key_by_key and "build_batched" in c
    if batched_only:
        f, row["build_seconds_batched"] = timed(c["build_batched"], members)
    else:
        f, row["build_seconds"] = timed(c["build"], members)
    # The judged scans on fresh objects; then the same objects again, their hashes now cached.
    fresh_probes, fresh_positives = fresh(probes), fresh(positives)
    fp, seconds = scan(f, fresh_probes)
    found, seconds_positive = scan(f, fresh_positives)
    row["ns_negative"] = seconds * 1e9 / len(probes)
    row["ns_positive"] = seconds_positive * 1e9 / len(positives)
    _, seconds = scan(f, fresh_probes)
    _, seconds_positive = scan(f, fresh_positives)
    row["ns_negative_reused"] = seconds * 1e9 / len(probes)
    row["ns_positive_reused"] = seconds_positive * 1e9 / len(positives)
    del fresh_probes, fresh_positives
    row["false_positives"], row["false_negatives"] = fp, len(positives) - found
    row["bytes"], row["promised_fpr"] = c["bytes"](f), c["promised"](f)
    if batched_only:
        g = f
    elif "build_batched" in c:
        del f
        g, row["build_seconds_batched"] = timed(c["build_batched"], members)
    else:
        return row
    if c.get("batched_lookups"):
        fp_b, seconds = scan_batched(g, probes)
        row["ns_negative_batched"] = seconds * 1e9 / len(probes)
        found_b, seconds = scan_batched(g, positives)
        row["ns_positive_batched"] = seconds * 1e9 / len(positives)
        if (fp_b, found_b) != (fp, found):
            raise RuntimeError(f"batched answers differ from one at a time: {fp_b, found_b} vs {fp, found}")
    return row


def session(members_file, probes_file, n, p, queries, sample_keys, sample_probes):
    members = read_keys(members_file, n)
    probes = read_keys(probes_file, queries)
    scales = {"full": (members, probes, members[: min(queries, len(members))])}
    sample = None
    if sample_keys > 0:
        some = members[:sample_keys]
        few = probes[:sample_probes]
        scales["sample"] = (some, few, some[: min(len(few), len(some))])
        sample = {"keys": len(some), "probes": len(few)}
    built = {scale: contenders(len(keys[0]), p) for scale, keys in scales.items()}
    hello = {
        "python": sys.version.split()[0],
        "versions": versions(),
        "n": len(members),
        "queries": len(probes),
        "sample": sample,
    }
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        ask = json.loads(line)
        scale = ask["scale"]
        alone = ask.get("one_at_a_time", True)
        rows = [one_round(name, built[scale][name], p, scales[scale], alone) for name in ask["contenders"]]
        print(json.dumps({"rows": rows}), flush=True)


def memory(members_file, n, p, name):
    members = read_keys(members_file, n)
    c = contenders(len(members), p)[name]
    f, peak, method = peak_of(lambda: c["build"](members))
    return {"id": name, "peak_bytes": peak, "method": method, "bytes": c["bytes"](f)}


def rbloom_bench(n, rounds):
    """rbloom's benchmarks/compare.py: add i + 0.5 for i < n, then check each; filterlab added."""
    import numpy as np
    import rbloom
    from filterlab import ClassicBloom

    pack = struct.Struct("<d").pack

    def run_rbloom():
        bf = rbloom.Bloom(n, 0.01)
        for i in range(n):
            bf.add(i + 0.5)
        return sum(1 for i in range(n) if i + 0.5 not in bf)

    def run_one_at_a_time():
        # filterlab keys are bytes: each float is packed as rbloom's bytes variant does.
        bf = ClassicBloom(n, 0.01)
        for i in range(n):
            bf.add(pack(i + 0.5))
        return sum(1 for i in range(n) if pack(i + 0.5) not in bf)

    def run_batched():
        bf = ClassicBloom(n, 0.01)
        keys = (np.arange(n, dtype=np.float64) + 0.5).view("S8")
        bf.add_many(keys)
        return n - sum(bf.contains_many(keys))

    runs = {"rbloom": run_rbloom, "filterlab_classic": run_one_at_a_time, "filterlab_classic_batched": run_batched}
    rows = {name: {"id": name, "seconds": [], "false_negatives": 0} for name in runs}
    for _ in range(max(1, rounds)):
        for name, run in runs.items():
            gc.collect()
            start = time.perf_counter()
            missing = run()
            rows[name]["seconds"].append(time.perf_counter() - start)
            rows[name]["false_negatives"] += missing
    return {"n": n, "target_fpr": 0.01, "rounds": max(1, rounds), "rows": list(rows.values())}


# The parts of ClassicBloom's `in`, cumulative, in order (bench-harness/src/record/python/costs.rs).
CALL_PARTS = ["loop", "call", "bytes", "lock", "hash", "probe"]


def scan_loop(keys):
    """(0, seconds) of the scan loop alone: `k is None` in place of `k in f`."""
    hits = 0
    start = time.perf_counter()
    for k in keys:
        if k is None:
            hits += 1
    return hits, time.perf_counter() - start


def call_costs(members_file, probes_file, n, p, queries, rounds):
    from filterlab import ClassicBloom
    from filterlab._filterlab import _CallCost
    import rbloom

    members = read_keys(members_file, n)
    probes = read_keys(probes_file, queries)
    whole = ClassicBloom(len(members), p)
    whole.add_many(members)
    peer = rbloom_update(rbloom.Bloom(len(members), p), members)
    count = len(members)
    del members
    scans = {"loop": scan_loop, "probe": lambda keys: scan(whole, keys), "rbloom": lambda keys: scan(peer, keys)}
    for part in CALL_PARTS[1:-1]:
        scans[part] = lambda keys, c=_CallCost(part, n, p): scan(c, keys)
    ns = {name: [] for name in scans}
    for _ in range(rounds):
        for name in CALL_PARTS + ["rbloom"]:
            keys = fresh(probes)
            gc.collect()
            _, seconds = scans[name](keys)
            ns[name].append(seconds * 1e9 / len(keys))
    parts = [{"part": name, "ns": ns[name]} for name in CALL_PARTS]
    return {"n": count, "probes": len(probes), "parts": parts, "rbloom_ns": ns["rbloom"]}


def make_file(path, table_bytes, members_file, keys):
    from filterlab import ClassicBloom

    # 9.585 bits per key at 1%; 9.58 makes the table a little over table_bytes, never under.
    capacity = max(1000, int(table_bytes * 8 / 9.58))
    f = ClassicBloom(capacity, 0.01)
    f.add_many(read_keys(members_file, min(capacity, keys)))
    f.save(path)
    return {"path": path, "file_bytes": os.path.getsize(path), "capacity": capacity}


def load_file(path):
    import filterlab

    f, peak, method = peak_of(lambda: filterlab.load(path))
    return {"file_bytes": os.path.getsize(path), "peak_bytes": peak, "method": method, "table_bytes": f.size_in_bytes}


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "check":
        missing = []
        for m in PEERS:
            try:
                importlib.import_module(m)
            except ImportError as e:
                missing.append(f"{m} ({e})")
        if missing:
            print("missing: " + ", ".join(missing), file=sys.stderr)
            return 1
        out = {"python": sys.version.split()[0], "versions": versions()}
    elif cmd == "session":
        session(args[0], args[1], int(args[2]), float(args[3]), int(args[4]), int(args[5]), int(args[6]))
        return 0
    elif cmd == "memory":
        out = memory(args[0], int(args[1]), float(args[2]), args[3])
    elif cmd == "rbloom-bench":
        out = rbloom_bench(int(args[0]), int(args[1]))
    elif cmd == "call-costs":
        out = call_costs(args[0], args[1], int(args[2]), float(args[3]), int(args[4]), int(args[5]))
    elif cmd == "make-file":
        out = make_file(args[0], int(args[1]), args[2], int(args[3]))
    elif cmd == "load-file":
        out = load_file(args[0])
    else:
        raise SystemExit(f"unknown subcommand {cmd!r}\n{__doc__}")
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
