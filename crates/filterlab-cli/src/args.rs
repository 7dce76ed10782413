//! The command line: every command and flag, parsed by clap.

use crate::parse;
use anyhow::Result;
use clap::{Parser, Subcommand};
use filterlab::{HashKind, KeyHasher, Variant};
use std::path::PathBuf;

/// The parsed command line.
#[derive(Parser, Debug)]
#[command(
    name = "filterlab",
    version,
    about = "Size, choose, build, query and explain approximate-membership filters",
    after_help = "Numbers: 10M, 1e7, 10_000_000; rates: 1%, 0.01, 1/100; memory: 64MiB, 64K (= KiB), 512MB.\n\
                  Key files: one key a line (LF or CRLF), at most 64 KiB a key; empty lines skipped; a UTF-8\n\
                  BOM dropped; a FIFO or pipe is read as it comes, a device (/dev/urandom) refused.\n\
                  Keys are printed escaped (\\\\, \\t, \\r, \\n, \\xHH for control and non-UTF-8 bytes).\n\
                  Exit codes: 0 success (query: all keys maybe present), 1 query: some key absent\n\
                  (remove: some key absent, not removed), 2 error (under --json: one JSON object on stderr)."
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
    /// Print JSON instead of text, for scripts.
    #[arg(long, global = true)]
    pub json: bool,
    /// Treat warnings about the result (more keys than the capacity, or than a static
    /// filter's --n; an overfull slice of a window) as errors: exit 2 and leave the file as it
    /// was.
    #[arg(long, global = true)]
    pub strict: bool,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Memory, hash functions and expected rate of every variant (or one) for n items at rate p.
    Calc {
        /// Capacity and rate.
        #[command(flatten)]
        size: Size,
        /// Only this variant.
        #[arg(long, value_parser = parse::VariantParser)]
        variant: Option<Variant>,
        /// Aleph: the most items expected (its table is sized to reach that many with a static
        /// filter's fingerprints); the other variants are sized for --n.
        #[arg(long, value_parser = parse::count)]
        max_n: Option<u64>,
    },
    /// Which variant to use, sized, with the reasons and what happens if n is underestimated.
    Recommend(Recommend),
    /// Build a filter from keys, one per line, and save it.
    Build(Build),
    /// Ask a saved filter about keys. Exit 0: all maybe present; 1: some certainly absent.
    Query {
        /// The saved filter.
        filter: PathBuf,
        /// Where the keys come from.
        #[command(flatten)]
        keys: Keys,
        /// A window counted in time: answer at this time (in its ticks); without it, as of
        /// the latest slice a key was inserted into.
        #[arg(long)]
        at: Option<u64>,
        /// A Parquet file: the column whose row-group filters answer (keys as its physical
        /// type: text for BYTE_ARRAY, decimal for INT32/INT64/FLOAT/DOUBLE, bytes or hex for
        /// FIXED_LEN_BYTE_ARRAY).
        #[arg(long)]
        column: Option<String>,
    },
    /// Insert keys into a saved filter and save it again (atomically).
    Add {
        /// The saved filter.
        filter: PathBuf,
        /// Where the keys come from.
        #[command(flatten)]
        keys: Keys,
        /// A window counted in time: the time the keys are inserted at (required for it).
        #[arg(long)]
        at: Option<u64>,
        /// A window counted in time: insert at an --at more than one window after its newest
        /// slice, which forgets every key it holds (refused without this flag: a time in
        /// milliseconds given to a window counted in seconds is such a jump).
        #[arg(long, requires = "at")]
        allow_jump: bool,
    },
    /// Remove keys from a saved filter of a variant that deletes (`filterlab recommend --deletes` names them) and save it again (atomically).
    ///
    /// Remove only keys that were inserted: removing a key that was never inserted (but that
    /// the filter reports present, a false positive) takes away another key's bits or
    /// fingerprint, and that key may then be reported absent. Exit 1 when some key was
    /// certainly absent (not removed; the others are removed and saved).
    Remove {
        /// The saved filter.
        filter: PathBuf,
        /// Where the keys come from.
        #[command(flatten)]
        keys: Keys,
    },
    /// Variant, parameters, items, expected rate, bytes, checksum and format of a saved filter
    /// (opened in place where the file allows it: then the checksum is verified only with
    /// --verify).
    Info {
        /// The saved filter.
        filter: PathBuf,
        /// Verify the whole file's checksum (reads every byte) when it is opened in place.
        #[arg(long)]
        verify: bool,
    },
    /// Each formula with a filter's numbers, and where a key lands: `explain FILE [KEY]`
    /// reads the parameters and seed from a saved filter; `explain --variant V --n N --fpr P
    /// [KEY]` sizes one (seed 0).
    Explain {
        /// Variant (instead of a saved filter).
        #[arg(long, value_parser = parse::VariantParser, requires_all = ["n", "fpr"])]
        variant: Option<Variant>,
        /// Items, with --variant.
        #[arg(long, value_parser = parse::count, requires = "variant")]
        n: Option<u64>,
        /// Rate, with --variant.
        #[arg(long, value_parser = parse::rate, requires = "variant")]
        fpr: Option<f64>,
        /// FILE [KEY], or with --variant: [KEY].
        #[arg(num_args = 0..=2, value_name = "FILE|KEY")]
        args: Vec<String>,
    },
    /// Convert a filter to another format: exactly where both formats place every key by the
    /// same hash and layout (a filterlab file re-saved in the current version; a Guava file
    /// re-encoded), otherwise refused with the reason, or rebuilt from --keys.
    Convert(Convert),
    /// The sign-up gate's deployment steps: `gate migrate` prepares a PostgreSQL users table.
    #[cfg(feature = "gate")]
    Gate {
        /// The gate command.
        #[command(subcommand)]
        command: crate::gate::GateCommand,
    },
}

/// `recommend`'s flags.
#[derive(clap::Args, Debug)]
pub struct Recommend {
    /// Capacity and rate.
    #[command(flatten)]
    pub size: Size,
    /// Items must be removable.
    #[arg(long)]
    pub deletes: bool,
    /// The item count is unknown or keeps growing (--n is the start).
    #[arg(long)]
    pub growth: bool,
    /// The keys are known up front and fixed (--n of them): a static filter built once
    /// from the set (binary fuse, ribbon), which takes no later key.
    #[arg(long = "fixed-set", alias = "static", conflicts_with_all = ["deletes", "growth"])]
    pub fixed_set: bool,
    /// With --growth: the most items expected (default 10 x --n); the memory budget is
    /// judged there.
    #[arg(long, value_parser = parse::count, requires = "growth")]
    pub max_n: Option<u64>,
    /// Memory budget (64MiB, 64K, 512MB, ...).
    #[arg(long, value_parser = parse::bytes)]
    pub max_memory: Option<u64>,
    /// Threads that will query the filter.
    #[arg(long, default_value = "1", value_parser = parse::threads)]
    pub threads: u32,
    /// Only recent keys matter: `items` (the last --n inserts) or a duration (`24h`, `10m`,
    /// `3600` seconds; --n is then the most items one window receives). A sliding window
    /// forgets older keys by itself.
    #[arg(long, value_parser = crate::window::parse, conflicts_with_all = ["deletes", "growth", "fixed_set"])]
    pub window: Option<crate::window::Window>,
}

impl Recommend {
    /// What the flags ask of a filter.
    pub fn needs(&self) -> crate::recommend::Needs {
        crate::recommend::Needs {
            deletes: self.deletes,
            growth: self.growth,
            fixed_set: self.fixed_set,
            max_n: self.max_n,
            max_memory: self.max_memory,
            threads: self.threads,
            window: self.window,
            ..crate::recommend::Needs::new(self.size.n, self.size.fpr)
        }
    }
}

/// `convert`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Convert {
    /// The filter to convert: a filterlab file or a foreign one, recognised by its bytes.
    pub input: PathBuf,
    /// Where to save the result (written whole or not at all; only a regular file is
    /// replaced).
    pub output: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    pub to: Format,
    /// Rebuild from these keys (one a line; `-` for stdin) where no exact conversion exists.
    /// Every key is first asked of the input: one it reports absent is not among the keys it
    /// holds (or was hashed another way), and nothing is written.
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// With --keys and --to filterlab: the variant to build (default classic).
    #[arg(long, value_parser = parse::VariantParser, requires = "keys")]
    pub variant: Option<Variant>,
    /// With --keys: the rate to build for (default: the input's expected rate at its count).
    #[arg(long, value_parser = parse::rate, requires = "keys")]
    pub fpr: Option<f64>,
    /// --to guava: the strategy (default MURMUR128_MITZ_64, what `BloomFilter.create` uses; a
    /// Guava input keeps its own).
    #[arg(long, value_enum)]
    pub guava_strategy: Option<GuavaStrategyArg>,
}

/// The file formats filterlab writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// filterlab's own format, any variant.
    #[default]
    Filterlab,
    /// Guava's `BloomFilter` (`writeTo` / `readFrom`): a classic Bloom filter.
    Guava,
    /// A Parquet file of the keys (one column, one row group) with its split-block bloom
    /// filter, written by the `parquet` crate and checked to be filterlab's, bit for bit
    /// (`build` only).
    Parquet,
    /// RedisBloom's scalable Bloom filter, in the one-file form of its `BF.SCANDUMP` chunks
    /// (`RBLOOMSB`, then the header chunk and the data): `BF.LOADCHUNK` takes its chunks.
    Redisbloom,
}

impl Format {
    /// Its name in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Filterlab => "a filterlab file",
            Format::Guava => "a Guava BloomFilter",
            Format::Parquet => "a Parquet file",
            Format::Redisbloom => "a RedisBloom scalable Bloom filter",
        }
    }
}

/// Guava's strategies, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GuavaStrategyArg {
    /// MURMUR128_MITZ_64 (`BloomFilter.create`'s since Guava 12).
    #[value(name = "mitz64")]
    Mitz64,
    /// MURMUR128_MITZ_32 (Guava 11's; reaches only 2^31 bits).
    #[value(name = "mitz32")]
    Mitz32,
}

impl GuavaStrategyArg {
    /// The library's strategy.
    pub fn strategy(self) -> filterlab::interop::guava::Strategy {
        use filterlab::interop::guava::Strategy;
        match self {
            GuavaStrategyArg::Mitz64 => Strategy::Murmur128Mitz64,
            GuavaStrategyArg::Mitz32 => Strategy::Murmur128Mitz32,
        }
    }
}

/// `build`'s flags.
#[derive(clap::Args, Debug)]
pub struct Build {
    /// Variant (required for --to filterlab; --to guava builds Guava's classic Bloom filter).
    #[arg(long, value_parser = parse::VariantParser, required_unless_present = "to")]
    pub variant: Option<Variant>,
    /// The format to save in: filterlab (the default) or guava (Guava's `BloomFilter`, read by
    /// `BloomFilter.readFrom` with `Funnels.byteArrayFunnel()` or `stringFunnel(UTF_8)`).
    #[arg(long, value_enum)]
    pub to: Option<Format>,
    /// --to guava: the strategy (default mitz64).
    #[arg(long, value_enum, requires = "to")]
    pub guava_strategy: Option<GuavaStrategyArg>,
    /// --to parquet: the column's name (default `key`).
    #[arg(long, requires = "to")]
    pub parquet_column: Option<String>,
    /// Items (10M, 1e7, ...); without it, the non-empty lines of --keys are counted first
    /// (not for a time window: its --n is the most items one window receives).
    #[arg(long, value_parser = parse::count, allow_hyphen_values = true)]
    pub n: Option<u64>,
    /// False-positive rate (1%, 0.01, 1/100).
    #[arg(long, value_parser = parse::rate, allow_hyphen_values = true)]
    pub fpr: f64,
    /// Key file, one key per line, at most 64 KiB a key; `-` for stdin (a device is refused).
    #[arg(long)]
    pub keys: PathBuf,
    /// Where to save the filter (written whole or not at all; only a regular file is replaced).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Hash function and seed.
    #[command(flatten)]
    pub hashing: Hashing,
    /// A window counted in time (`time-window`): the time the keys are inserted at, in the
    /// ticks of its window (required for it).
    #[arg(long)]
    pub at: Option<u64>,
    /// A window counted in time: its length in ticks (default 86400, a day in seconds).
    #[arg(long, value_parser = parse::count)]
    pub window_ticks: Option<u64>,
    /// Aleph: the most keys the filter is expected to hold (its table reaches that size with
    /// a static filter's fingerprints; it still grows past it).
    #[arg(long, value_parser = parse::count)]
    pub max_n: Option<u64>,
    /// Cuckoo: where each key's second bucket lies (default spread: anywhere, as in every file
    /// written before layouts; near: within 1,024 buckets of the first, a new file layout
    /// that older versions of filterlab cannot read).
    #[arg(long, value_enum)]
    pub cuckoo_layout: Option<CuckooLayoutArg>,
}

/// The cuckoo filter's layouts, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CuckooLayoutArg {
    /// The second bucket anywhere in the table (layout 1, the default).
    Spread,
    /// The second bucket within a window of 1,024 buckets around the first (layout 2).
    Near,
}

impl CuckooLayoutArg {
    /// The registry's layout.
    pub fn layout(self) -> filterlab::any::CuckooLayout {
        match self {
            CuckooLayoutArg::Spread => filterlab::any::CuckooLayout::Spread,
            CuckooLayoutArg::Near => filterlab::any::CuckooLayout::near(),
        }
    }
}

/// Hash function and seed of a new filter.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Hashing {
    /// Hash function.
    #[arg(long, value_enum, default_value = "xxh3-128")]
    pub hash: HashArg,
    /// Seed (saved in the file; murmur3-x64-128 takes at most 2^32 - 1).
    #[arg(long, conflicts_with = "secret_seed")]
    pub seed: Option<u64>,
    /// A seed drawn from the operating system's randomness, for keys chosen by untrusted
    /// parties (saved in the file: keep the file as private as the seed).
    #[arg(long)]
    pub secret_seed: bool,
}

impl Hashing {
    /// The hasher these flags ask for.
    ///
    /// # Errors
    /// A seed the hash function cannot take.
    pub fn hasher(self) -> Result<KeyHasher> {
        let kind = self.hash.kind();
        Ok(if self.secret_seed {
            KeyHasher::secret(kind)
        } else {
            KeyHasher::new(kind, self.seed.unwrap_or(0))?
        })
    }
}

/// The hash functions, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HashArg {
    /// XXH3, 128-bit (the default).
    #[value(name = "xxh3-128", alias = "xxh3")]
    Xxh3,
    /// MurmurHash3 x64_128 (as Python's `mmh3.hash128`).
    #[value(name = "murmur3-x64-128", alias = "murmur3")]
    Murmur3,
    /// XXH3, 64-bit: fewer instructions a key, for the split-block filter (the same FP rate
    /// below 2^32 blocks; the classic and cuckoo filters want 128 bits).
    #[value(name = "xxh3-64")]
    Xxh3_64,
}

impl HashArg {
    fn kind(self) -> HashKind {
        match self {
            HashArg::Xxh3 => HashKind::Xxh3_128,
            HashArg::Murmur3 => HashKind::Murmur3X64_128,
            HashArg::Xxh3_64 => HashKind::Xxh3_64,
        }
    }
}

/// Keys as arguments, from a file, or (neither) from stdin.
#[derive(clap::Args, Debug)]
pub struct Keys {
    /// Keys; none and no --keys: read stdin, one per line. A key that reads as a negative
    /// number (`-7`, an INT64 for `--column`) is taken as a key; any other key that starts with
    /// `-` follows `--` (`query f.bin -- -x`).
    #[arg(allow_negative_numbers = true)]
    pub keys: Vec<String>,
    /// Read keys from this file, one per line, at most 64 KiB a key (`-`: stdin; a device is
    /// refused).
    #[arg(long = "keys", value_name = "FILE", conflicts_with = "keys")]
    pub key_file: Option<PathBuf>,
}

/// Capacity and rate, in human numbers.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Size {
    /// Items (10M, 1e7, 10_000_000).
    #[arg(long, value_parser = parse::count, allow_hyphen_values = true)]
    pub n: u64,
    /// False-positive rate (1%, 0.01, 1/100).
    #[arg(long, value_parser = parse::rate, allow_hyphen_values = true)]
    pub fpr: f64,
}
