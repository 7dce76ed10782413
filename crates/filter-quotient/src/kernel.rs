//! The lookup compiled for the `popcnt` instruction, and with BMI2's `pdep` for its selects,
//! where the CPU has them (and runs `pdep` in hardware: `filter_core::cpu::fast_pdep`).
//!
//! A lookup ranks its quotient among the block's occupied bits and selects the matching run
//! end: word popcounts, which the baseline x86-64 target computes with about a dozen shifts
//! and masks each (qfilter, the RSQF crate, uses `popcnt` by inline assembly). The same Rust
//! code compiled with the feature enabled turns each into one instruction. Chosen per call from
//! the standard library's cached CPU detection (one load and a predictable branch); both paths
//! give the same answers (the tests compare them key by key).
//!
//! This is the crate's only module with `unsafe` code: the call of the function compiled for
//! `popcnt`, made only after the CPU was seen to have it.

use crate::rsqf::Slots;

/// Whether the run of `q` holds `r`, by the fastest code this CPU runs.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains(slots: &Slots, q: u64, r: u64) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if filter_core::cpu::fast_pdep() {
            // SAFETY: the CPU has BMI2 and POPCNT (checked just above).
            return unsafe { with_bmi2::contains(slots, q, r) };
        }
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            return unsafe { with_popcnt::contains(slots, q, r) };
        }
    }
    slots.contains(q, r)
}

/// Whether some entry of the run of `q` satisfies `pred` (in slot order), by the fastest code
/// this CPU runs: the Aleph filter's lookup, whose entries are not plain remainders.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn run_any<F: Fn(u64) -> bool>(slots: &Slots, q: u64, pred: F) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if filter_core::cpu::fast_pdep() {
            // SAFETY: the CPU has BMI2 and POPCNT (checked just above).
            return unsafe { with_bmi2::run_any(slots, q, pred) };
        }
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            return unsafe { with_popcnt::run_any(slots, q, pred) };
        }
    }
    slots.run_any_by::<false, F>(q, pred)
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unsafe_code)]
pub(crate) mod with_bmi2 {
    use crate::rsqf::Slots;

    /// [`Slots::contains`] compiled with `popcnt` and BMI2, its selects by `pdep`.
    ///
    /// # Safety
    /// The CPU has POPCNT and BMI2.
    #[target_feature(enable = "popcnt,bmi1,bmi2")]
    pub unsafe fn contains(slots: &Slots, q: u64, r: u64) -> bool {
        slots.contains_by::<true>(q, r)
    }

    /// [`Slots::run_any`] compiled with `popcnt` and BMI2, its selects by `pdep`.
    ///
    /// # Safety
    /// The CPU has POPCNT and BMI2.
    #[target_feature(enable = "popcnt,bmi1,bmi2")]
    pub unsafe fn run_any<F: Fn(u64) -> bool>(slots: &Slots, q: u64, pred: F) -> bool {
        slots.run_any_by::<true, F>(q, pred)
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unsafe_code)]
pub(crate) mod with_popcnt {
    use crate::rsqf::Slots;

    /// [`super::run_any`] compiled with `popcnt`.
    ///
    /// # Safety
    /// The CPU has POPCNT.
    #[target_feature(enable = "popcnt")]
    pub unsafe fn run_any<F: Fn(u64) -> bool>(slots: &Slots, q: u64, pred: F) -> bool {
        slots.run_any_by::<false, F>(q, pred)
    }

    /// [`Slots::contains`] compiled with `popcnt`.
    ///
    /// # Safety
    /// The CPU has POPCNT.
    #[target_feature(enable = "popcnt")]
    pub unsafe fn contains(slots: &Slots, q: u64, r: u64) -> bool {
        slots.contains(q, r)
    }
}

#[cfg(all(test, target_arch = "x86_64", not(miri)))]
mod tests {
    use crate::QuotientFilter;
    use filter_core::{Filter, KeyHasher};

    /// Every member and 20,000 non-members get the same answer from both compilations, in a
    /// table filled to its limit (long runs that cross blocks) and in a sparse one.
    #[test]
    #[allow(unsafe_code)]
    fn the_popcnt_lookup_answers_as_the_portable_one() {
        if !std::is_x86_feature_detected!("popcnt") {
            return;
        }
        let h = KeyHasher::default();
        for fill in [0.2, 1.0] {
            let mut f = QuotientFilter::builder().capacity(20_000).build().unwrap();
            let n = (fill * f.max_items() as f64) as u64;
            for i in 0..n {
                f.insert(format!("m{i}").as_bytes()).unwrap();
            }
            let mut positives = 0;
            for key in (0..n)
                .map(|i| format!("m{i}"))
                .chain((0..20_000).map(|i| format!("o{i}")))
            {
                let (q, r) = f.split(h.hash(key.as_bytes()));
                // SAFETY: the CPU has POPCNT (checked above).
                let fast = unsafe { super::with_popcnt::contains(&f.slots, q, r) };
                assert_eq!(fast, f.slots.contains(q, r), "{key}");
                // The walk of the run slot by slot: an answer found another way.
                assert_eq!(fast, f.slots.count(q, r) > 0, "{key}");
                if filter_core::cpu::fast_pdep() {
                    // SAFETY: the CPU has BMI2 (checked just above).
                    let pdep = unsafe { super::with_bmi2::contains(&f.slots, q, r) };
                    assert_eq!(pdep, fast, "{key}");
                }
                // SAFETY: as above.
                let any = unsafe { super::with_popcnt::run_any(&f.slots, q, |v| v == r) };
                assert_eq!(any, f.slots.run(q).any(|v| v == r), "{key}");
                if filter_core::cpu::fast_pdep() {
                    // SAFETY: the CPU has BMI2 (checked just above).
                    let pdep = unsafe { super::with_bmi2::run_any(&f.slots, q, |v| v == r) };
                    assert_eq!(pdep, any, "{key}");
                }
                positives += u64::from(fast);
            }
            assert!(positives >= n, "every member found");
        }
    }
}
