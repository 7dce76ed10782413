//! The select kernels: where bucket `q` of a block ends, by software (every target) or with the
//! `popcnt`, `pdep` and `lzcnt` instructions (x86-64 CPUs with BMI2 where `pdep` is fast).
//!
//! A lookup's own work is one select on the block's 128-bit bucket code. Without those
//! instructions (the baseline x86-64 target has none of them) it is a broadword select of
//! about 60 instructions (the crate's `select` module); with them, a handful. Fewer instructions per
//! lookup let the out-of-order core keep more lookups, hence more cache misses, in flight.
//!
//! The kernel is chosen once, when a filter is built or loaded ([`Kernel::detect`]), and
//! stored in it; both give the same answers (the tests compare them on every bucket of
//! random blocks), so files do not depend on the CPU that wrote them. AMD's Zen 1 and Zen 2
//! (family 17h) run `pdep` in microcode, tens to hundreds of cycles: they keep the portable
//! kernel.
//!
//! This is the crate's only module with `unsafe` code: calls of the BMI2 functions, made only
//! through a [`Kernel::Bmi2`] value, which exists only after the CPU was seen to have them.

/// Which code finds a bucket in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Software select, on every target (and the one Miri runs).
    Portable,
    /// `popcnt`, `pdep`, `lzcnt` (x86-64 only), when the CPU has them and runs `pdep` fast.
    Bmi2,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Kernel {
        if Kernel::Bmi2.is_available() {
            Kernel::Bmi2
        } else {
            Kernel::Portable
        }
    }

    /// Whether this CPU can run the kernel (and, for BMI2, runs `pdep` in hardware).
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kernel::Bmi2 => filter_core::cpu::fast_pdep(),
            #[cfg(not(all(target_arch = "x86_64", not(miri))))]
            Kernel::Bmi2 => false,
        }
    }

    /// The end of bucket `q` in the code `run` and the number of its fingerprints.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub fn bucket_end(self, run: u128, q: u32) -> (u32, u32) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: a `Kernel::Bmi2` is made only by `detect`, after `is_available` saw
            // BMI2, POPCNT and LZCNT on this CPU (the tests build it only when available too).
            Kernel::Bmi2 => unsafe { bmi2::bucket_end(run, q) },
            _ => portable_bucket_end(run, q),
        }
    }
}

impl Kernel {
    /// A lookup of `hash` in `f` by this kernel: with BMI2, one function compiled for those
    /// instructions, so that the select inlines into it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn contains(self, f: &crate::VectorQuotient, hash: filter_core::Hash128) -> bool {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: as in `bucket_end`: a `Kernel::Bmi2` exists only where the CPU has them.
            Kernel::Bmi2 => unsafe { bmi2::contains(f, hash) },
            _ => f.contains_with(Kernel::Portable, hash),
        }
    }
}

impl Kernel {
    /// An insert of `hash` into `f` by this kernel (see [`Kernel::contains`]).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn insert(
        self,
        f: &mut crate::VectorQuotient,
        hash: filter_core::Hash128,
    ) -> filter_core::Result<()> {
        let p = f.place(hash);
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: as in `bucket_end`: a `Kernel::Bmi2` exists only where the CPU has them.
            Kernel::Bmi2 => unsafe { bmi2::insert(f, p) },
            _ => f.insert_with(Kernel::Portable, p),
        }
    }
}

/// The portable kernel's bucket end (see [`Kernel::bucket_end`]).
#[inline(always)]
pub fn portable_bucket_end(run: u128, q: u32) -> (u32, u32) {
    let end = crate::select::select_zero128(run, q);
    // The 1 bits just below `end`: the code's bits below `end` moved to the top (none when
    // `end` is 0: the extra shift by one clears bit 0 first).
    (end, ((run << 1) << (127 - end)).leading_ones())
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unsafe_code)]
mod bmi2 {
    use std::arch::x86_64::_pdep_u64;

    /// [`super::Kernel::contains`] compiled with `popcnt`, `pdep` and `lzcnt`.
    ///
    /// # Safety
    /// The CPU has BMI1, BMI2, POPCNT and LZCNT.
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    pub unsafe fn contains(f: &crate::VectorQuotient, hash: filter_core::Hash128) -> bool {
        f.contains_with(super::Kernel::Bmi2, hash)
    }

    /// [`super::Kernel::insert`] compiled with `popcnt`, `pdep` and `lzcnt`.
    ///
    /// # Safety
    /// The CPU has BMI1, BMI2, POPCNT and LZCNT.
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    pub unsafe fn insert(
        f: &mut crate::VectorQuotient,
        p: crate::Place,
    ) -> filter_core::Result<()> {
        f.insert_with(super::Kernel::Bmi2, p)
    }

    /// [`super::Kernel::bucket_end`] with `popcnt`, `pdep` and `lzcnt`.
    ///
    /// # Safety
    /// The CPU has BMI1, BMI2, POPCNT and LZCNT.
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    #[inline]
    pub unsafe fn bucket_end(run: u128, q: u32) -> (u32, u32) {
        let z = !run;
        let (lo, hi) = (z as u64, (z >> 64) as u64);
        let in_lo = lo.count_ones();
        let high = q >= in_lo;
        let word = if high { hi } else { lo };
        let rank = if high { q.wrapping_sub(in_lo) } else { q };
        // The `rank`-th 1 bit of `word`: deposit a single bit there (none past the last, in a
        // damaged block: then 127, as the portable select answers).
        let deposited = 1u64.checked_shl(rank).map_or(0, |bit| _pdep_u64(bit, word));
        let end = match deposited {
            0 => 127,
            d => d.trailing_zeros() + 64 * u32::from(high),
        };
        (end, ((run << 1) << (127 - end)).leading_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_available_kernel_finds_the_buckets_the_portable_one_finds() {
        let mut s = 0x243f_6a88_85a3_08d3u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..20_000 {
            // A random code of 72 zeros and up to 48 ones, in 120 bits.
            let ones = (next() % 49) as u32;
            let mut run = 0u128;
            let mut placed = 0;
            for pos in 0..(72 + ones) {
                if placed < ones && next() % 2 == 0 || pos >= 72 + placed {
                    run |= 1 << pos;
                    placed += 1;
                }
            }
            for q in 0..72 {
                let want = portable_bucket_end(run, q);
                assert_eq!(Kernel::detect().bucket_end(run, q), want, "{run:#x} {q}");
            }
        }
    }
}
