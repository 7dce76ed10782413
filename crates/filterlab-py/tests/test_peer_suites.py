"""pybloom_live's own test suite, as its PyPI release ships it in the installed package, run
against filterlab.pybloom_compat with only its import line changed. The suite is read from the
venv at test time and written to a temporary folder: it is never part of this repository."""

import pathlib
import re
import subprocess
import sys

import pybloom_live

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
IMPORT = "from pybloom_live.pybloom import"


def run_suite(tmp_path, module, extra_path=None):
    """Runs the installed pybloom_live suite against `module`; (returncode, pytest's summary)."""
    suite = pathlib.Path(pybloom_live.__file__).with_name("test_pybloom.py").read_text()
    assert suite.count(IMPORT) == 1, "the suite's import line moved: update this test"
    target = tmp_path / "test_peer_pybloom_live.py"
    target.write_text(suite.replace(IMPORT, f"from {module} import"))
    env_path = [str(p) for p in (extra_path, tmp_path) if p]
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": ":".join(env_path), "PATH": "/usr/bin:/bin"},
    )
    return r.returncode, r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr


def counts(summary):
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|error)", summary)}


def test_pybloom_lives_own_suite_passes_against_the_drop_in(tmp_path):
    rc, summary = run_suite(tmp_path, "filterlab.pybloom_compat")
    assert rc == 0, summary
    # 12 cases (4 more, of Python 2's StringIO, skipped by the suite itself).
    assert counts(summary) == {"passed": 12}, summary


def test_the_suite_catches_a_drop_in_with_a_wrong_union(tmp_path):
    rc, summary = run_suite(tmp_path, "union_in_place", extra_path=FIXTURES)
    assert rc == 1, summary
    # Its three intersection tests fail (the union in place passes: the suite reads only
    # the result; tests/test_pybloom_files.py checks that the operands are unchanged).
    assert counts(summary).get("failed", 0) >= 3, summary
