use super::*;
use crate::MemoryCap;

#[test]
fn len_counter_sums_every_thread() {
    let c = LenCounter::new(5);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| (0..1000).for_each(|_| c.add(1)));
        }
    });
    assert_eq!(c.get(), 8005);
}

/// Issue 37, item 6: a count loaded at the maximum stays there, whichever slot the adding
/// threads get (the thread that got slot 0 used to wrap it to 0).
#[test]
fn len_counter_saturates_at_the_maximum() {
    let c = LenCounter::new(u64::MAX - 1);
    // Threads started one after another take the slots round-robin: every slot is used.
    for _ in 0..2 * SLOTS {
        std::thread::scope(|s| {
            s.spawn(|| c.add(1));
        });
        assert_eq!(c.get(), u64::MAX);
    }
}

#[test]
fn atomic_tables_refuse_what_they_cannot_hold() {
    assert!(matches!(
        try_atomic_table::<AtomicU64>(usize::MAX, MemoryCap::NONE, "t"),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(matches!(
        try_atomic_table::<AtomicU64>(1 << 20, MemoryCap(Some(1000)), "t"),
        Err(Error::MemoryCap { .. })
    ));
    let t = try_atomic_table::<AtomicU64>(10, MemoryCap::NONE, "t").unwrap();
    assert!(t.iter().all(|w| w.load(Ordering::Relaxed) == 0));
}

/// A filter whose inserts panic once armed, as a relocation chain might on a bug.
#[derive(Default)]
struct Panicky {
    keys: std::collections::HashSet<u128>,
    armed: bool,
}

impl Filter for Panicky {
    fn insert_hash(&mut self, h: Hash128) -> Result<()> {
        assert!(!self.armed, "panic half way through an insert");
        self.keys.insert(h.to_u128());
        Ok(())
    }
    fn contains_hash(&self, h: Hash128) -> bool {
        self.keys.contains(&h.to_u128())
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        self.keys.len() as u64
    }
    fn capacity(&self) -> u64 {
        u64::MAX
    }
    fn size_in_bytes(&self) -> usize {
        0
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "panicky"
    }
}

impl Deletable for Panicky {
    fn remove_hash(&mut self, h: Hash128) -> Result<()> {
        self.keys.remove(&h.to_u128());
        Ok(())
    }
    fn count_hash(&self, h: Hash128) -> u32 {
        u32::from(self.contains_hash(h))
    }
}

#[test]
fn a_shard_left_by_a_panicking_thread_is_refused() {
    let shared = Sharded::new(1, |_| Ok(Panicky::default())).unwrap();
    shared.insert(b"before").unwrap();
    shared.shards[0].lock().unwrap().armed = true;
    let panicked = std::thread::scope(|s| s.spawn(|| shared.insert(b"boom")).join());
    assert!(panicked.is_err(), "the insert should have panicked");
    let poisoned = Err(Error::Poisoned { shard: 0 });
    assert_eq!(shared.insert(b"after"), poisoned);
    assert_eq!(
        shared.contains(b"before"),
        Err(Error::Poisoned { shard: 0 })
    );
    assert_eq!(
        shared.insert_if_absent(b"after"),
        Err(Error::Poisoned { shard: 0 })
    );
    assert_eq!(shared.remove(b"before"), poisoned);
    assert_eq!(shared.len(), 1);
    assert!(matches!(
        shared.into_shards(),
        Err(Error::Poisoned { shard: 0 })
    ));
}
