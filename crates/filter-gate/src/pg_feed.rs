//! The LISTEN side of the PostgreSQL store: a thread on its own connection that forwards the
//! keys other instances commit (the `filter_gate.notify` trigger) to the gate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};

use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// Notifications buffered between the listener thread and the gate. When it is full the
/// listener waits (PostgreSQL keeps queueing on the server); nothing is dropped.
const FEED_BUFFER: usize = 1 << 16;
/// How often the listener looks at its stop flag.
const POLL: Duration = Duration::from_millis(50);
/// After this long without a notification the listener checks its connection (and waits this
/// long for the answer).
const HEARTBEAT: Duration = Duration::from_secs(1);

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
    /// misses nothing) and starts the thread. The connection is made on the listener thread, so
    /// that a server that accepts the connection and then stays silent fails this call after
    /// `bound` (the thread then ends on its own) instead of hanging it.
    pub(crate) fn start(config: &Config, channel: &str, bound: Duration) -> StoreResult<Self> {
        let (tx, rx) = sync_channel(FEED_BUFFER);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_thread = Arc::clone(&stop);
        let (config, channel) = (config.clone(), channel.to_owned());
        let thread = std::thread::Builder::new()
            .name("filter-gate-listen".into())
            .spawn(move || match listen(&config, &channel) {
                Ok(client) => {
                    let _ = ready_tx.send(Ok(()));
                    forward(client, &tx, &stop_thread);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "listen", e))?;
        match ready_rx.recv_timeout(bound) {
            Ok(Ok(())) => Ok(Self {
                rx: Some(rx),
                stop,
                thread: Some(thread),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => {
                stop.store(true, Ordering::Relaxed);
                Err(StoreError::new(
                    StoreErrorKind::Timeout,
                    "listen",
                    format!("no answer from the server within {bound:?}"),
                ))
            }
        }
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

fn listen(config: &Config, channel: &str) -> StoreResult<Client> {
    let unavailable =
        |e: postgres::Error| StoreError::new(StoreErrorKind::Unavailable, "listen", e.to_string());
    let mut client = config.connect(NoTls).map_err(unavailable)?;
    client
        .batch_execute(&format!("LISTEN \"{channel}\""))
        .map_err(unavailable)?;
    Ok(client)
}

/// The listener thread: forwards notifications until stopped or the connection fails. A
/// connection silent for [`HEARTBEAT`] is asked a no-op query, so that a half-open one (which
/// delivers nothing and reports nothing) is reported lost within about two heartbeats.
fn forward(mut client: Client, tx: &SyncSender<FeedItem>, stop: &AtomicBool) {
    let mut quiet = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        {
            let mut notes = client.notifications();
            let mut it = notes.timeout_iter(POLL);
            loop {
                match it.next() {
                    Ok(Some(n)) => {
                        quiet = Instant::now();
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
        if quiet.elapsed() >= HEARTBEAT {
            if let Err(e) = client.is_valid(HEARTBEAT) {
                let _ = tx.send(FeedItem::Lost(format!("no answer to a heartbeat: {e}")));
                return;
            }
            quiet = Instant::now();
        }
    }
}
