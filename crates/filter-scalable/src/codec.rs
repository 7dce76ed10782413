//! The scalable file: the parameters, then each stage's shape, count and bits, each checked
//! against the shape the parameters give.

use crate::stages::Stage;
use crate::{ScalableBloom, FILE_KIND, MAX_STAGES};
use filter_core::format::{
    decode_stages, invalid, refused, words_len, Codec, Encoder, Parts, Reader,
};
use filter_core::{BloomBits, FileKind, FormatError, KeyHasher, Sizing};

impl Codec for ScalableBloom {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        self.sizing.encode_params(e);
        e.f64(self.growth)
            .f64(self.tightening)
            .u32(self.stages.len() as u32);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for s in &self.stages {
            e.u64(s.len);
            s.bits.encode_params(e);
            s.bits.encode_payload(e);
        }
    }

    /// Each stage's count, shape and words, the shapes derived from the parameters.
    fn max_payload_len(hasher: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let sizing = Sizing::decode_params(params, hasher)?;
        let growth = params.f64()?;
        let tightening = params.f64()?;
        let n_stages = params.u32()?;
        let f = ScalableBloom::validated(sizing, growth, tightening).map_err(refused)?;
        if n_stages == 0 || n_stages as usize > MAX_STAGES {
            return Err(invalid(format!("{n_stages} stages")));
        }
        (0..n_stages as usize).try_fold(0u64, |total, i| {
            let plan = f.stage_plan(i).map_err(refused)?;
            // Count u64, m u64, k u32, then the words.
            let stage = words_len(plan.m.div_ceil(64))?.saturating_add(20);
            Ok(total.saturating_add(stage))
        })
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let sizing = Sizing::decode_params(params, hasher)?;
        let growth = params.f64()?;
        let tightening = params.f64()?;
        let n_stages = params.u32()?;
        let mut f = ScalableBloom::validated(sizing, growth, tightening).map_err(refused)?;
        let last = (n_stages as usize).saturating_sub(1);
        let (stages, len) = decode_stages(n_stages, MAX_STAGES, |i, _| {
            let len = payload.u64()?;
            // The derived shape is arithmetic (nothing allocated, whatever the file claims), and
            // `decode_inline` allocates only the words the payload actually holds.
            let plan = f.stage_plan(i).map_err(refused)?;
            let bits = BloomBits::decode_inline(payload)?;
            if (bits.bits(), bits.hashes()) != (plan.m, plan.k) {
                return Err(invalid(format!(
                    "stage {i} does not have the derived shape"
                )));
            }
            // Only the newest stage may be below capacity; older ones filled before it was made.
            if len > plan.capacity || (i < last && len != plan.capacity) {
                return Err(invalid(format!("stage {i} holds {len} items")));
            }
            bits.check_len(len)?;
            let stage = Stage {
                bits,
                capacity: plan.capacity,
                fpr: plan.fpr,
                len,
            };
            Ok((stage, len))
        })?;
        f.stages = stages;
        f.len = len;
        Ok(f)
    }
}
