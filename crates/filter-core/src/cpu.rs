//! What the CPU runs fast, for the filters whose kernels choose at run time.

/// Whether this CPU has BMI2 (with POPCNT and LZCNT) and runs `pdep` in hardware: false on
/// other architectures, under Miri, and on AMD's Zen 1 and Zen 2 (family 17h), whose `pdep`
/// and `pext` are microcoded, tens to hundreds of cycles. Detected once, then one load: a
/// lookup may ask (`CPUID` itself costs microseconds in a virtual machine).
#[must_use]
#[inline]
pub fn fast_pdep() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(detect_fast_pdep)
}

fn detect_fast_pdep() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && !amd_family_17h()
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        false
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unsafe_code, unused_unsafe)]
fn amd_family_17h() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86-64 CPU (the intrinsic is a safe fn in newer Rust).
    let (vendor, leaf) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let amd = vendor.ebx == 0x6874_7541 && vendor.edx == 0x6974_6e65 && vendor.ecx == 0x444d_4163;
    let family = ((leaf >> 8) & 0xf) + ((leaf >> 20) & 0xff);
    amd && family == 0x17
}
