//! The saved form (format version 1, variant id 13).
//!
//! ```text
//! parameters: capacity u64, fpr f64, growth bits d u32, period k u32, max_kicks u32, stages u32
//! payload:    per stage, oldest first: level u32, entries u64, then the packed slots
//!             (ceil(4·B·f / 8) bytes, B and f derived from the parameters and the level)
//! ```
//!
//! Nothing derived is stored: the loader recomputes every stage's shape from the parameters
//! (arithmetic only), checks that the payload holds that many bytes before allocating, reads
//! them into the stage's table, and checks each stage's entry count against its capacity and its
//! occupied slots, and that no bit beyond the last slot is set. Levels start at 0 and each is
//! the previous one or the next (a merge puts two stages at one level; nothing skips one).

use crate::stage::{Stage, PAD};
use crate::{ExpandableCuckoo, FILE_KIND};
use filter_core::format::{decode_stages, invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{Error, FileKind, FormatError, KeyHasher, MemoryCap, Sizing};

impl Codec for ExpandableCuckoo {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        self.sizing.encode_params(e);
        e.u32(self.layout.d)
            .u32(self.layout.period)
            .u32(self.max_kicks)
            .u32(self.stages.len() as u32);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for s in &self.stages {
            e.u32(s.index).u64(s.len).bytes(&s.table[..s.packed_len()]);
        }
    }

    /// The levels are in the payload, but stage `i` is at most at level `i` (levels start at
    /// 0 and rise by one at most), so each stage is bounded by the largest of levels `0..=i`.
    fn max_payload_len(hasher: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let (f, n_stages) = decode_params(hasher, params)?;
        if n_stages == 0 || n_stages as usize > crate::MAX_STAGE_LIST {
            return Err(invalid(format!("{n_stages} stages")));
        }
        let mut largest = 0u64;
        Ok((0..n_stages).fold(0u64, |total, level| {
            // A level whose size overflows cannot load (`decode_stage` refuses it).
            let table = f
                .layout
                .buckets(level)
                .and_then(|b| crate::math::stage_table_bytes(b, f.layout.fp_bits(level)));
            largest = largest.max(table.map_or(0, |t| t.saturating_sub(PAD as u64)));
            // Level u32, count u64, then the slots.
            total.saturating_add(largest.saturating_add(12))
        }))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let (mut f, n_stages) = decode_params(hasher, params)?;
        let (stages, len) = decode_stages(n_stages, crate::MAX_STAGE_LIST, |k, before| {
            let level = payload.u32()?;
            let expected = before
                .last()
                .map_or(0..=0, |s: &Stage| s.index..=s.index + 1);
            if !expected.contains(&level) {
                return Err(invalid(format!("stage {k} at level {level}")));
            }
            let stage = decode_stage(&f, level, payload)?;
            let len = stage.len;
            Ok((stage, len))
        })?;
        f.stages = stages;
        f.len = len;
        Ok(f)
    }
}

/// The filter the parameters describe (no stage yet), and its stage count.
fn decode_params(
    hasher: KeyHasher,
    params: &mut Reader<'_>,
) -> Result<(ExpandableCuckoo, u32), FormatError> {
    let sizing = Sizing::decode_params(params, hasher)?;
    let d = params.u32()?;
    let period = params.u32()?;
    let max_kicks = params.u32()?;
    let n_stages = params.u32()?;
    if !(1..=4).contains(&d) {
        return Err(invalid(format!("growth of 2^{d}")));
    }
    let f = ExpandableCuckoo::validated(sizing, d, period, max_kicks).map_err(refused)?;
    Ok((f, n_stages))
}

/// Reads stage `i`: its shape derived from `f`'s layout, its bytes taken before allocating.
fn decode_stage(
    f: &ExpandableCuckoo,
    i: u32,
    payload: &mut Reader<'_>,
) -> Result<Stage, FormatError> {
    let len = payload.u64()?;
    let buckets = f.layout.buckets(i).ok_or_else(|| invalid("stage size"))?;
    let fp_bits = f.layout.fp_bits(i);
    let bytes = crate::math::stage_table_bytes(buckets, fp_bits)
        .ok_or_else(|| invalid("stage size"))? as usize;
    let n = bytes - PAD;
    if payload.remaining() < n {
        return Err(FormatError::Truncated {
            needed: n as u64,
            available: payload.remaining() as u64,
        });
    }
    if len > crate::math::stage_capacity(buckets) {
        return Err(invalid(format!("stage {i} holds {len} items")));
    }
    let mut stage = Stage::new(&f.layout, i, MemoryCap::NONE, 0).map_err(|e| match e {
        Error::OutOfMemory { bytes, .. } => FormatError::OutOfMemory { bytes },
        e => refused(e),
    })?;
    // From a file: read straight into the stage's memory.
    payload.take_into(&mut stage.table[..n])?;
    let used_bits = u128::from(buckets) * 4 * u128::from(fp_bits);
    if used_bits % 8 != 0 && stage.table[n - 1] >> (used_bits % 8) != 0 {
        return Err(invalid("bits set beyond the last slot"));
    }
    stage.len = len;
    let occupied = stage.occupied();
    if occupied != len {
        return Err(invalid(format!(
            "stage {i}: {occupied} occupied slots but {len} items"
        )));
    }
    Ok(stage)
}
