"""The package's PEP 517 build backend: maturin's, once a Rust toolchain is known to be there.

Building from the sdist compiles the Rust extension. Without cargo on PATH, maturin's own failure
is a page of build log; this backend says in one line what to install instead. Every hook is
maturin's (PEP 517 and PEP 660), unchanged.
"""

import shutil

import maturin
from maturin import *  # noqa: F401,F403 (every hook maturin offers, re-exported)

MESSAGE = (
    "filterlab: building from source needs Rust (cargo): install it from https://rustup.rs, "
    "or install a prebuilt wheel (pip install --only-binary :all: filterlab)"
)


def _need_rust() -> None:
    if shutil.which("cargo") is None:
        raise SystemExit(MESSAGE)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _need_rust()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _need_rust()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _need_rust()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
