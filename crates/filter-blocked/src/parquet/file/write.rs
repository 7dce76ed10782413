//! A Parquet file of keys whose column chunk carries a filter (`build --to parquet`).
//!
//! The file is written by the `parquet` crate's own writer (arrow-rs), its bloom filter on:
//! a file every Parquet reader takes, since a Parquet bloom filter belongs to a column chunk of
//! values and cannot stand alone. filterlab then reads the file back and checks that the
//! chunk's filter is bit for bit the [`ParquetBloom`] it builds itself for the same keys and
//! sizing (sized for `ndv` at `fpp`, then folded as arrow-rs folds); a file whose filter
//! differed would be refused, not written. Writing our bytes in place of the writer's was the
//! other design; it would need the footer's offsets patched by hand for the same bytes.

use super::{FileError, ParquetFile};
use crate::parquet::ParquetBloom;
use parquet::basic::{Compression, Encoding};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

/// What [`write_keys`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// Its filter, equal to the one filterlab builds.
    pub filter: ParquetBloom,
}

fn parquet_error(e: parquet::errors::ParquetError) -> FileError {
    FileError(format!("the parquet writer: {e}"))
}

/// A Parquet file of one row group and one required `BYTE_ARRAY` column named `column`
/// (annotated as a UTF-8 string when every key is), holding `keys` in order (plain encoding,
/// uncompressed), with a bloom filter sized for `ndv` distinct values at rate `fpp`.
///
/// # Errors
/// A rate outside (0, 1), no keys, the writer's refusal, or (never seen) a filter in the file
/// that differs from the one filterlab builds for the same keys.
pub fn write_keys(
    keys: &[Vec<u8>],
    column: &str,
    ndv: u64,
    fpp: f64,
) -> Result<Written, FileError> {
    let mut ours = ParquetBloom::with_ndv_fpp(ndv, fpp).map_err(|e| FileError(e.to_string()))?;
    if keys.is_empty() {
        return Err(FileError("no keys: a Parquet file needs a row".into()));
    }
    let utf8 = keys.iter().all(|k| std::str::from_utf8(k).is_ok());
    let mut field = Type::primitive_type_builder(column, parquet::basic::Type::BYTE_ARRAY)
        .with_repetition(parquet::basic::Repetition::REQUIRED);
    if utf8 {
        field = field.with_logical_type(Some(parquet::basic::LogicalType::String));
    }
    let schema = Type::group_type_builder("keys")
        .with_fields(vec![Arc::new(field.build().map_err(parquet_error)?)])
        .build()
        .map_err(parquet_error)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::PLAIN)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_max_row_group_row_count(Some(keys.len()))
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(fpp)
        .set_bloom_filter_max_ndv(ndv)
        .build();
    let mut bytes = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut bytes, Arc::new(schema), Arc::new(props))
        .map_err(parquet_error)?;
    let mut group = writer.next_row_group().map_err(parquet_error)?;
    let mut chunk = (group.next_column().map_err(parquet_error)?)
        .ok_or_else(|| FileError("the schema has no column".into()))?;
    for batch in keys.chunks(1 << 16) {
        let values: Vec<ByteArray> = batch.iter().map(|k| ByteArray::from(k.clone())).collect();
        (chunk
            .typed::<ByteArrayType>()
            .write_batch(&values, None, None))
        .map_err(parquet_error)?;
        batch.iter().for_each(|k| ours.insert(k));
    }
    chunk.close().map_err(parquet_error)?;
    group.close().map_err(parquet_error)?;
    writer.close().map_err(parquet_error)?;
    ours.fold_to_target_fpp(fpp)
        .map_err(|e| FileError(e.to_string()))?;
    let read = ParquetFile::from_bytes(&bytes)?;
    let theirs = read
        .chunks
        .first()
        .and_then(|c| c.first())
        .and_then(|c| c.filter.as_ref());
    match theirs {
        Some(f) if f.bloom == ours && f.bloom.to_bytes() == bytes[f.offset as usize..][..f.length as usize] => {
            Ok(Written { bytes, filter: ours })
        }
        Some(f) => Err(FileError(format!(
            "the parquet writer's filter ({} bytes) differs from filterlab's ({} bytes) for the same keys; not written",
            f.bloom.size_in_bytes(),
            ours.size_in_bytes()
        ))),
        None => Err(FileError("the parquet writer wrote no filter; not written".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_filter_is_filterlabs() {
        let keys: Vec<Vec<u8>> = (0..5_000).map(|i| format!("k{i}").into_bytes()).collect();
        for (ndv, fpp) in [(5_000, 0.01), (100_000, 0.001), (10, 0.2)] {
            let w = write_keys(&keys, "key", ndv, fpp).unwrap();
            let file = ParquetFile::from_bytes(&w.bytes).unwrap();
            assert_eq!(file.columns[0].path, "key");
            assert_eq!(file.rows, 5_000);
            assert_eq!(file.row_groups(), 1);
            assert!(keys.iter().all(|k| file.chunks[0][0].may_hold(k)));
            assert_eq!(file.chunks[0][0].filter.as_ref().unwrap().bloom, w.filter);
        }
        // Folded: sized for 100,000 values, 5,000 need a smaller filter.
        let big = ParquetBloom::with_ndv_fpp(100_000, 0.001).unwrap();
        let w = write_keys(&keys, "key", 100_000, 0.001).unwrap();
        assert!(w.filter.blocks() < big.blocks());
    }

    #[test]
    fn refusals() {
        let keys = vec![b"a".to_vec(), vec![0xff]];
        assert!(write_keys(&[], "k", 10, 0.01)
            .unwrap_err()
            .0
            .contains("no keys"));
        assert!(write_keys(&keys, "k", 10, 1.5).is_err());
        // Non-UTF-8 keys: a plain binary column.
        let w = write_keys(&keys, "k", 10, 0.01).unwrap();
        assert!(ParquetFile::from_bytes(&w.bytes).unwrap().chunks[0][0].may_hold(&[0xff]));
    }
}
