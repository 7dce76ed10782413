"""The writers' lock of a filter file, shared with the `filterlab` command: `filterlab.editing`
holds it from the load to the save, and every `save` of an existing file takes it."""

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import filterlab
from filterlab import ClassicBloom

CLI = os.environ.get("FILTERLAB_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="FILTERLAB_CLI not set (scripts/python.sh sets it)")

# A Python writer in another process: `rounds` load-add-save rounds of `per_round` keys.
WRITER = """
import sys, filterlab
path, prefix, rounds, per_round = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for r in range(rounds):
    with filterlab.editing(path) as f:
        f.add_many([f"{prefix}-{r}-{j}" for j in range(per_round)])
"""


def fresh(tmp_path, name="f.filter"):
    path = tmp_path / name
    ClassicBloom(100_000, 1e-4).save(path)
    return path


@needs_cli
def test_python_and_cli_writers_racing_lose_no_key(tmp_path):
    # The race: Python load-add-save against `filterlab add`, one key a run. Before the
    # lock, 23 of 100 CLI keys and 4,300 of 10,000 Python keys were lost over 5 rounds.
    path = fresh(tmp_path)
    cli_keys = [f"cli-{i}" for i in range(100)]
    failures = []

    def cli_writer():
        for k in cli_keys:
            r = subprocess.run([CLI, "add", str(path), k], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(r.stderr)

    other = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "proc", "100", "50"])
    cli = threading.Thread(target=cli_writer)
    cli.start()
    rounds = 0
    while cli.is_alive() or rounds < 100:
        with filterlab.editing(path) as f:
            f.add_many([f"thread-{rounds}-{j}" for j in range(50)])
        rounds += 1
    cli.join()
    assert other.wait(timeout=300) == 0
    assert failures == []
    f = filterlab.load(path)
    python_keys = [f"thread-{r}-{j}" for r in range(rounds) for j in range(50)]
    python_keys += [f"proc-{r}-{j}" for r in range(100) for j in range(50)]
    lost = [k for k in cli_keys + python_keys if k not in f]
    assert lost == [], f"{len(lost)} keys lost"
    # Every add of every writer is in the count: no writer saved over another's keys.
    assert len(f) == len(cli_keys) + len(python_keys)


def test_save_waits_for_the_lock_another_writer_holds(tmp_path):
    # The lock is flock(2) on the file: the CLI's writers and Python's fcntl.flock take it.
    path = fresh(tmp_path)
    mine = ClassicBloom(100_000, 1e-4)
    mine.add("saved by the waiting writer")
    with open(path, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        saver = threading.Thread(target=mine.save, args=(path,))
        saver.start()
        saver.join(timeout=0.5)
        assert saver.is_alive(), "save wrote while another writer held the lock"
        fcntl.flock(held, fcntl.LOCK_UN)
    saver.join(timeout=30)
    assert not saver.is_alive()
    assert "saved by the waiting writer" in filterlab.load(path)


def test_an_editing_block_keeps_other_writers_out_until_it_has_saved(tmp_path):
    path = fresh(tmp_path)
    entered, order = threading.Event(), []

    def editor():
        with filterlab.editing(path) as f:
            entered.set()
            time.sleep(0.5)
            f.add("from the block")
            order.append("block")

    def other():
        assert entered.wait(timeout=30)
        with filterlab.editing(path) as f:
            # The first block's save is what this one loads.
            order.append(("second", "from the block" in f))
            f.add("from the second")

    threads = [threading.Thread(target=editor), threading.Thread(target=other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert order == ["block", ("second", True)]
    f = filterlab.load(path)
    assert "from the block" in f and "from the second" in f and len(f) == 2


@needs_cli
def test_the_cli_waits_for_an_editing_block(tmp_path):
    path = fresh(tmp_path)
    with filterlab.editing(path) as f:
        cli = subprocess.Popen([CLI, "add", str(path), "from the cli"], stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        assert cli.poll() is None, "the CLI wrote while the block held the lock"
        f.add("from python")
    _, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, err
    assert "waiting for another filterlab command" in err
    f = filterlab.load(path)
    assert "from the cli" in f and "from python" in f and len(f) == 2


def test_a_block_that_raises_saves_nothing_and_lets_go(tmp_path):
    path = fresh(tmp_path)
    before = path.read_bytes()
    with pytest.raises(KeyError):
        with filterlab.editing(path) as f:
            f.add("never saved")
            raise KeyError("stop")
    assert path.read_bytes() == before
    # The lock was released: a second block enters at once.
    with filterlab.editing(path) as f:
        f.add("saved")
    assert "saved" in filterlab.load(path) and "never saved" not in filterlab.load(path)


def test_a_save_inside_the_block_uses_the_lock_it_holds(tmp_path):
    path = fresh(tmp_path)
    done = []

    def run():
        with filterlab.editing(path) as f:
            f.add("a")
            f.save(path)  # the same thread holds the lock: no wait for itself
            done.append(True)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=30)
    assert done == [True], "save inside editing() waited for its own lock"
    assert "a" in filterlab.load(path)


def test_editing_refuses_what_it_cannot_edit(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        with filterlab.editing(tmp_path / "missing.filter"):
            pass
    with pytest.raises(filterlab.FilterlabError, match="not a regular file"):
        with filterlab.editing(tmp_path):
            pass
    junk = tmp_path / "junk.filter"
    junk.write_bytes(b"not a filter at all, long enough to have a header" * 4)
    with pytest.raises(filterlab.FilterlabError, match="junk.filter"):
        with filterlab.editing(junk):
            pass
    # A refused block holds nothing.
    ClassicBloom(10).save(junk)
    with filterlab.editing(junk) as f:
        f.add("x")
    assert "x" in filterlab.load(junk)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timers here")
def test_a_wait_for_the_lock_can_be_interrupted(tmp_path):
    # The wait polls with the GIL released and checks for signals: a handler's exception (as
    # Ctrl-C's KeyboardInterrupt) ends it.
    path = fresh(tmp_path)

    class Stop(Exception):
        pass

    def stop(*_):
        raise Stop

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        with open(path, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            started = time.monotonic()
            with pytest.raises(Stop):
                with filterlab.editing(path):
                    pass
            assert time.monotonic() - started < 10
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with filterlab.editing(path) as f:  # nothing was left held
        f.add("after")
    assert "after" in filterlab.load(path)
