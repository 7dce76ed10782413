//! The setters both window builders share.

/// `fpr`, `generations`, `hasher` and `max_bytes` for a builder with `common` and `cap` fields.
macro_rules! common_setters {
    () => {
        /// Target false-positive rate over the window, strictly between 0 and 1 (default 1%).
        pub fn fpr(mut self, rate: f64) -> Self {
            self.common.fpr = rate;
            self
        }

        /// Generations per window, `N` (one of [`GENERATION_CHOICES`](crate::GENERATION_CHOICES), default 7): `N + 1`
        /// are kept, so an item lives between 1 and `1 + 1/N` windows.
        pub fn generations(mut self, n: u32) -> Self {
            self.common.generations = n;
            self
        }

        /// Hash function and seed (default: xxh3-128, seed 0).
        pub fn hasher(mut self, hasher: KeyHasher) -> Self {
            self.common.hasher = hasher;
            self
        }

        filter_core::memory_cap_setter!();
    };
}
