//! Every lane kernel builds the same filters, byte for byte, and answers the same: the
//! portable kernel against each other one this CPU runs (AVX2 on most x86-64), for the
//! single-threaded, atomic and Parquet forms.

use filter_blocked::parquet::ParquetBloom;
use filter_blocked::{AtomicBlockedBloom, BlockedBloom, Kernel};
use filter_core::{testkit, Filter, Persist};

fn others() -> Vec<Kernel> {
    let k = Kernel::accelerated();
    if k.is_empty() {
        eprintln!("no kernel besides the portable one on this CPU: nothing to compare");
    }
    k
}

/// The three forms of the split-block filter, each built with a chosen kernel.
trait Form: Sized {
    fn build(kernel: Kernel, members: &[Vec<u8>]) -> Self;
    fn bytes(&self) -> Vec<u8>;
    fn has(&self, key: &[u8]) -> bool;
}

/// `bytes` and `has` of a form: each saves with `to_bytes` and answers with `contains`.
macro_rules! saved_and_asked {
    () => {
        fn bytes(&self) -> Vec<u8> {
            self.to_bytes()
        }
        fn has(&self, key: &[u8]) -> bool {
            self.contains(key)
        }
    };
}

impl Form for BlockedBloom {
    fn build(kernel: Kernel, members: &[Vec<u8>]) -> Self {
        let mut f = BlockedBloom::builder().capacity(20_000).build().unwrap();
        f.set_kernel(kernel).unwrap();
        members.iter().for_each(|k| f.insert(k).unwrap());
        assert_eq!(f.kernel(), kernel);
        f
    }
    saved_and_asked!();
}

impl Form for AtomicBlockedBloom {
    fn build(kernel: Kernel, members: &[Vec<u8>]) -> Self {
        let mut f = BlockedBloom::builder()
            .capacity(20_000)
            .build_atomic()
            .unwrap();
        f.set_kernel(kernel).unwrap();
        members.iter().for_each(|k| f.insert(k));
        f
    }
    saved_and_asked!();
}

impl Form for ParquetBloom {
    fn build(kernel: Kernel, members: &[Vec<u8>]) -> Self {
        let mut f = ParquetBloom::with_ndv_fpp(20_000, 0.01).unwrap();
        f.set_kernel(kernel).unwrap();
        members.iter().for_each(|k| f.insert(k));
        f
    }
    saved_and_asked!();
}

/// Builds `F` with the portable kernel and with each other one: same bytes, same answers on
/// members and probes. Returns the portable filter and the others, for further checks.
fn same_bytes_and_answers<F: Form>() -> (F, Vec<F>) {
    let members = testkit::keys("member", 20_000);
    let probes = testkit::keys("probe", 50_000);
    let portable = F::build(Kernel::Portable, &members);
    let kernels = others();
    let built: Vec<F> = kernels.iter().map(|&k| F::build(k, &members)).collect();
    for (k, f) in kernels.iter().zip(&built) {
        assert_eq!(f.bytes(), portable.bytes(), "{k:?}");
        for key in members.iter().chain(&probes) {
            assert_eq!(f.has(key), portable.has(key), "{k:?}");
        }
    }
    (portable, built)
}

#[test]
fn kernels_write_the_same_bytes_and_give_the_same_answers() {
    let (portable, others) = same_bytes_and_answers::<BlockedBloom>();
    // Test-and-insert counts the same new keys.
    for f in others {
        let (mut a, mut b) = (portable.clone(), f);
        for key in &testkit::keys("probe", 50_000) {
            assert_eq!(
                a.insert_if_absent(key).unwrap(),
                b.insert_if_absent(key).unwrap()
            );
        }
        assert_eq!(a.to_bytes(), b.to_bytes());
    }
}

#[test]
fn atomic_kernels_write_the_same_bytes_and_give_the_same_answers() {
    same_bytes_and_answers::<AtomicBlockedBloom>();
}

#[test]
fn parquet_kernels_write_the_same_bytes_and_give_the_same_answers() {
    same_bytes_and_answers::<ParquetBloom>();
}

#[test]
fn a_kernel_the_cpu_lacks_is_refused_and_changes_nothing() {
    let mut f = BlockedBloom::builder().capacity(100).build().unwrap();
    let before = f.kernel();
    for k in Kernel::ALL {
        let mut g = f.clone();
        match g.set_kernel(k) {
            Ok(()) => assert!(k.is_available() && g.kernel() == k),
            Err(e) => {
                assert!(!k.is_available(), "{k:?} refused: {e}");
                assert_eq!(g.kernel(), before);
            }
        }
    }
    // Loading detects again, whatever kernel wrote the file.
    f.set_kernel(Kernel::Portable).unwrap();
    let back = BlockedBloom::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(back.kernel(), Kernel::detect());
    assert_eq!(back, f, "equality ignores the kernel");
}
