//! The Parquet files of `cli_parquet`: one written by the `parquet` crate, the same with
//! footers that lie, and the DuckDB script.

use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::{
    ColumnChunkMetaDataBuilder, ParquetMetaDataReader, ParquetMetaDataWriter,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use std::sync::Arc;

const GROUPS: usize = 3;
const ROWS: usize = 2_000;

/// Three row groups of e-mails and INT64 ids (each with a filter) and notes (none).
pub fn written() -> Vec<u8> {
    let schema = Arc::new(
        parse_message_type(
            "message t { required binary email (UTF8); required int64 id; required binary note; }",
        )
        .unwrap(),
    );
    let mut props = WriterProperties::builder().set_max_row_group_row_count(Some(ROWS));
    for filtered in ["email", "id"] {
        props = props
            .set_column_bloom_filter_enabled(ColumnPath::from(filtered), true)
            .set_column_bloom_filter_max_ndv(ColumnPath::from(filtered), ROWS as u64);
    }
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, Arc::new(props.build())).unwrap();
    for g in 0..GROUPS {
        let rows = g * ROWS..(g + 1) * ROWS;
        let emails: Vec<ByteArray> = rows
            .clone()
            .map(|i| format!("user{i}@example.com").into_bytes().into())
            .collect();
        let ids: Vec<i64> = rows.map(|i| i as i64 * 7).collect();
        let mut rg = writer.next_row_group().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        let typed = col.typed::<ByteArrayType>();
        typed.write_batch(&emails, None, None).unwrap();
        col.close().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        col.typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        col.close().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        let typed = col.typed::<ByteArrayType>();
        typed.write_batch(&emails, None, None).unwrap();
        col.close().unwrap();
        rg.close().unwrap();
    }
    writer.close().unwrap();
    out
}

/// `bytes` with its footer rewritten after `edit` changed column 0 of row group 0.
fn relied(
    bytes: &[u8],
    edit: impl FnOnce(ColumnChunkMetaDataBuilder) -> ColumnChunkMetaDataBuilder,
) -> Vec<u8> {
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap());
    let body = bytes.len() - 8 - footer_len as usize;
    let meta = ParquetMetaDataReader::decode_metadata(&bytes[body..bytes.len() - 8]).unwrap();
    let mut groups = meta.row_groups().to_vec();
    let mut columns = groups[0].columns().to_vec();
    columns[0] = edit(columns[0].clone().into_builder()).build().unwrap();
    groups[0] = (groups[0].clone().into_builder())
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

/// Files whose footers lie, each with what its error must mention.
pub fn lie(bytes: &[u8]) -> Vec<(Vec<u8>, &'static str)> {
    let size = bytes.len() as i64;
    let mut cases = vec![];
    for offset in [-1, 0, size, i64::MAX] {
        let lie = relied(bytes, |b| b.set_bloom_filter_offset(Some(offset)));
        cases.push((lie, "is outside the file"));
    }
    for (length, mentions) in [
        (0, "is not a filter's"),
        (i32::MAX, "is not a filter's"),
        (size as i32, "runs past the file"),
        (17, "not a Parquet bloom filter"),
    ] {
        let lie = relied(bytes, |b| b.set_bloom_filter_length(Some(length)));
        cases.push((lie, mentions));
    }
    // Pointed at row group 1's filter: two chunks sharing bytes.
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..][..4].try_into().unwrap());
    let footer = &bytes[bytes.len() - 8 - footer_len as usize..bytes.len() - 8];
    let meta = ParquetMetaDataReader::decode_metadata(footer).unwrap();
    let other = meta.row_group(1).column(0);
    let shared = relied(bytes, |b| {
        b.set_bloom_filter_offset(other.bloom_filter_offset())
            .set_bloom_filter_length(other.bloom_filter_length())
    });
    cases.push((shared, "overlaps another chunk's"));
    let elsewhere = relied(bytes, |b| b.set_bloom_filter_offset(Some(4)));
    cases.push((elsewhere, "not a Parquet bloom filter"));
    let mut footer = bytes.to_vec();
    let n = footer.len();
    footer[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push((footer, "Parquet footer"));
    let mut cut = bytes.to_vec();
    cut.truncate(n - 9);
    cut.extend_from_slice(b"PAR1");
    cases.push((cut, "Parquet footer"));
    cases
}

/// Writes `argv[1]` with DuckDB (three row groups; e-mails, BIGINT, INTEGER and DOUBLE
/// columns, dictionary-encoded, so each gets a bloom filter), then for each column probes the
/// keys of `argv[2]/COLUMN.txt` with DuckDB's `parquet_bloom_probe` and writes, one JSON list
/// a line, the row groups it does not exclude to `argv[2]/COLUMN.duck`.
pub const DUCKDB_SCRIPT: &str = r#"
import duckdb, json, sys
path, folder = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute(f"""COPY (SELECT 'u' || (i // 10) || '@x.com' AS email, ((i // 7) * 3)::BIGINT AS id,
    (i // 20)::INTEGER AS small, (i // 40) / 4.0 AS d FROM range(5000) t(i))
    TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)""")
kinds = {"email": str, "id": int, "small": int, "d": float}
for column, kind in kinds.items():
    keys = open(f"{folder}/{column}.txt").read().split("\n")
    with open(f"{folder}/{column}.duck", "w") as out:
        for key in keys:
            rows = con.execute(
                f"SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, '{column}', ?)",
                [path, kind(key)]).fetchall()
            out.write(json.dumps(sorted(g for g, excluded in rows if not excluded)) + "\n")
"#;
