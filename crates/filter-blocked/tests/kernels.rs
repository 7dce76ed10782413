//! Every lane kernel builds the same filters, byte for byte, and answers the same: the
//! portable kernel against each other one this CPU runs (AVX2 on most x86-64), for the
//! single-threaded, atomic and Parquet forms.

use filter_blocked::parquet::ParquetBloom;
use filter_blocked::{BlockedBloom, Kernel};
use filter_core::{testkit, Filter, Persist};

fn others() -> Vec<Kernel> {
    let k: Vec<Kernel> = Kernel::ALL
        .into_iter()
        .filter(|k| *k != Kernel::Portable && k.is_available())
        .collect();
    if k.is_empty() {
        eprintln!("no kernel besides the portable one on this CPU: nothing to compare");
    }
    k
}

fn blocked(kernel: Kernel, members: &[Vec<u8>]) -> BlockedBloom {
    let mut f = BlockedBloom::builder().capacity(20_000).build().unwrap();
    f.set_kernel(kernel).unwrap();
    for k in members {
        f.insert(k).unwrap();
    }
    f
}

#[test]
fn kernels_write_the_same_bytes_and_give_the_same_answers() {
    let members = testkit::keys("member", 20_000);
    let probes = testkit::keys("probe", 50_000);
    let portable = blocked(Kernel::Portable, &members);
    for k in others() {
        let f = blocked(k, &members);
        assert_eq!(f.kernel(), k);
        assert_eq!(f.to_bytes(), portable.to_bytes(), "{k:?}");
        for key in members.iter().chain(&probes) {
            assert_eq!(f.contains(key), portable.contains(key), "{k:?}");
        }
        // Test-and-insert counts the same new keys.
        let (mut a, mut b) = (portable.clone(), f.clone());
        for key in &probes {
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
    let members = testkit::keys("member", 20_000);
    let probes = testkit::keys("probe", 50_000);
    let build = |kernel| {
        let mut f = BlockedBloom::builder()
            .capacity(20_000)
            .build_atomic()
            .unwrap();
        f.set_kernel(kernel).unwrap();
        for k in &members {
            f.insert(k);
        }
        f
    };
    let portable = build(Kernel::Portable);
    for k in others() {
        let f = build(k);
        assert_eq!(f.to_bytes(), portable.to_bytes(), "{k:?}");
        for key in members.iter().chain(&probes) {
            assert_eq!(f.contains(key), portable.contains(key), "{k:?}");
        }
    }
}

#[test]
fn parquet_kernels_write_the_same_bytes_and_give_the_same_answers() {
    let members = testkit::keys("member", 20_000);
    let probes = testkit::keys("probe", 50_000);
    let build = |kernel| {
        let mut f = ParquetBloom::with_ndv_fpp(20_000, 0.01).unwrap();
        f.set_kernel(kernel).unwrap();
        for k in &members {
            f.insert(k);
        }
        f
    };
    let portable = build(Kernel::Portable);
    for k in others() {
        let f = build(k);
        assert_eq!(f.to_bytes(), portable.to_bytes(), "{k:?}");
        for key in members.iter().chain(&probes) {
            assert_eq!(f.contains(key), portable.contains(key), "{k:?}");
        }
    }
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
