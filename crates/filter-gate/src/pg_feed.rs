//! The LISTEN side of the PostgreSQL store: a thread on its own connection that forwards the
//! keys other instances commit (the `filter_gate.notify` trigger) to the gate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Config, NoTls};

use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// Notifications buffered between the listener thread and the gate. When it is full the
/// listener waits (PostgreSQL keeps queueing on the server); nothing is dropped.
const FEED_BUFFER: usize = 1 << 16;
/// How often the listener looks at its stop flag.
const POLL: Duration = Duration::from_millis(50);

/// A message from the listener thread.
enum FeedItem {
    Key(String),
    Lost(String),
}

/// A running listener. Dropping it never blocks: the receiver goes first, which wakes a
/// listener waiting on a full buffer, and the thread is then left to end on its own (within
/// [`POLL`]) instead of being joined.
pub(crate) struct Feed {
    rx: Option<Receiver<FeedItem>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // A listener blocked in `send` on a full buffer returns at once once the receiver is
        // gone; joining is not needed for correctness and could wait on the network.
        self.rx = None;
        drop(self.thread.take());
    }
}

impl Feed {
    /// Connects, runs `LISTEN channel` (before returning, so that a scan started afterwards
    /// misses nothing) and starts the thread.
    pub(crate) fn start(config: &Config, channel: &str) -> StoreResult<Self> {
        let unavailable = |e: postgres::Error| {
            StoreError::new(StoreErrorKind::Unavailable, "listen", e.to_string())
        };
        let mut client = config.connect(NoTls).map_err(unavailable)?;
        client
            .batch_execute(&format!("LISTEN \"{channel}\""))
            .map_err(unavailable)?;
        let (tx, rx) = sync_channel(FEED_BUFFER);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_thread = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("filter-gate-listen".into())
            .spawn(move || {
                while !stop_thread.load(Ordering::Relaxed) {
                    let mut notes = client.notifications();
                    let mut it = notes.timeout_iter(POLL);
                    loop {
                        match it.next() {
                            Ok(Some(n)) => {
                                if tx.send(FeedItem::Key(n.payload().to_owned())).is_err() {
                                    return;
                                }
                            }
                            Ok(None) => break,
                            Err(e) => {
                                let _ = tx.send(FeedItem::Lost(e.to_string()));
                                return;
                            }
                        }
                    }
                }
            })
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "listen", e))?;
        Ok(Self {
            rx: Some(rx),
            stop,
            thread: Some(thread),
        })
    }

    /// Calls `each` on every key received so far.
    pub(crate) fn drain(&self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        let lost = |msg: &str| StoreError::new(StoreErrorKind::FeedLost, "listen", msg);
        let Some(rx) = &self.rx else {
            return Err(lost("the feed was stopped"));
        };
        loop {
            match rx.try_recv() {
                Ok(FeedItem::Key(k)) => each(&k),
                Ok(FeedItem::Lost(msg)) => return Err(lost(&msg)),
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Disconnected) => return Err(lost("the listener thread stopped")),
            }
        }
    }
}
