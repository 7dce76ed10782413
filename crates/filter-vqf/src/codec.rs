//! The file: parameters, the blocks, and the checks a loaded table must pass.
//!
//! Parameters: blocks (u64), items (u64), overflow bits set (u64), the sizing (capacity u64,
//! rate f64). Payload: the blocks, each eight little-endian `u64` words (the block's memory on
//! a little-endian machine, so a file opens in place).

use crate::block::Block;
use crate::{VectorQuotient, DESIGN_LOAD, FILE_KIND};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{math, FileKind, FormatError, KeyHasher, MemoryCap, Sizing};

impl Codec for VectorQuotient {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.block_count())
            .u64(self.len)
            .u64(self.overflow_marks);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for b in self.blocks.iter() {
            for w in b.0 {
                e.u64(w);
            }
        }
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let n = params.u64()?;
        n.checked_mul(64)
            .filter(|_| n >= 1)
            .ok_or_else(|| invalid(format!("{n} blocks")))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let n = params.u64()?;
        let len = params.u64()?;
        let overflow_marks = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        math::vqf::vqf_check_fpr(sizing.fpr, DESIGN_LOAD).map_err(refused)?;
        let n = usize::try_from(n)
            .ok()
            .filter(|&b| b >= 1 && b <= payload.remaining() / 64)
            .ok_or_else(|| {
                invalid(format!(
                    "{n} blocks for a {} byte payload",
                    payload.remaining()
                ))
            })?;
        // Opened in place: the blocks are the file's, and the checks below, which read them
        // all, are left to `format::mapped::verify` (the file's checksum).
        if let Some(blocks) = payload.table::<Block>(n)? {
            return Ok(VectorQuotient {
                blocks,
                len,
                overflow_marks,
                sizing,
                kernel: crate::kernel::Kernel::detect(),
            });
        }
        let blocks = match payload.streamed_table::<Block>(n)? {
            Some(blocks) => blocks,
            None => decode_blocks(n, payload)?,
        };
        let f = VectorQuotient {
            blocks,
            len,
            overflow_marks,
            sizing,
            kernel: crate::kernel::Kernel::detect(),
        };
        check_blocks(&f)?;
        Ok(f)
    }
}

/// Every block well formed, and the counts in the parameters the blocks' own.
fn check_blocks(f: &VectorQuotient) -> Result<(), FormatError> {
    let (mut items, mut marks) = (0u64, 0u64);
    for (i, b) in f.blocks.iter().enumerate() {
        if let Some(why) = b.defect() {
            return Err(invalid(format!("block {i}: {why}")));
        }
        items += u64::from(b.len());
        marks += u64::from(b.overflow_marks());
    }
    if items != f.len {
        return Err(invalid(format!(
            "{items} fingerprints stored but {} items",
            f.len
        )));
    }
    if marks != f.overflow_marks {
        return Err(invalid(format!(
            "{marks} overflow bits set but {} recorded",
            f.overflow_marks
        )));
    }
    Ok(())
}

/// `n` blocks decoded word by word from `payload`, into a table allocated as a built filter's
/// is (a large table on huge pages).
fn decode_blocks(
    n: usize,
    payload: &mut Reader<'_>,
) -> Result<filter_core::Table<Block>, FormatError> {
    let mut blocks: filter_core::Table<Block> =
        filter_core::try_zeroed_table(n, MemoryCap::NONE, "vqf table").map_err(|_| {
            FormatError::OutOfMemory {
                bytes: n as u64 * 64,
            }
        })?;
    for b in blocks.iter_mut() {
        for w in &mut b.0 {
            *w = payload.u64()?;
        }
    }
    Ok(blocks)
}
