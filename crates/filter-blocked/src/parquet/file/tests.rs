//! Files written here by the `parquet` crate (arrow-rs), read back; then the same files with
//! footers that lie, each refused with a message.

use super::*;
use parquet::bloom_filter::Sbbf;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataWriter};
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use std::sync::Arc;

const GROUPS: usize = 3;
const ROWS: usize = 2_000;

fn email(i: usize) -> Vec<u8> {
    format!("user{i}@example.com").into_bytes()
}

/// Three row groups of e-mails (filtered), ids (INT64, filtered) and notes (no filter).
fn written() -> Vec<u8> {
    let schema = Arc::new(
        parse_message_type(
            "message t { required binary email (UTF8); required int64 id; required binary note; }",
        )
        .unwrap(),
    );
    let mut props = WriterProperties::builder();
    for filtered in ["email", "id"] {
        props = props
            .set_column_bloom_filter_enabled(ColumnPath::from(filtered), true)
            .set_column_bloom_filter_max_ndv(ColumnPath::from(filtered), ROWS as u64);
    }
    let props = props.build();
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, Arc::new(props)).unwrap();
    for g in 0..GROUPS {
        let rows = g * ROWS..(g + 1) * ROWS;
        let mut rg = writer.next_row_group().unwrap();
        let emails: Vec<ByteArray> = rows.clone().map(|i| email(i).into()).collect();
        let ids: Vec<i64> = rows.clone().map(|i| i as i64 * 7).collect();
        let mut col = rg.next_column().unwrap().unwrap();
        col.typed::<ByteArrayType>()
            .write_batch(&emails, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        col.typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        col.typed::<ByteArrayType>()
            .write_batch(&emails, None, None)
            .unwrap();
        col.close().unwrap();
        rg.close().unwrap();
    }
    writer.close().unwrap();
    out
}

/// The `parquet` crate's own filters of the file, `[column][row group]`.
fn sbbfs(bytes: &[u8]) -> Vec<Vec<Option<Sbbf>>> {
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader =
        SerializedFileReader::new_with_options(bytes::Bytes::from(bytes.to_vec()), options)
            .unwrap();
    (0..3)
        .map(|c| {
            (0..GROUPS)
                .map(|g| {
                    let rg = reader.get_row_group(g).unwrap();
                    rg.get_column_bloom_filter(c).cloned()
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_filter_agrees_with_the_parquet_crate() {
    let bytes = written();
    let file = ParquetFile::from_bytes(&bytes).unwrap();
    let theirs = sbbfs(&bytes);
    assert!(file.created_by.as_deref().unwrap().contains("parquet-rs"));
    assert_eq!(file.rows, (GROUPS * ROWS) as i64);
    assert_eq!(file.row_groups(), GROUPS);
    let names: Vec<_> = file.columns.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(names, ["email", "id", "note"]);
    assert_eq!(file.columns[1].value_type, ValueType::Int64);
    let (email_col, id_col) = (&file.chunks[0], &file.chunks[1]);
    assert!(file.chunks[2].iter().all(|c| c.filter.is_none()));
    assert!(file.chunks[2][0].may_hold(b"anything"));
    let mut positives = 0;
    for g in 0..GROUPS {
        let (ours, sbbf) = (email_col[g].filter.as_ref().unwrap(), theirs[0][g].as_ref());
        let mut written = Vec::new();
        sbbf.unwrap().write(&mut written).unwrap();
        assert_eq!(ours.bloom.to_bytes(), written, "row group {g}");
        assert!(ours.length_declared);
        for i in 0..GROUPS * ROWS * 12 {
            let (e, id) = (email(i), (i as i64 * 7).to_string());
            let id_plain = ValueType::Int64.plain(id.as_bytes()).unwrap();
            let ours_id = id_col[g].may_hold(&id_plain);
            assert_eq!(
                email_col[g].may_hold(&e),
                sbbf.unwrap().check(&e[..]),
                "{i}"
            );
            let their_id = theirs[1][g].as_ref().unwrap().check(&(i as i64 * 7));
            assert_eq!(ours_id, their_id, "id {id}");
            let member = (g * ROWS..(g + 1) * ROWS).contains(&i);
            assert!(!member || (ours_id && email_col[g].may_hold(&e)));
            positives += usize::from(!member && ours_id);
        }
    }
    // Sized for 2,000 values at the default 5%: false positives, but few.
    assert!(positives > 0 && positives < GROUPS * GROUPS * ROWS * 12 / 10);
}

#[test]
fn distinct_counts_are_estimated_from_the_bits() {
    let file = ParquetFile::from_bytes(&written()).unwrap();
    for chunk in &file.chunks[0] {
        assert_eq!(
            chunk.distinct_count, None,
            "arrow-rs stores no distinct_count"
        );
        let Ndv::Estimated(n) = chunk.ndv() else {
            panic!("{:?}", chunk.ndv())
        };
        assert!((n - ROWS as f64).abs() < 0.05 * ROWS as f64, "{n}");
        let p = chunk.fpr_at_ndv().unwrap();
        assert!(p > 0.0 && p < 0.06, "{p}");
    }
    assert_eq!(file.chunks[2][0].ndv(), Ndv::Unknown);
}

#[test]
fn keys_are_parsed_as_the_column_type() {
    assert_eq!(
        ValueType::Int32.plain(b"-2").unwrap(),
        (-2i32).to_le_bytes()
    );
    assert_eq!(ValueType::Int64.plain(b" 7 ").unwrap(), 7i64.to_le_bytes());
    assert_eq!(
        ValueType::Double.plain(b"0.5").unwrap(),
        0.5f64.to_le_bytes()
    );
    assert_eq!(
        ValueType::Float.plain(b"0.5").unwrap(),
        0.5f32.to_le_bytes()
    );
    assert_eq!(ValueType::ByteArray.plain(b"a b").unwrap(), b"a b");
    let uuid = ValueType::FixedLenByteArray(2);
    assert_eq!(uuid.plain(b"ab").unwrap(), b"ab");
    assert_eq!(uuid.plain(b"0aFf").unwrap(), [0x0a, 0xff]);
    assert!(uuid.plain(b"abc").unwrap_err().contains("3 bytes, not 2"));
    assert!(ValueType::Int32.plain(b"2147483648").is_err());
    assert!(ValueType::Int64
        .plain(b"x")
        .unwrap_err()
        .contains("not an INT64"));
    assert!(ValueType::Other("BOOLEAN").plain(b"true").is_err());
}

/// The file with its footer rewritten after `edit` changed column 0 of row group 0.
fn relied(
    bytes: &[u8],
    edit: impl FnOnce(
        parquet::file::metadata::ColumnChunkMetaDataBuilder,
    ) -> parquet::file::metadata::ColumnChunkMetaDataBuilder,
) -> Vec<u8> {
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap());
    let body = bytes.len() - 8 - footer_len as usize;
    let meta: ParquetMetaData =
        ParquetMetaDataReader::decode_metadata(&bytes[body..bytes.len() - 8]).unwrap();
    let mut groups = meta.row_groups().to_vec();
    let mut columns = groups[0].columns().to_vec();
    columns[0] = edit(columns[0].clone().into_builder()).build().unwrap();
    groups[0] = groups[0]
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

fn refused(bytes: &[u8], expected: &str) {
    let e = ParquetFile::from_bytes(bytes).unwrap_err().to_string();
    assert!(e.contains(expected), "{e:?} lacks {expected:?}");
}

#[test]
fn footers_that_lie_are_refused() {
    let bytes = written();
    let meta = ParquetMetaDataReader::decode_metadata(
        &bytes[bytes.len()
            - 8
            - u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap()) as usize
            ..bytes.len() - 8],
    )
    .unwrap();
    let chunk = meta.row_group(0).column(0);
    let (at, len) = (
        chunk.bloom_filter_offset().unwrap(),
        chunk.bloom_filter_length().unwrap(),
    );
    // The rewrite alone changes nothing.
    ParquetFile::from_bytes(&relied(&bytes, |b| b)).unwrap();
    let size = bytes.len() as i64;
    for offset in [-1, 0, 3, size, size + 1, i64::MAX] {
        let lie = relied(&bytes, |b| b.set_bloom_filter_offset(Some(offset)));
        refused(&lie, "is outside the file");
    }
    refused(
        &relied(&bytes, |b| b.set_bloom_filter_length(Some(0))),
        "is not a filter's",
    );
    refused(
        &relied(&bytes, |b| b.set_bloom_filter_length(Some(-5))),
        "is not a filter's",
    );
    let huge = relied(&bytes, |b| b.set_bloom_filter_length(Some(i32::MAX)));
    refused(&huge, "is not a filter's");
    let past_end = (size - at + 1) as i32;
    let past = relied(&bytes, |b| b.set_bloom_filter_length(Some(past_end)));
    refused(&past, "runs past the file");
    let short = relied(&bytes, |b| b.set_bloom_filter_length(Some(len - 1)));
    refused(
        &short,
        "row group 0, column email: not a Parquet bloom filter",
    );
    let long = relied(&bytes, |b| b.set_bloom_filter_length(Some(len + 1)));
    refused(&long, "unexpected bytes after the end");
    // Pointing into the data pages: no filter header there.
    let elsewhere = relied(&bytes, |b| b.set_bloom_filter_offset(Some(4)));
    refused(&elsewhere, "not a Parquet bloom filter");
    // Without a declared length the header alone says how long: lying, it points past the end.
    let mut announced = relied(&bytes, |b| b.set_bloom_filter_length(None));
    ParquetFile::from_bytes(&announced).unwrap();
    let at = at as usize;
    assert_eq!(announced[at], 0x15, "numBytes, field 1, i32");
    // numBytes = 64 MiB: zigzag 2^27, four varint bytes, where the real one has two or three.
    let varint_len = announced[at + 1..]
        .iter()
        .position(|b| b & 0x80 == 0)
        .unwrap()
        + 1;
    let lie: &[u8] = &[0x80, 0x80, 0x80, 0x40];
    announced.splice(at + 1..at + 1 + varint_len, lie.iter().copied());
    // The splice moved the footer when the lengths differ; only the filter's region matters.
    let announced = relied(&announced, |b| b.set_bloom_filter_length(None));
    refused(&announced, "announces 67108864 bytes, past the file");
}

#[test]
fn chunks_sharing_a_filter_are_refused() {
    let bytes = written();
    let file = ParquetFile::from_bytes(&bytes).unwrap();
    // Row group 0's email chunk pointed at row group 1's filter: the same bytes twice.
    let other = file.chunks[0][1].filter.as_ref().unwrap();
    let (at, len) = (other.offset as i64, other.length as i32);
    let shared = relied(&bytes, |b| {
        b.set_bloom_filter_offset(Some(at))
            .set_bloom_filter_length(Some(len))
    });
    refused(&shared, "overlaps another chunk's");
    // Without a declared length: the header there is read, then the overlap refused.
    let half = relied(&bytes, |b| {
        b.set_bloom_filter_offset(Some(at))
            .set_bloom_filter_length(None)
    });
    refused(&half, "overlaps another chunk's");
}

#[test]
fn damaged_ends_are_refused() {
    let bytes = written();
    refused(&bytes[..bytes.len() - 1], "Parquet footer");
    refused(&bytes[1..], "no PAR1 at its start");
    refused(&bytes[..11], "no PAR1 at its start");
    let mut long_footer = bytes.clone();
    let n = long_footer.len();
    long_footer[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    refused(&long_footer, "Parquet footer");
}

#[test]
fn no_flipped_footer_byte_panics() {
    let bytes = written();
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap());
    let start = bytes.len() - 8 - footer_len as usize;
    for i in start..bytes.len() {
        for x in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= x;
            // Either read (a flip the footer tolerates) or refused; never a panic.
            let _ = ParquetFile::from_bytes(&b);
        }
    }
}
