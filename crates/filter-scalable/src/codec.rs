//! The scalable file: the parameters, then each stage's shape, count and bits, each checked
//! against the shape the parameters give.

use crate::stages::{Stage, StagePlan, StageSizing};
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
        // Files saved before the exact rule have textbook stages: the first stage whose two
        // shapes differ tells which rule the file follows, and every stage must follow it.
        let mut rule: Option<StageSizing> = None;
        let (stages, len) = decode_stages(n_stages, MAX_STAGES, |i, _| {
            let len = payload.u64()?;
            // The derived shapes are arithmetic (nothing allocated, whatever the file claims),
            // and `decode_inline` allocates only the words the payload actually holds.
            let bits = BloomBits::decode_inline(payload)?;
            let plan = stage_matching(&f, i, (bits.bits(), bits.hashes()), &mut rule)?;
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
        f.sizing_rule = rule.unwrap_or(StageSizing::Exact);
        Ok(f)
    }
}

/// The plan of stage `i` whose shape is `shape` under the file's rule: `rule` is the rule the
/// earlier stages fixed, if any, and is fixed here when only one rule gives `shape`. (A file
/// whose every stage fits both rules grows by the exact one.)
fn stage_matching(
    f: &ScalableBloom,
    i: usize,
    shape: (u64, u32),
    rule: &mut Option<StageSizing>,
) -> Result<StagePlan, FormatError> {
    let rules = match *rule {
        Some(r) => vec![r],
        None => vec![StageSizing::Exact, StageSizing::Textbook],
    };
    let mut fitting = Vec::new();
    for r in rules {
        let plan = f.stage_plan_by(i, r).map_err(refused)?;
        if (plan.m, plan.k) == shape {
            fitting.push((r, plan));
        }
    }
    match fitting.as_slice() {
        [] => Err(invalid(format!(
            "stage {i} does not have the derived shape"
        ))),
        [(r, plan)] => {
            *rule = Some(*r);
            Ok(*plan)
        }
        [(_, plan), ..] => Ok(*plan),
    }
}
