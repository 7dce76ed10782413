//! The cuckoo file: parameters, the packed table, and the checks a loaded table must pass.

use crate::builder::{check_fp_bits, check_max_kicks, table_bytes};
use crate::{CuckooFilter, Lanes, FILE_KIND, PAD, SLOTS};
use filter_core::format::{invalid, try_vec, Codec, Encoder, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, Sizing};

impl Codec for CuckooFilter {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.buckets)
            .u32(self.fp_bits)
            .u32(self.max_kicks)
            .u64(self.len);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.bytes(&self.table[..self.table.len() - PAD]);
    }

    fn decode(
        hasher: KeyHasher,
        params: &mut Reader<'_>,
        payload: &mut Reader<'_>,
    ) -> Result<Self, FormatError> {
        let buckets = params.u64()?;
        let fp_bits = params.u32()?;
        let max_kicks = params.u32()?;
        let len = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        check_fp_bits(fp_bits).map_err(|e| invalid(e.to_string()))?;
        check_max_kicks(max_kicks).map_err(|e| invalid(e.to_string()))?;
        if buckets == 0 {
            return Err(invalid("0 buckets"));
        }
        let n = table_bytes(buckets, fp_bits).map_err(|e| invalid(e.to_string()))? - PAD;
        let raw = payload.take(n)?;
        let mut table = try_vec(n + PAD)?;
        table.extend_from_slice(raw);
        table.extend_from_slice(&[0; PAD]);
        let f = CuckooFilter {
            table: table.into(),
            buckets,
            fp_bits,
            lanes: Lanes::new(fp_bits),
            max_kicks,
            len,
            sizing,
        };
        let used_bits = buckets * u64::from(SLOTS) * u64::from(fp_bits);
        if used_bits % 8 != 0 && f.table[n - 1] >> (used_bits % 8) != 0 {
            return Err(invalid("bits set beyond the last slot"));
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
