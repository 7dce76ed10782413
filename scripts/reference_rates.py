#!/usr/bin/env python3
"""High-precision reference values for filter_core::math (issue 15).

Writes crates/filter-core/tests/data/reference_rates.csv: one line per grid point,
`formula,arg1,arg2,...,value`, the value to 25 significant digits, computed with mpmath at
60 or more digits (more where a formula is evaluated here by an alternating sum: the working
precision covers the cancellation, so every printed digit is right). The Rust test
crates/filter-core/tests/reference_rates.rs compares each function against these values.

The classic exact rate is computed here by the textbook inclusion-exclusion sum, a different
route from the library's (which avoids the cancellation by a positive sum), so the two check
each other. Run with mpmath installed (a venv: python3 -m venv /tmp/v && /tmp/v/bin/pip install
mpmath), from the repository root:

    /tmp/v/bin/python scripts/reference_rates.py
"""
import math
import sys

import mpmath
from mpmath import mp, mpf

OUT = "crates/filter-core/tests/data/reference_rates.csv"
BASE_DPS = 60

CAPACITIES = [1, 3, 10, 100, 10**3, 10**4, 10**6, 10**8, 10**10, 10**12]
SIZING_RATES = [0.5, 1e-2, 1e-6, 1e-20, 1e-300]
HASHES = [1, 2, 3, 5, 7, 10, 14, 20, 24, 32, 48, 64]
FILLS = [1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 10.0]


def optimal_bits(n, p):
    """The library's m = ceil(-n ln p / ln(2)^2), in floats as the library does (the grid only
    needs some m near the optimum; the reference values use the m written in the file)."""
    return max(1, math.ceil(-n * math.log(p) / (math.log(2) ** 2)))


def fmt(x):
    return mpmath.nstr(x, 25, min_fixed=1, max_fixed=0)


def stirling_row(k):
    s = [0] * (k + 1)
    s[0] = 1
    for j in range(1, k + 1):
        for d in range(j, 0, -1):
            s[d] = d * s[d] + s[d - 1]
        s[0] = 0
    return s


def classic_exact(m, n, k):
    """Σ_d S(k,d) (m)_d / m^k Σ_i (-1)^i C(d,i) (1 - i/m)^(kn), at enough digits to absorb the
    cancellation (the terms add to at most 2^d, the result is at least about fill^k)."""
    fill = -math.expm1(-k * n / m) if m > 0 else 1.0
    lost = 20 + max(0.0, -k * math.log10(max(fill, 1e-300))) if fill > 0 else 400
    with mp.workdps(int(BASE_DPS + 20 + lost)):
        draws = k * n
        mm = mpf(m)
        total = mpf(0)
        s = stirling_row(k)
        falling = mpf(1)
        for d in range(1, k + 1):
            if d - 1 >= m:
                break
            falling *= (mm - (d - 1)) / mm
            inner = mpf(0)
            for i in range(d + 1):
                term = mpmath.binomial(d, i) * (1 - mpf(i) / mm) ** draws
                inner += term if i % 2 == 0 else -term
            total += s[d] * falling * mm ** (d - k) * inner
        return +total


def classic_approx(m, n, k):
    with mp.workdps(BASE_DPS):
        return (1 - mpmath.exp(-mpf(k) * n / m)) ** k


def classic_rows(out):
    seen = set()
    for cap in CAPACITIES:
        for p in SIZING_RATES:
            m = optimal_bits(cap, p)
            for k in HASHES:
                for fill in FILLS:
                    n = max(1, round(fill * cap))
                    if (m, n, k) in seen:
                        continue
                    seen.add((m, n, k))
                    out.write(f"classic_exact,{m},{n},{k},{fmt(classic_exact(m, n, k))}\n")
                    out.write(f"classic_approx,{m},{n},{k},{fmt(classic_approx(m, n, k))}\n")


def sizing_rows(out):
    with mp.workdps(BASE_DPS):
        for n in [1, 2, 7, 1000, 10**6, 10**9, 10**12]:
            for p in [0.5, 0.1, 1e-2, 1e-6, 1e-20, 1e-100, 1e-300]:
                bits = -n * mpmath.log(mpf(p)) / mpmath.log(2) ** 2
                out.write(f"optimal_bits_real,{n},{p!r},{fmt(bits)}\n")
                out.write(f"lower_bound_bits,{n},{p!r},{fmt(-n * mpmath.log(mpf(p), 2))}\n")


def cuckoo_rows(out):
    with mp.workdps(BASE_DPS):
        for f in [1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64]:
            values = mpf(2) ** f - 1
            for load in [1e-6, 1e-3, 0.1, 0.5, 0.95, 1.0]:
                slots = 2 * 4 * mpf(load)
                out.write(f"cuckoo_limit,{f},4,{load!r},{fmt(-mpmath.expm1(-slots / values))}\n")
                bound = 1 - (1 - 1 / values) ** slots
                out.write(f"cuckoo_upper_bound,{f},4,{load!r},{fmt(bound)}\n")
            for buckets in [1, 2, 7, 1000, 10**6, 10**12]:
                for items in [1, 3, 100, 10**6, 4 * 10**12]:
                    if items > 4 * buckets:
                        continue
                    b = mpf(buckets)
                    pair = 1 - (1 - 2 / (b * values)) ** items
                    single = 1 - (1 - 1 / (b * values)) ** items
                    p = (1 - 1 / b) * pair + single / b
                    out.write(f"cuckoo_exact,{f},4,{buckets},{items},{fmt(p)}\n")


def split_block(lam, q):
    """Σ_c Pois(c; λ) (1 - q^c)^8 summed directly, far into the tail."""
    lam = mpf(lam)
    top = int(lam + 60 * mpmath.sqrt(lam) + 200)
    total = mpf(0)
    pmf = mpmath.exp(-lam)
    for c in range(0, top):
        if c > 0:
            pmf *= lam / c
        total += pmf * (1 - q ** c) ** 8
    return total


def split_block_rows(out):
    with mp.workdps(BASE_DPS):
        lane = 1 - mpf(1) / 32
        block = (1 - mpf(1) / 256) ** 8
        for blocks, n in [(1000, 1), (10**6, 1000), (10**6, 10**4), (10**6, 10**5), (1000, 1000),
                          (1000, 7300), (1000, 20000), (1000, 40000), (100, 6400),
                          (100, 10000), (10, 2000), (10**6, 32 * 10**6)]:
            lam = mpf(n) / blocks
            out.write(f"split_block,{blocks},{n},{fmt(split_block(lam, lane))}\n")
            out.write(f"split_block_block_model,{blocks},{n},{fmt(split_block(lam, block))}\n")


def scalable_rows(out):
    with mp.workdps(BASE_DPS):
        for p in [0.1, 1e-2, 1e-6, 1e-20, 1e-100, 1e-300]:
            for r in [0.5, 0.9]:
                for stages in [1, 2, 5, 30]:
                    p0 = mpf(p) * (1 - mpf(r))
                    rates = [p0 * mpf(r) ** i for i in range(stages)]
                    prod = mpf(1)
                    for x in rates:
                        prod *= 1 - x
                    out.write(f"compound,{p!r},{r!r},{stages},{fmt(1 - prod)}\n")


def overflow_rows(out):
    with mp.workdps(BASE_DPS):
        for m, n, k in [(95_850_584, 10**7, 7), (1000, 10**4, 7), (10**6, 10**5, 7),
                        (10**4, 10**3, 3), (10**12, 10**11, 7), (100, 1000, 20)]:
            draws = n * k
            j = 16
            # The library returns the bound capped at 1 (it bounds a probability).
            bound = min(1, m * mpmath.binomial(draws, j) / mpf(m) ** j)
            out.write(f"counting_overflow,{m},{n},{k},4,{fmt(bound)}\n")


def count_rows(out):
    """The Swamidass & Baldi count estimate -(m/k) ln(1 - X/m), its spread
    sqrt(m (e^λ - 1 - λ)) / k at λ = kn/m, and the rate at the estimate (X/m)^k."""
    with mp.workdps(BASE_DPS):
        for m in [64, 1000, 95_850_560, 64 * (2**31 - 1), 10**15]:
            for k in [1, 3, 7, 13, 30, 255]:
                # From one set bit to all but one (a saturated filter has no finite estimate).
                shares = [1e-9, 1e-6, 1e-3, 0.1, 0.5, 0.9, 0.999]
                for ones in sorted({min(m - 1, max(1, round(s * m))) for s in shares} | {m - 1}):
                    x = mpf(ones) / m
                    n_star = -(mpf(m) / k) * mpmath.log(1 - x)
                    out.write(f"count_estimate,{m},{k},{ones},{fmt(n_star)}\n")
                    out.write(f"fpr_at_fill,{m},{k},{ones},{fmt(x ** k)}\n")
                per_bit = [1e-9, 1e-5, 1e-2, 0.1, 1.0, 3.0]
                for n in sorted({max(1, round(b * m / k)) for b in per_bit}):
                    lam = mpf(k) * n / m
                    sd = mpmath.sqrt(m * (mpmath.exp(lam) - 1 - lam)) / k
                    out.write(f"count_estimate_sd,{m},{k},{n},{fmt(sd)}\n")


def aleph_bits(fpr, planned, x):
    """F_x of the widening policy (filter_core::math::aleph), in exact arithmetic: the fewest
    bits whose matches fit the generation's budget."""
    load = mpf("0.95") if x == 0 else mpf("0.475")

    def fewest(limit):
        # The fewest b >= 1 with load * 2^-b <= limit.
        b = 1
        while load * mpf(2) ** -b > limit:
            b += 1
        return b

    if planned is None:
        return min(56, fewest(mpf(fpr) / ((x + 1) * (x + 2))))
    kept = mpf(fpr) * (1 - mpf(1) / 16)
    f = 1
    while mpf("0.95") * mpf(2) ** -f > kept:
        f += 1
    if x <= planned:
        return min(56, f + planned - x)
    rest = mpf(fpr) - mpf("0.95") * mpf(2) ** -f
    j = x - planned
    return min(56, fewest(rest / (j * (j + 1))))


def aleph_rows(out):
    """FP(k) = 1 - exp(-(sum over past generations of lambda_x 2^-F_x + fill 2^-F_k))."""
    with mp.workdps(BASE_DPS):
        for fpr in [0.1, 0.01, 1e-3, 1e-6]:
            for planned in [None, 0, 3, 13]:
                for k in [0, 1, 5, 13, 14, 20, 30]:
                    for fill in [0.0, 0.3, 0.475, 0.95]:
                        total = sum((mpf("0.95") if x == 0 else mpf("0.475"))
                                    * mpf(2) ** -aleph_bits(fpr, planned, x) for x in range(k))
                        total += mpf(fill) * mpf(2) ** -aleph_bits(fpr, planned, k)
                        tag = -1 if planned is None else planned
                        out.write(f"aleph_fpr,{fpr!r},{tag},{k},{fill!r},{fmt(-mpmath.expm1(-total))}\n")


def main():
    with open(OUT, "w") as out:
        out.write("# formula,args...,value: see scripts/reference_rates.py\n")
        sizing_rows(out)
        cuckoo_rows(out)
        split_block_rows(out)
        scalable_rows(out)
        overflow_rows(out)
        count_rows(out)
        aleph_rows(out)
        classic_rows(out)
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
