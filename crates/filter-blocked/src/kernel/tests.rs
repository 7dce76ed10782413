use super::*;

/// Keys that reach every product bit pattern often: a seeded xorshift stream, plus the edges.
fn keys(n: usize) -> impl Iterator<Item = u32> {
    let mut x = 0x9e37_79b9_u32;
    let stream = (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    });
    [0, 1, 2, 0x8000_0000, u32::MAX].into_iter().chain(stream)
}

/// The kernels this CPU runs besides the portable one; says so when there is none.
fn others() -> Vec<Kernel> {
    let k = Kernel::accelerated();
    if k.is_empty() {
        eprintln!("no kernel besides the portable one on this CPU: nothing to compare");
    }
    k
}

#[test]
fn detection_picks_an_available_kernel_and_checked_refuses_the_others() {
    assert!(Kernel::detect().is_available());
    for k in Kernel::ALL {
        assert_eq!(k.checked().is_ok(), k.is_available(), "{k:?}");
    }
    if cfg!(miri) || !cfg!(target_arch = "x86_64") {
        // Miri cannot run AVX2: the runtime detection must route it to the portable code.
        assert_eq!(Kernel::detect(), Kernel::Portable);
        assert!(Kernel::Avx2.checked().is_err());
    }
}

#[test]
fn every_kernel_gives_the_portable_masks() {
    let n = if cfg!(miri) { 200 } else { 200_000 };
    for k in others() {
        for key in keys(n) {
            assert_eq!(k.masks(key), masks(key), "{k:?}, key {key:#x}");
        }
    }
}

#[test]
fn every_kernel_tests_and_sets_blocks_as_the_portable_one() {
    let n = if cfg!(miri) { 200 } else { 100_000 };
    for k in others() {
        // Blocks at every fill, from empty to one bit short of a member.
        let mut fill = Block::default();
        for (i, key) in keys(n).enumerate() {
            let mut partial = Block(masks(key));
            partial.0[i % 8] = 0;
            for block in [fill, partial, Block(masks(key)), Block([u32::MAX; 8])] {
                assert_eq!(k.test(&block, key), test(&block, key), "{k:?} {key:#x}");
                let (mut a, mut b) = (block, block);
                assert_eq!(k.set(&mut a, key), set(&mut b, key), "{k:?} {key:#x}");
                assert_eq!(a, b, "{k:?} {key:#x}");
            }
            assert!(
                !k.test(&partial, key),
                "a block missing a lane's bit passed"
            );
            set(&mut fill, key.rotate_left(7));
            if i % 64 == 63 {
                fill = Block::default();
            }
        }
    }
}
