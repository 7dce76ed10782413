#!/usr/bin/env bash
# Instruction, miss and branch counts per operation of every contender of issue 21's goals and
# of issue 19's binary fuse goal (ours with xorf's hash against xorf),
# under valgrind's callgrind (deterministic: a loaded machine does not change them; never a
# timing). Optional tool: needs valgrind (apt-get install valgrind), not part of the README's
# commands.
#
#   bash scripts/counts.sh [--members N] [--ops N] [--out DIR] [CONTENDER:MIX ...]
#
# Each run builds its table at the full run's size (10M e-mails at 1%) uninstrumented
# (--instr-atstart=no), switches instrumentation on with callgrind_control once the example says
# it is ready, warms the simulated caches with ops/4 other operations, and collects the measured
# pass alone (--toggle-collect=*counts_measured*). The simulated caches are this VM's per-core
# ones: D1 48 KiB 12-way, and as last level the 2 MiB 16-way L2 (the shared 260 MiB L3 is left
# out: the full run's dependent read over the 13 MB table costs 138 ns, so the table is not held
# there). valgrind models neither prefetching, nor the TLB, nor misses in flight: the counts say
# how much work and how many misses, not how they overlap.
set -euo pipefail
cd "$(dirname "$0")/.."

members=10000000
ops=200000
out=target/counts
specs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --members) members=$2; shift 2 ;;
        --ops) ops=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) echo "counts.sh: unknown flag $1" >&2; exit 2 ;;
        *) specs+=("$1"); shift ;;
    esac
done
if [ ${#specs[@]} -eq 0 ]; then
    specs=(
        blocked:negative blocked:positive fastbloom:negative fastbloom:positive
        blocked-batch:negative blocked-batch:positive
        cuckoo:negative cuckoo:positive cuckoo-batch:negative cuckoo-batch:positive
        cuckoo-near:negative cuckoo-near:positive
        cuckoo-near-batch:negative cuckoo-near-batch:positive
        atomic-blocked-lookup:half fastbloom-atomic-lookup:half
        atomic-blocked-insert:half fastbloom-atomic-insert:half
        floor-hash:negative floor-hash64:negative floor-read:negative
        fuse8-hash64:negative xorf-fuse8:negative fuse8-hash64:positive xorf-fuse8:positive
    )
fi

for tool in valgrind callgrind_control; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "counts.sh: $tool is not installed; install valgrind (apt-get install valgrind) to take counts" >&2
        exit 3
    fi
done

CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --release -p bench-harness --example lookup_counts
bin=target/release/examples/lookup_counts
mkdir -p "$out"
files=()
for spec in "${specs[@]}"; do
    contender=${spec%%:*}
    mix=${spec#*:}
    name="$contender-$mix"
    go="$out/$name.go"
    log="$out/$name.log"
    rm -f "$go" "$out/$name.out"
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
        --D1=49152,12,64 --LL=2097152,16,64 \
        --instr-atstart=no --collect-atstart=no --toggle-collect='*counts_measured*' \
        --callgrind-out-file="$out/$name.out" \
        "$bin" run --contender "$contender" --mix "$mix" --members "$members" --ops "$ops" \
        --wait-for "$go" >"$log" 2>&1 &
    pid=$!
    until grep -qs '^lookup_counts: ready' "$log"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "counts.sh: $name stopped before it was ready; see $log" >&2
            tail -5 "$log" >&2
            exit 1
        fi
        sleep 1
    done
    callgrind_control -i on "$pid" >/dev/null 2>&1
    touch "$go"
    if ! wait "$pid"; then
        echo "counts.sh: $name failed; see $log" >&2
        tail -5 "$log" >&2
        exit 1
    fi
    grep "^$contender $mix:" "$log" >&2
    files+=("$out/$name.out")
done
echo "Counts per operation: $members members at 1%, $ops measured operations each (callgrind, D1 48 KiB, LL 2 MiB)"
"$bin" table "${files[@]}"
