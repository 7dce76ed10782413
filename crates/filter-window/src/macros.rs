//! The setters both window builders share.

/// `fpr`, `generations`, `hasher`, `max_bytes` and `pages` for a builder with `common`, `cap`
/// and `pages` fields.
macro_rules! common_setters {
    () => {
        filter_core::setters! {
            /// Target false-positive rate over the window, strictly between 0 and 1 (default 1%).
            fpr(rate: f64) => common.fpr;
            /// Generations per window, `N` (one of [`GENERATION_CHOICES`](crate::GENERATION_CHOICES), default 7): `N + 1`
            /// are kept, so an item lives between 1 and `1 + 1/N` windows.
            generations(n: u32) => common.generations;
            /// Hash function and seed (default: xxh3-128, seed 0).
            hasher(hasher: KeyHasher) => common.hasher;
        }

        filter_core::memory_cap_setter!();
        filter_core::pages_setter!();
    };
}
