//! The cuckoo file: parameters, the packed table, and the checks a loaded table must pass.
//!
//! Parameters: buckets (u64), fingerprint bits (u32), max kicks (u32), items (u64), the
//! sizing (capacity u64, rate f64); then, for layout 2 only ([`Layout::Near`]), the layout
//! id (u32, 2) and the window (u32). A file of layout 1 ([`Layout::Spread`]) has no tag: files
//! written before layouts existed are layout 1 and load, and save back, byte for byte. A reader
//! that predates layout 2 refuses its files (bytes left over in the parameters) rather than
//! misreading them.

use crate::builder::{check_fp_bits, table_bytes};
use crate::{CuckooFilter, Lanes, Layout, FILE_KIND, PAD, SLOTS};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, MemoryCap, Sizing};

impl Codec for CuckooFilter {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.buckets)
            .u32(self.fp_bits)
            .u32(self.max_kicks)
            .u64(self.len);
        self.sizing.encode_params(e);
        if let Layout::Near { window } = self.layout {
            e.u32(self.layout.id()).u32(window);
        }
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.bytes(&self.table[..self.table.len() - PAD]);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let buckets = params.u64()?;
        let fp_bits = params.u32()?;
        stored_table_len(buckets, fp_bits).map(|n| n as u64)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let buckets = params.u64()?;
        let fp_bits = params.u32()?;
        let max_kicks = params.u32()?;
        let len = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        let layout = decode_layout(params)?;
        layout.check_loaded(buckets)?;
        filter_core::check_max_kicks(max_kicks).map_err(refused)?;
        let n = stored_table_len(buckets, fp_bits)?;
        // Opened in place: the padding that lets a slot read overrun the table is the file's
        // checksum after it (each read masks what lies past its slot).
        let in_place = payload.table_padded(n, PAD)?;
        let table = match in_place {
            Some(t) => t,
            None => {
                // Allocated as a built filter's table is (a large one on huge pages), once the
                // payload is known to hold it.
                if payload.remaining() < n {
                    return Err(FormatError::Truncated {
                        needed: n as u64,
                        available: payload.remaining() as u64,
                    });
                }
                let mut table = filter_core::try_zeroed_table(n + PAD, MemoryCap::NONE, "table")
                    .map_err(|_| FormatError::OutOfMemory {
                        bytes: (n + PAD) as u64,
                    })?;
                payload.take_into(&mut table[..n])?;
                table
            }
        };
        let f = CuckooFilter {
            table,
            buckets,
            fp_bits,
            lanes: Lanes::new(fp_bits),
            max_kicks,
            len,
            sizing,
            layout,
        };
        let used_bits = buckets * u64::from(SLOTS) * u64::from(fp_bits);
        if used_bits % 8 != 0 && f.table[n - 1] >> (used_bits % 8) != 0 {
            return Err(invalid("bits set beyond the last slot"));
        }
        if f.table.is_in_file() {
            // Counting the occupied slots reads the whole table: `format::mapped::verify`
            // checks the file's checksum instead.
            return Ok(f);
        }
        let occupied: u64 = (0..buckets)
            .map(|b| (0..SLOTS).filter(|&j| f.slot(b, j) != 0).count() as u64)
            .sum();
        if occupied != len {
            return Err(invalid(format!(
                "{occupied} occupied slots but {len} items"
            )));
        }
        Ok(f)
    }
}

/// The bytes of the table a file stores (without the padding a loaded table gets), after
/// checking its shape.
fn stored_table_len(buckets: u64, fp_bits: u32) -> Result<usize, FormatError> {
    check_fp_bits(fp_bits).map_err(refused)?;
    if buckets == 0 {
        return Err(invalid("0 buckets"));
    }
    Ok(table_bytes(buckets, fp_bits).map_err(refused)? - PAD)
}

/// The layout after the sizing: none for layout 1, the tag and window for layout 2.
fn decode_layout(params: &mut Reader<'_>) -> Result<Layout, FormatError> {
    if params.remaining() == 0 {
        return Ok(Layout::Spread);
    }
    match params.u32()? {
        2 => Ok(Layout::Near {
            window: params.u32()?,
        }),
        1 => Err(invalid(
            "cuckoo layout 1 tagged explicitly (its files carry no tag)",
        )),
        other => Err(invalid(format!(
            "cuckoo layout {other} is newer than this build reads (layouts 1 and 2)"
        ))),
    }
}
