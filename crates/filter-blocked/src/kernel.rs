//! The lane kernels: a key's eight lane masks, and the test and update of its block.
//!
//! Every form of the split-block filter ([`BlockedBloom`](crate::BlockedBloom), its atomic form
//! and [`ParquetBloom`](crate::parquet::ParquetBloom)) computes the same thing per key: eight
//! 32-bit products `key · salt[i]`, their top five bits as a bit number in lane `i`, then the
//! eight bits tested against (or ORed into) one 256-bit block. That is the whole cost of a
//! lookup besides the hash and the cache miss, and it maps onto AVX2 one instruction per step
//! (`vpmulld`, `vpsrld`, `vpsllvd`, `vptest`) where the portable code needs about 70 scalar
//! instructions. Fewer instructions per lookup let the out-of-order core keep more independent
//! lookups, hence more cache misses, in flight, which is what bounds one-at-a-time lookups on a
//! table larger than the caches.
//!
//! The kernel is chosen once, when a filter is built or loaded ([`Kernel::detect`]), and stored
//! in it; both kernels give the same bits and answers (the tests compare them key by key and
//! byte by byte), so files do not depend on the CPU that wrote them.
//!
//! This is the crate's only module with `unsafe` code: the AVX2 functions, callable only
//! through a [`Kernel::Avx2`] value, which exists only after the CPU was seen to have AVX2.

use crate::{Block, SALT};

/// Which code computes the lane masks and tests the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Scalar Rust, on every target (and the one Miri runs).
    Portable,
    /// AVX2 (x86-64 only), when the CPU has it.
    Avx2,
}

impl Kernel {
    /// Every kernel, available here or not.
    pub const ALL: [Kernel; 2] = [Kernel::Portable, Kernel::Avx2];

    /// The fastest kernel this CPU runs: [`Kernel::Avx2`] when `is_x86_feature_detected!`
    /// reports AVX2, else [`Kernel::Portable`] (always under Miri, which cannot run it).
    pub fn detect() -> Kernel {
        if Kernel::Avx2.is_available() {
            Kernel::Avx2
        } else {
            Kernel::Portable
        }
    }

    /// The kernels this CPU runs besides [`Kernel::Portable`]: what a comparison against the
    /// portable kernel covers (empty where the portable one is all there is).
    pub fn accelerated() -> Vec<Kernel> {
        Kernel::ALL
            .into_iter()
            .filter(|k| *k != Kernel::Portable && k.is_available())
            .collect()
    }

    /// Whether this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kernel::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(all(target_arch = "x86_64", not(miri))))]
            Kernel::Avx2 => false,
        }
    }

    /// A short name (`portable`, `avx2`).
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
        }
    }

    /// `self` if this CPU can run it.
    ///
    /// # Errors
    /// [`filter_core::Error::InvalidParameter`] naming the kernel otherwise.
    pub fn checked(self) -> filter_core::Result<Kernel> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(filter_core::Error::InvalidParameter {
                name: "kernel",
                value: self.name().to_string(),
                expected: "a kernel this CPU runs (Kernel::detect() or Kernel::Portable)",
            })
        }
    }

    /// The key's eight lane masks.
    #[inline(always)]
    pub(crate) fn masks(self, key: u32) -> [u32; 8] {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => avx2::masks(key),
            _ => masks(key),
        }
    }

    /// Whether all eight of the key's bits are set in `block`.
    #[inline(always)]
    pub(crate) fn test(self, block: &Block, key: u32) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => avx2::test(block, key),
            _ => test(block, key),
        }
    }

    /// Sets the key's eight bits in `block`; returns whether any was clear.
    #[inline(always)]
    pub(crate) fn set(self, block: &mut Block, key: u32) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => avx2::set(block, key),
            _ => set(block, key),
        }
    }
}

/// The bit of each lane a key uses.
#[inline(always)]
pub(crate) fn masks(key: u32) -> [u32; 8] {
    crate::lane_bits(key).map(|bit| 1 << bit)
}

/// [`Kernel::test`], portable: no early exit, so no branch on the block's bits.
#[inline(always)]
fn test(block: &Block, key: u32) -> bool {
    block
        .0
        .iter()
        .zip(masks(key))
        .fold(0u32, |miss, (w, m)| miss | (m & !w))
        == 0
}

/// [`Kernel::set`], portable.
#[inline(always)]
fn set(block: &mut Block, key: u32) -> bool {
    let mut missing = 0;
    for (w, m) in block.0.iter_mut().zip(masks(key)) {
        missing |= m & !*w;
        *w |= m;
    }
    missing != 0
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    //! The AVX2 kernels. Their safe wrappers are reached only through a filter's `kernel`
    //! field holding [`Kernel::Avx2`](super::Kernel::Avx2), and every filter sets that field
    //! from [`Kernel::detect`](super::Kernel::detect) or [`Kernel::checked`](super::Kernel::checked)
    //! only, which return it only when the CPU has AVX2. Their `unsafe` blocks rely on that.

    use super::{Block, SALT};
    use core::arch::x86_64::{
        __m256i, _mm256_load_si256, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_or_si256,
        _mm256_set1_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_store_si256,
        _mm256_storeu_si256, _mm256_testc_si256,
    };

    /// The eight masks as one vector: `1 << ((key · salt) >> 27)` per lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn mask_vector(key: u32) -> __m256i {
        // SAFETY: the caller runs with AVX2 (this fn's contract); the unaligned load reads the
        // 32 bytes of `SALT`, a `[u32; 8]` constant.
        unsafe {
            let salt = _mm256_loadu_si256(SALT.as_ptr().cast());
            let bit =
                _mm256_srli_epi32::<27>(_mm256_mullo_epi32(_mm256_set1_epi32(key as i32), salt));
            _mm256_sllv_epi32(_mm256_set1_epi32(1), bit)
        }
    }

    /// # Safety
    /// The CPU has AVX2 (as for the other `unsafe fn`s here).
    #[target_feature(enable = "avx2")]
    unsafe fn masks_avx2(key: u32) -> [u32; 8] {
        let mut out = [0u32; 8];
        // SAFETY: AVX2 is present (this fn's contract); the store writes the 32 bytes of `out`.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), mask_vector(key)) };
        out
    }

    #[target_feature(enable = "avx2")]
    unsafe fn test_avx2(block: &Block, key: u32) -> bool {
        // SAFETY: AVX2 is present (this fn's contract). `Block` is `repr(C, align(32))` and 32
        // bytes long, so the aligned load reads exactly the borrowed block.
        unsafe {
            let b = _mm256_load_si256(block.0.as_ptr().cast());
            // CF = ((!b & m) == 0): every mask bit is set in the block.
            _mm256_testc_si256(b, mask_vector(key)) != 0
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn set_avx2(block: &mut Block, key: u32) -> bool {
        // SAFETY: AVX2 is present (this fn's contract). `Block` is `repr(C, align(32))` and 32
        // bytes long, so the aligned load and store touch exactly the mutably borrowed block.
        unsafe {
            let p = block.0.as_mut_ptr().cast::<__m256i>();
            let b = _mm256_load_si256(p);
            let m = mask_vector(key);
            _mm256_store_si256(p, _mm256_or_si256(b, m));
            // CF clear: some mask bit was not yet set.
            _mm256_testc_si256(b, m) == 0
        }
    }

    /// [`super::masks`] on AVX2.
    #[inline(always)]
    pub(super) fn masks(key: u32) -> [u32; 8] {
        debug_assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: called only for a filter whose kernel is `Kernel::Avx2`, which filters obtain
        // only from `Kernel::detect`/`Kernel::checked`, i.e. on a CPU with AVX2.
        unsafe { masks_avx2(key) }
    }

    /// [`super::test`] on AVX2.
    #[inline(always)]
    pub(super) fn test(block: &Block, key: u32) -> bool {
        debug_assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: called only for a filter whose kernel is `Kernel::Avx2`, which filters obtain
        // only from `Kernel::detect`/`Kernel::checked`, i.e. on a CPU with AVX2.
        unsafe { test_avx2(block, key) }
    }

    /// [`super::set`] on AVX2.
    #[inline(always)]
    pub(super) fn set(block: &mut Block, key: u32) -> bool {
        debug_assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: called only for a filter whose kernel is `Kernel::Avx2`, which filters obtain
        // only from `Kernel::detect`/`Kernel::checked`, i.e. on a CPU with AVX2.
        unsafe { set_avx2(block, key) }
    }
}

#[cfg(test)]
mod tests;
