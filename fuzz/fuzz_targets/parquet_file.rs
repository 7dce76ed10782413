//! Parquet files' column-chunk filters (`filter_blocked::parquet::file`): a small valid file
//! (two row groups, a `BYTE_ARRAY` and an `INT64` column with bloom filters, written once by the
//! `parquet` crate) has a column chunk's `bloom_filter_offset` and `bloom_filter_length` set to
//! fuzzer-chosen values in a rewritten footer (absent, negative, past the end, 2^31 - 1), bytes
//! flipped anywhere, the footer's length field set, its end cut or extended. `ParquetFile` must
//! refuse it or give filters that lie inside the file and share no byte, are exactly what
//! `ParquetBloom::from_bytes` reads at their offsets, and report counts and rates that are
//! numbers (rates in [0, 1]). With `-malloc_limit_mb`, a footer declaring a huge filter is a
//! finding if it is allocated.
#![no_main]

use arbitrary::Arbitrary;
use filter_blocked::parquet::file::ParquetFile;
use filter_blocked::parquet::ParquetBloom;
use libfuzzer_sys::fuzz_target;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::{ParquetMetaDataReader, ParquetMetaDataWriter};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::sync::{Arc, OnceLock};

#[derive(Arbitrary, Debug)]
struct Input {
    row_group: bool,
    column: bool,
    offset: Option<Option<i64>>,
    length: Option<Option<i32>>,
    flips: Vec<(u16, u8)>,
    footer_len: Option<u32>,
    cut: u16,
    extra: Vec<u8>,
}

fn valid() -> &'static [u8] {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let schema =
            parse_message_type("message t { required binary s (UTF8); required int64 i; }");
        let props = WriterProperties::builder()
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_max_ndv(64)
            .set_dictionary_enabled(false)
            .build();
        let mut out = Vec::new();
        let mut w = SerializedFileWriter::new(&mut out, Arc::new(schema.unwrap()), Arc::new(props))
            .unwrap();
        for g in 0..2i64 {
            let mut rg = w.next_row_group().unwrap();
            let strings: Vec<ByteArray> = (0..40)
                .map(|i| format!("k{g}.{i}").as_str().into())
                .collect();
            let mut col = rg.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>()
                .write_batch(&strings, None, None)
                .unwrap();
            col.close().unwrap();
            let ints: Vec<i64> = (0..40).map(|i| g * 100 + i).collect();
            let mut col = rg.next_column().unwrap().unwrap();
            col.typed::<Int64Type>()
                .write_batch(&ints, None, None)
                .unwrap();
            col.close().unwrap();
            rg.close().unwrap();
        }
        w.close().unwrap();
        out
    })
}

/// The valid file with one column chunk's filter offset and length as the input says.
fn relocated(input: &Input) -> Vec<u8> {
    let bytes = valid();
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap());
    let body = bytes.len() - 8 - footer_len as usize;
    let meta = ParquetMetaDataReader::decode_metadata(&bytes[body..bytes.len() - 8]).unwrap();
    let (g, c) = (usize::from(input.row_group), usize::from(input.column));
    let mut groups = meta.row_groups().to_vec();
    let mut columns = groups[g].columns().to_vec();
    let mut chunk = columns[c].clone().into_builder();
    if let Some(offset) = input.offset {
        chunk = chunk.set_bloom_filter_offset(offset);
    }
    if let Some(length) = input.length {
        chunk = chunk.set_bloom_filter_length(length);
    }
    columns[c] = chunk.build().unwrap();
    groups[g] = groups[g]
        .clone()
        .into_builder()
        .set_column_metadata(columns)
        .build()
        .unwrap();
    let meta = meta.into_builder().set_row_groups(groups).build();
    let mut out = bytes[..body].to_vec();
    ParquetMetaDataWriter::new(&mut out, &meta)
        .finish()
        .unwrap();
    out
}

fn crafted(input: &Input) -> Vec<u8> {
    let mut bytes = relocated(input);
    for &(at, x) in input.flips.iter().take(8) {
        let i = usize::from(at) % bytes.len();
        bytes[i] ^= x;
    }
    if let Some(len) = input.footer_len {
        let n = bytes.len();
        bytes[n - 8..n - 4].copy_from_slice(&len.to_le_bytes());
    }
    bytes.truncate(bytes.len().saturating_sub(usize::from(input.cut) % 64));
    bytes.extend_from_slice(&input.extra);
    bytes
}

fuzz_target!(|input: Input| {
    let bytes = crafted(&input);
    let Ok(file) = ParquetFile::from_bytes(&bytes) else {
        return;
    };
    assert_eq!(file.chunks.len(), file.columns.len());
    let mut ranges = Vec::new();
    for chunks in &file.chunks {
        assert_eq!(chunks.len(), file.row_groups());
        for chunk in chunks {
            if let Some(f) = &chunk.filter {
                let end = f.offset.checked_add(f.length).expect("no overflow");
                assert!(end <= bytes.len() as u64, "a filter past the end");
                let at = &bytes[f.offset as usize..end as usize];
                assert_eq!(ParquetBloom::from_bytes(at).expect("read again"), f.bloom);
                ranges.push((f.offset, end));
            }
            if let Some(n) = chunk.ndv().value() {
                assert!(n >= 0.0, "{n}");
            }
            if let Some(p) = chunk.fpr_at_ndv() {
                assert!((0.0..=1.0).contains(&p), "{p}");
            }
        }
    }
    ranges.sort_unstable();
    assert!(
        ranges.windows(2).all(|w| w[0].1 <= w[1].0),
        "filters share bytes: {ranges:?}"
    );
});
