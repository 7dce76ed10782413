//! The classic filter's file: its bit table, its count and its sizing (the envelope is
//! `filter_core::format`'s).

use crate::{ClassicBloom, FILE_KIND};
use filter_core::format::{Codec, Encoder, Parts, Reader};
use filter_core::{BloomBits, FileKind, FormatError, KeyHasher, Sizing};

impl Codec for ClassicBloom {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        self.bits.encode_params(e);
        e.u64(self.len);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        self.bits.encode_payload(e);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        BloomBits::payload_len(params)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let bits = BloomBits::decode(params, payload)?;
        let len = params.u64()?;
        bits.check_len(len)?;
        let sizing = Sizing::decode_params(params, hasher)?;
        Ok(ClassicBloom { bits, len, sizing })
    }
}
