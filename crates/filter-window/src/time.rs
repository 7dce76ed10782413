//! [`TimeWindow`]: lane-sliced generations whose generations are slices of time, on a clock the
//! caller supplies ([`Timestamp`]), so that the core never reads a wall clock.

use crate::lanes::Lanes;
use crate::math::SlicedPlan;
use crate::sliced::Common;
use filter_core::{Error, Hash128, KeyHasher, MemoryCap, Pages, Result};
use std::time::{Duration, Instant};

/// Builds a [`TimeWindow`].
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug)]
pub struct TimeWindowBuilder {
    window: u64,
    items: u64,
    common: Common,
    cap: MemoryCap,
    pages: Pages,
}

impl TimeWindowBuilder {
    filter_core::setters! {
        /// The window, in the caller's ticks: a key inserted at `t` is present until at least
        /// `t + ticks` (default 86 400, a day in seconds).
        window(ticks: u64) => window;
        /// The most items a window receives at the target rate (default one million). Each
        /// generation is sized for its share, `items / N`; a slice of time that receives more
        /// raises the rate while it is in the window ([`TimeWindow::expected_fpr_at`] reports it).
        items_per_window(items: u64) => items;
    }

    common_setters!();

    /// Builds the filter.
    ///
    /// # Errors
    /// A window shorter than its generations (each slice must last at least one tick), no
    /// items, a rate outside (0, 1), generations not in
    /// [`GENERATION_CHOICES`](crate::GENERATION_CHOICES), or a table too large.
    pub fn build(self) -> Result<TimeWindow> {
        let common = self.common;
        let plan = common.plan(self.items, "items_per_window")?;
        if self.window < u64::from(common.generations) {
            return Err(Error::InvalidParameter {
                name: "window",
                value: self.window.to_string(),
                expected: "a window of at least as many ticks as generations (use finer ticks, \
                           milliseconds rather than seconds)",
            });
        }
        Ok(TimeWindow {
            lanes: common.lanes(&plan, self.table_options())?,
            plan,
            window: self.window,
            slice: self.window.div_ceil(u64::from(common.generations)),
            current: None,
            hasher: common.hasher,
        })
    }
}

/// A sliding-window filter over a time window: `N` slices of `window / N` ticks per window,
/// `N + 1` kept in the bit lanes of one table, each sized for its share of the items.
///
/// Time is the caller's: [`TimeWindow::insert_at`] and [`TimeWindow::contains_at`] take a
/// [`Timestamp`], so tests are deterministic; [`InstantClock`] makes them from [`Instant`]s. A
/// key inserted at `t` is present at every `u < t + window` and absent from its own bits from
/// `t + (N + 1) · slice` on, `slice = ceil(window / N)`. A timestamp older than the latest one
/// seen is filed into the latest slice: the key then lives longer, never shorter.
///
/// # Saving, and loading after a pause
/// A time window is [`Persist`](filter_core::Persist) (file kind
/// [`TIME_WINDOW_FILE_KIND`](crate::TIME_WINDOW_FILE_KIND)). The file keeps the latest slice an
/// insert was filed into, so a loaded copy keeps its place in time: the timestamps it is given
/// afterwards are measured against that slice exactly as the saved window's would have been.
/// A window loaded after a long pause is therefore not stale: at the first query, the slices
/// that left the window during the pause no longer answer, and the first insert empties them;
/// after a pause of `(N + 1) · slice` ticks or more, nothing saved answers any more.
///
/// That holds when the timestamps before and after the save come from one clock. An
/// [`InstantClock`] counts from an [`Instant`] of its process and restarts at 0 in the next
/// one: timestamps from it after a restart look older than the saved slice, are filed into it,
/// and nothing expires until the new clock catches up. Feed a window you save with a clock
/// that survives restarts, such as seconds or milliseconds since the Unix epoch
/// ([`std::time::SystemTime`]).
///
/// # False-positive rate
/// [`math::sliced_fpr`](crate::math::sliced_fpr) over the slices still in the window, at their
/// real counts: at most the target while no slice receives more than `items_per_window / N`.
///
/// A day in seconds, 70 000 sign-ups a day spread evenly; strangers over the last day of a
/// week stay within the model's rate, under 1%:
///
/// ```
/// use filter_window::{TimeWindow, Timestamp};
/// let key = |i: u64| i.to_le_bytes();
/// let mut f = TimeWindow::builder().window(86_400).items_per_window(70_000).build()?;
/// let at = |i: u64| Timestamp(i * 86_400 / 70_000);
/// for i in 0..7 * 70_000 {
///     f.insert_at(&key(i), at(i))?;
/// }
/// let now = at(7 * 70_000);
/// assert!((6 * 70_000 + 1..7 * 70_000).all(|i| f.contains_at(&key(i), now)));
/// let fp = (1u64 << 40..(1 << 40) + 100_000).filter(|&i| f.contains_at(&key(i), now)).count();
/// let (p, n) = (f.expected_fpr_at(now), 100_000.0);
/// assert!(p <= 0.01);
/// assert!((fp as f64 - n * p).abs() <= 4.0 * (n * p * (1.0 - p)).sqrt(), "{fp}");
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// ```
/// use filter_window::{TimeWindow, Timestamp};
/// let mut f = TimeWindow::builder().window(3_600).items_per_window(10_000).build()?;
/// f.insert_at(b"alert:disk", Timestamp(100))?;
/// assert!(f.contains_at(b"alert:disk", Timestamp(3_699)));
/// // Long past 1 + 1/N windows, with nothing else inserted: certainly gone.
/// assert!(!f.contains_at(b"alert:disk", Timestamp(100 + 3_600 * 8 / 7 + 600)));
/// # Ok::<(), filter_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TimeWindow {
    pub(crate) lanes: Lanes,
    pub(crate) plan: SlicedPlan,
    pub(crate) window: u64,
    pub(crate) slice: u64,
    /// The latest slice (epoch, `t / slice`) an insert was filed into.
    pub(crate) current: Option<u64>,
    pub(crate) hasher: KeyHasher,
}

impl TimeWindow {
    /// A builder: a window of 86 400 ticks, one million items per window at 1%, 7 generations.
    pub fn builder() -> TimeWindowBuilder {
        TimeWindowBuilder {
            window: 86_400,
            items: 1_000_000,
            common: Common::default(),
            cap: MemoryCap::NONE,
            pages: Pages::Huge,
        }
    }

    /// The plan the filter was built to.
    pub fn plan(&self) -> SlicedPlan {
        self.plan
    }

    /// The window, in ticks.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// Ticks per slice, `ceil(window / N)`.
    pub fn slice(&self) -> u64 {
        self.slice
    }

    /// The hash function and seed.
    pub fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// Heap memory of the table, constant for the filter's life.
    pub fn size_in_bytes(&self) -> usize {
        self.lanes.size_in_bytes()
    }

    /// Bytes of the table on transparent huge pages now
    /// ([`Table::huge_page_bytes`](filter_core::Table::huge_page_bytes)); `None` where that
    /// cannot be measured.
    pub fn huge_page_bytes(&self) -> Option<u64> {
        self.lanes.huge_page_bytes()
    }

    /// The start of the latest slice an insert was filed into (`None` before the first
    /// insert): the time a window answers at when it is asked without a time.
    pub fn latest(&self) -> Option<Timestamp> {
        self.current
            .map(|epoch| Timestamp(epoch.saturating_mul(self.slice)))
    }

    /// The most items a window holds at the target rate: `N` slices of their share.
    pub fn items_per_window(&self) -> u64 {
        self.plan
            .per_generation
            .saturating_mul(u64::from(self.plan.generations))
    }

    /// The generation slot of the latest slice (the first slice's before any insert).
    pub(crate) fn latest_slot(&self) -> u32 {
        self.slot(self.current.unwrap_or(0))
    }

    fn slot(&self, epoch: u64) -> u32 {
        (epoch % u64::from(self.lanes.slots())) as u32
    }

    /// Moves the current slice forward to `epoch`, emptying the slots of the slices that leave.
    fn advance(&mut self, epoch: u64) -> u64 {
        let cur = match self.current {
            None => {
                self.current = Some(epoch);
                return epoch;
            }
            Some(cur) if epoch <= cur => return cur,
            Some(cur) => cur,
        };
        let slots = u64::from(self.lanes.slots());
        if epoch - cur >= slots {
            self.lanes.clear_all();
        } else {
            for e in cur + 1..=epoch {
                self.lanes.clear_slot(self.slot(e));
            }
        }
        self.current = Some(epoch);
        epoch
    }

    /// The slots whose slices are in the window at `t`, as a bit mask. The kept slices are
    /// `cur - N ..= cur`; at a later epoch `e` the oldest `e - cur` of them have left.
    fn live(&self, t: Timestamp) -> u64 {
        let Some(cur) = self.current else { return 0 };
        let epoch = t.0 / self.slice;
        if epoch <= cur {
            return u64::MAX;
        }
        let slots = u64::from(self.lanes.slots());
        let gone = epoch - cur;
        if gone >= slots {
            return 0;
        }
        // Slice cur - N + i sits in slot (cur + 1 + i) mod S, because N + 1 = S.
        (0..gone).fold(u64::MAX, |mask, i| mask & !(1 << self.slot(cur + 1 + i)))
    }

    /// Adds the key whose hash is `hash` at time `t`.
    ///
    /// # Errors
    /// None today (the table never fills; an overfull slice only raises the rate); the
    /// `Result` keeps the shape of [`Filter::insert_hash`](filter_core::Filter::insert_hash).
    pub fn insert_hash_at(&mut self, hash: Hash128, t: Timestamp) -> Result<()> {
        let epoch = self.advance(t.0 / self.slice);
        let slot = self.slot(epoch);
        self.lanes.insert(hash, slot);
        Ok(())
    }

    /// Adds a key at time `t`.
    ///
    /// # Errors
    /// As [`TimeWindow::insert_hash_at`].
    pub fn insert_at(&mut self, key: &[u8], t: Timestamp) -> Result<()> {
        self.insert_hash_at(self.hasher.hash(key), t)
    }

    /// Whether the key whose hash is `hash` may have been inserted within the window before `t`.
    pub fn contains_hash_at(&self, hash: Hash128, t: Timestamp) -> bool {
        let live = self.live(t);
        live != 0 && self.lanes.contains(hash, live)
    }

    /// Whether a key may have been inserted within the window before `t`.
    pub fn contains_at(&self, key: &[u8], t: Timestamp) -> bool {
        self.contains_hash_at(self.hasher.hash(key), t)
    }

    /// Adds many hashed keys, all at time `t`, prefetching the memory of later keys while
    /// earlier ones are inserted (when the table is large enough for that to pay).
    ///
    /// # Errors
    /// As [`TimeWindow::insert_hash_at`].
    pub fn insert_hash_batch_at(&mut self, hashes: &[Hash128], t: Timestamp) -> Result<()> {
        let epoch = self.advance(t.0 / self.slice);
        let slot = self.slot(epoch);
        let prefetch = filter_core::worth_prefetching(self.size_in_bytes(), self.plan.k);
        filter_core::insert_pipelined(hashes, prefetch, |h, next| {
            if let Some(next) = next {
                self.lanes.prefetch(next);
            }
            self.lanes.insert(h, slot);
            Ok(())
        })
    }

    /// Answers many hashed queries at time `t`: `out[i] = contains_hash_at(hashes[i], t)`.
    /// `out` is cleared first.
    pub fn contains_hash_batch_at(&self, hashes: &[Hash128], t: Timestamp, out: &mut Vec<bool>) {
        let live = self.live(t);
        filter_core::lookup_pipelined(
            hashes,
            out,
            filter_core::worth_prefetching(self.size_in_bytes(), self.plan.k),
            |h| self.lanes.prefetch(h),
            |h| live != 0 && self.lanes.contains(h, live),
        );
    }

    /// Whether every slice the window holds would have left it by `t`, so that an insert at
    /// `t` forgets all it holds: `t` lies more than one window past the latest slice. `false`
    /// before the first insert (there is nothing to forget). A caller whose times come from
    /// people (a command line) can refuse such a jump: a time in milliseconds given to a
    /// window counted in seconds is one.
    pub fn forgets_all_at(&self, t: Timestamp) -> bool {
        self.current.is_some() && self.live(t) == 0
    }

    /// Items held in the slices still in the window at `t`.
    pub fn len_at(&self, t: Timestamp) -> u64 {
        self.lanes.items(self.live(t))
    }

    /// The false-positive rate predicted at `t` from the real counts of the slices in the window.
    pub fn expected_fpr_at(&self, t: Timestamp) -> f64 {
        self.lanes.expected_fpr(self.live(t))
    }
}

/// A point in time in the caller's units (milliseconds, seconds, ticks of a test clock). Only
/// differences matter; the filter never reads a clock itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub u64);

/// Turns [`Instant`]s into [`Timestamp`]s: whole `tick`s elapsed since an origin. The origin
/// is an [`Instant`] of this process, so its timestamps do not carry over to a window saved
/// and loaded in another process (see [`TimeWindow`]'s section on saving).
#[derive(Clone, Copy, Debug)]
pub struct InstantClock {
    origin: Instant,
    tick: Duration,
}

impl InstantClock {
    /// A clock whose origin is now.
    ///
    /// # Errors
    /// A zero `tick`.
    pub fn new(tick: Duration) -> Result<Self> {
        Self::with_origin(Instant::now(), tick)
    }

    /// A clock whose origin is `origin`.
    ///
    /// # Errors
    /// A zero `tick`.
    pub fn with_origin(origin: Instant, tick: Duration) -> Result<Self> {
        if tick.is_zero() {
            return Err(Error::InvalidParameter {
                name: "tick",
                value: "0 ns".into(),
                expected: "a positive duration, for example Duration::from_millis(1)",
            });
        }
        Ok(InstantClock { origin, tick })
    }

    /// Whole ticks from the origin to `at` (0 before the origin, saturating far after it).
    pub fn at(&self, at: Instant) -> Timestamp {
        let ticks = at.saturating_duration_since(self.origin).as_nanos() / self.tick.as_nanos();
        Timestamp(u64::try_from(ticks).unwrap_or(u64::MAX))
    }

    /// [`InstantClock::at`] for [`Instant::now`].
    pub fn now(&self) -> Timestamp {
        self.at(Instant::now())
    }
}
