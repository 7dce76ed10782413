//! `RedisBloom` against RedisBloom itself (the module `scripts/redis.sh` loads into
//! redis-server; `FILTERLAB_REDIS` names it), both directions, 1M probes each (half members):
//!
//! - RedisBloom builds a chain that grows (`BF.RESERVE`, `BF.MADD`); we read its `BF.SCANDUMP`,
//!   answer every probe as `BF.MEXISTS` does (0 disagreements), write back its exact chunks, and
//!   a chain we build from the same keys in the same order has those chunks too.
//! - We build a chain; `BF.LOADCHUNK` takes its chunks, `BF.MEXISTS` answers every probe as we
//!   do, `BF.SCANDUMP` gives our chunks back, and both sides, given the same further keys, grow
//!   the same links.
//!
//! - The cuckoo filter: RedisBloom fills one that grows (`CF.RESERVE`, `CF.INSERT`); we read its
//!   `CF.SCANDUMP`, answer 1M probes as `CF.MEXISTS` does, and `CF.LOADCHUNK` takes the chunks
//!   we write back (its chunks, byte for byte), after which a fresh key answers alike.
//!
//! Probes are sent in pipelined batches, so each direction takes seconds. Without a server the
//! tests print why and pass, unless `FILTERLAB_REQUIRE_SERVERS=1`.

mod common;

use common::random_keys;
use filter_core::Filter;
use filter_interop::redisbloom::{RedisBloom, RedisCuckoo, Scaling, OPT_FORCE64};
use redis::Connection;
use std::time::Instant;

/// Keys per `BF.MADD` / `BF.MEXISTS`, and commands per pipeline.
const BATCH: usize = 1000;
const PIPELINE: usize = 100;

/// A connection to the RedisBloom server, or `None` (the reason printed) when there is none,
/// unless `FILTERLAB_REQUIRE_SERVERS=1`, which makes that a failure.
fn server() -> Option<Connection> {
    let why = match std::env::var("FILTERLAB_REDIS") {
        Ok(url) if !url.is_empty() => match connect(&url) {
            Ok(c) => return Some(c),
            Err(why) => why,
        },
        _ => "FILTERLAB_REDIS is not set (eval \"$(bash scripts/redis.sh start)\")".to_owned(),
    };
    if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") {
        panic!("{why}, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping");
    }
    eprintln!("SKIPPED: {why}");
    None
}

fn connect(url: &str) -> Result<Connection, String> {
    let mut c = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .map_err(|e| format!("no Redis at {url}: {e}"))?;
    redis::cmd("BF.EXISTS")
        .arg("filterlab:probe")
        .arg("x")
        .query::<i64>(&mut c)
        .map_err(|e| format!("Redis at {url} has no RedisBloom: {e}"))?;
    Ok(c)
}

/// A key of this test process.
fn key(name: &str) -> String {
    format!("filterlab:test:redisbloom:{}:{name}", std::process::id())
}

fn del(c: &mut Connection, k: &str) {
    redis::cmd("DEL").arg(k).query::<i64>(c).expect("DEL");
}

/// `BF.MADD` of `keys`, in order, in pipelined batches.
fn madd(c: &mut Connection, k: &str, keys: &[Vec<u8>]) {
    batched(c, &["BF.MADD", k], keys);
}

/// `cmd` (a command and its arguments before the keys) with `keys` in order, in pipelined
/// batches; the integer answers.
fn batched(c: &mut Connection, cmd: &[&str], keys: &[Vec<u8>]) -> Vec<i64> {
    let mut out = Vec::with_capacity(keys.len());
    for group in keys.chunks(BATCH * PIPELINE) {
        let mut p = redis::pipe();
        for batch in group.chunks(BATCH) {
            p.cmd(cmd[0]).arg(&cmd[1..]).arg(batch);
        }
        let answers: Vec<Vec<i64>> = p.query(c).unwrap_or_else(|e| panic!("{}: {e}", cmd[0]));
        out.extend(answers.into_iter().flatten());
    }
    assert_eq!(out.len(), keys.len());
    out
}

/// `BF.MEXISTS` (or `CF.MEXISTS` for `cf`) of every probe, in pipelined batches.
fn mexists_of(c: &mut Connection, cf: bool, k: &str, probes: &[Vec<u8>]) -> Vec<bool> {
    let cmd = if cf { "CF.MEXISTS" } else { "BF.MEXISTS" };
    let answers = batched(c, &[cmd, k], probes);
    answers.into_iter().map(|a| a == 1).collect()
}

fn mexists(c: &mut Connection, k: &str, probes: &[Vec<u8>]) -> Vec<bool> {
    mexists_of(c, false, k, probes)
}

/// Every chunk of `BF.SCANDUMP` (or `CF.SCANDUMP` for `cf`), its closing `(0, "")` or
/// `(0, nil)` left out.
fn scandump_of(c: &mut Connection, cf: bool, k: &str) -> Vec<(i64, Vec<u8>)> {
    let cmd = if cf { "CF.SCANDUMP" } else { "BF.SCANDUMP" };
    let mut chunks = Vec::new();
    let mut iter = 0i64;
    loop {
        let (next, data): (i64, Option<Vec<u8>>) =
            redis::cmd(cmd).arg(k).arg(iter).query(c).expect(cmd);
        if next == 0 {
            assert!(data.unwrap_or_default().is_empty());
            return chunks;
        }
        chunks.push((next, data.expect("a chunk")));
        iter = next;
    }
}

fn scandump(c: &mut Connection, k: &str) -> Vec<(i64, Vec<u8>)> {
    scandump_of(c, false, k)
}

/// `BF.LOADCHUNK` (or `CF.LOADCHUNK` for `cf`) of every chunk, in one pipeline.
fn loadchunks_of(c: &mut Connection, cf: bool, k: &str, chunks: &[(i64, Vec<u8>)]) {
    let cmd = if cf { "CF.LOADCHUNK" } else { "BF.LOADCHUNK" };
    let mut p = redis::pipe();
    for (iter, data) in chunks {
        p.cmd(cmd).arg(k).arg(*iter).arg(data.as_slice());
    }
    p.query::<Vec<String>>(c)
        .unwrap_or_else(|e| panic!("{cmd} takes our chunks: {e}"));
}

fn loadchunks(c: &mut Connection, k: &str, chunks: &[(i64, Vec<u8>)]) {
    loadchunks_of(c, false, k, chunks)
}

/// `probes / 2` members, and probes that are those members followed by as many other keys.
fn key_sets(seed: u64, probes: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let members = random_keys(seed, probes / 2);
    let mut all = members.clone();
    all.extend(random_keys(seed ^ 0x5eed_0f0f, probes - probes / 2));
    (members, all)
}

fn disagreements(a: &[bool], b: &[bool]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

fn ours(error: f64, capacity: u64, scaling: Scaling, keys: &[Vec<u8>]) -> RedisBloom {
    let mut f = RedisBloom::reserve(error, capacity, scaling).expect("a valid size");
    keys.iter()
        .for_each(|k| f.insert(k).expect("a scaling chain takes every key"));
    f
}

/// RedisBloom writes, we read: 1M probes, its chunks back, and the same chunks from our build.
#[test]
fn redisbloom_writes_we_read_and_agree() {
    let Some(mut c) = server() else { return };
    let (k, probes) = (key("theirs"), 1_000_000);
    let (members, all) = key_sets(40, probes);
    let start = Instant::now();
    del(&mut c, &k);
    redis::cmd("BF.RESERVE")
        .arg(&k)
        .arg(0.01)
        .arg(100_000)
        .arg("EXPANSION")
        .arg(2)
        .query::<String>(&mut c)
        .expect("BF.RESERVE");
    madd(&mut c, &k, &members);
    let dump = scandump(&mut c, &k);
    let theirs = RedisBloom::from_chunks(&dump).expect("we read RedisBloom's dump");
    assert!(theirs.links().len() >= 3, "the chain grew twice");
    assert_eq!(
        theirs.to_chunks(),
        dump,
        "RedisBloom's chunks -> ours -> the same chunks"
    );
    let built = ours(0.01, 100_000, Scaling::Expand(2), &members);
    assert!(
        built.to_chunks() == dump,
        "same keys, same order: same chunks"
    );
    let answers = mexists(&mut c, &k, &all);
    let mine: Vec<bool> = all.iter().map(|p| theirs.contains(p)).collect();
    let wrong = disagreements(&answers, &mine);
    println!(
        "RedisBloom wrote {} links, we answered {probes} probes: {wrong} disagreements ({:.1?})",
        theirs.links().len(),
        start.elapsed()
    );
    assert_eq!(wrong, 0);
    assert!(
        mine[..members.len()].iter().all(|&a| a),
        "no false negative"
    );
    // The comparison can fail: the same bits read with the 32-bit hash answer otherwise.
    let mut head = dump.clone();
    head[0].1[12] &= !(OPT_FORCE64 as u8); // the options' low byte (offset 12, little-endian)
    let misread = RedisBloom::from_chunks(&head).expect("a valid header still");
    let misread: Vec<bool> = all.iter().map(|p| misread.contains(p)).collect();
    assert!(disagreements(&answers, &misread) > probes / 10);
    del(&mut c, &k);
}

/// We write, RedisBloom reads: `BF.LOADCHUNK` takes our chunks, 1M probes agree, its dump is our
/// chunks, and further keys grow both chains alike.
#[test]
fn we_write_redisbloom_reads_and_agrees() {
    let Some(mut c) = server() else { return };
    let (k, probes) = (key("ours"), 1_000_000);
    let (members, all) = key_sets(90, probes);
    let start = Instant::now();
    let mut f = ours(0.001, 50_000, Scaling::Expand(4), &members);
    assert!(f.links().len() >= 3, "{}", f.links().len());
    del(&mut c, &k);
    loadchunks(&mut c, &k, &f.to_chunks());
    assert!(
        scandump(&mut c, &k) == f.to_chunks(),
        "RedisBloom dumps what we loaded"
    );
    let answers = mexists(&mut c, &k, &all);
    let mine: Vec<bool> = all.iter().map(|p| f.contains(p)).collect();
    let wrong = disagreements(&answers, &mine);
    println!(
        "we wrote {} links, RedisBloom answered {probes} probes: {wrong} disagreements ({:.1?})",
        f.links().len(),
        start.elapsed()
    );
    assert_eq!(wrong, 0);
    let more = random_keys(91, 300_000);
    madd(&mut c, &k, &more);
    more.iter().for_each(|m| f.insert(m).unwrap());
    assert!(
        scandump(&mut c, &k) == f.to_chunks(),
        "both chains grew alike"
    );
    del(&mut c, &k);
}

/// Chunks of any size load (here 1,000 bytes), a `NONSCALING` chain round-trips, and a filter
/// that RedisBloom refuses to load is one we refuse too.
#[test]
fn small_chunks_nonscaling_and_refusals() {
    let Some(mut c) = server() else { return };
    let k = key("small");
    let members = random_keys(7, 20_000);
    let f = ours(0.01, 5_000, Scaling::Expand(2), &members);
    del(&mut c, &k);
    loadchunks(&mut c, &k, &f.to_chunks_of(1000));
    assert!(scandump(&mut c, &k) == f.to_chunks());
    let (ns, nk) = (key("nonscaling"), 10_000);
    del(&mut c, &ns);
    redis::cmd("BF.RESERVE")
        .arg(&ns)
        .arg(0.001)
        .arg(nk)
        .arg("NONSCALING")
        .query::<String>(&mut c)
        .unwrap();
    madd(&mut c, &ns, &members[..nk]);
    let dump = scandump(&mut c, &ns);
    let theirs = RedisBloom::from_chunks(&dump).unwrap();
    assert_eq!(
        theirs,
        ours(0.001, nk as u64, Scaling::NonScaling, &members[..nk])
    );
    assert_eq!(theirs.to_chunks(), dump);
    // A header whose k lies: RedisBloom says "received bad data", we say why.
    let mut bad = f.to_chunks();
    bad[0].1[20 + 40] ^= 1;
    let bad_key = key("bad");
    del(&mut c, &bad_key);
    let refused = redis::cmd("BF.LOADCHUNK")
        .arg(&bad_key)
        .arg(1)
        .arg(bad[0].1.as_slice())
        .query::<String>(&mut c);
    assert!(refused.is_err(), "{refused:?}");
    assert!(RedisBloom::from_chunks(&bad).is_err());
    for x in [k, ns, bad_key] {
        del(&mut c, &x);
    }
}

/// RedisBloom's cuckoo filter: its dump read, 1M probes answered as `CF.MEXISTS`, the chunks we
/// write back equal to its own and loaded into a fresh key that answers alike.
#[test]
fn cuckoo_dump_read_answered_and_written_back() {
    let Some(mut c) = server() else { return };
    let (k, copy, probes) = (key("cf"), key("cf-copy"), 1_000_000);
    // Distinct members: CF.INSERT adds a key again each time, and RedisBloom 2.8.2 dies of a
    // division by zero (SIGFPE) once repeats of one key have grown the filter to 2^32 buckets
    // (Filter_KOInsert keeps the bucket count in a uint32_t): 145 adds of one key do it here.
    // The short random keys repeat that often.
    let (members, all) = key_sets(70, probes);
    let mut seen = std::collections::HashSet::new();
    let members: Vec<Vec<u8>> = members
        .into_iter()
        .filter(|m| seen.insert(m.clone()))
        .collect();
    let all: Vec<Vec<u8>> = members
        .iter()
        .cloned()
        .chain(all[probes / 2..].iter().cloned())
        .collect();
    let start = Instant::now();
    del(&mut c, &k);
    redis::cmd("CF.RESERVE")
        .arg(&k)
        .arg(100_000)
        .arg("BUCKETSIZE")
        .arg(4)
        .arg("EXPANSION")
        .arg(2)
        .query::<String>(&mut c)
        .expect("CF.RESERVE");
    let added = batched(&mut c, &["CF.INSERT", &k, "ITEMS"], &members);
    assert!(added.iter().all(|&a| a == 1), "every insert placed");
    let dump = scandump_of(&mut c, true, &k);
    let theirs = RedisCuckoo::from_chunks(&dump).expect("we read RedisBloom's CF dump");
    assert!(theirs.sub_filter_buckets().len() >= 2, "the filter grew");
    assert_eq!(theirs.items(), members.len() as u64);
    assert_eq!(
        theirs.to_chunks(),
        dump,
        "its chunks -> ours -> the same chunks"
    );
    let answers = mexists_of(&mut c, true, &k, &all);
    let mine: Vec<bool> = all.iter().map(|p| theirs.contains(p)).collect();
    let wrong = disagreements(&answers, &mine);
    println!(
        "RedisBloom's cuckoo filter ({} sub-filters), we answered {probes} probes: {wrong} \
         disagreements ({:.1?})",
        theirs.sub_filter_buckets().len(),
        start.elapsed()
    );
    assert_eq!(wrong, 0);
    assert!(
        mine[..members.len()].iter().all(|&a| a),
        "no false negative"
    );
    del(&mut c, &copy);
    loadchunks_of(&mut c, true, &copy, &theirs.to_chunks());
    assert!(scandump_of(&mut c, true, &copy) == dump);
    let tail = members.len() - 50_000; // 50,000 members, then the other keys
    let again = mexists_of(&mut c, true, &copy, &all[tail..]);
    assert_eq!(disagreements(&again, &mine[tail..]), 0);
    for x in [k, copy] {
        del(&mut c, &x);
    }
}
