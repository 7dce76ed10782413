//! filterlab's Parquet mode against the `parquet` crate (arrow-rs): a file of e-mails written
//! with bloom filters on holds exactly the bytes `ParquetBloom` builds, and each implementation
//! answers queries on the other's filter.

use filter_blocked::parquet::ParquetBloom;
use parquet::bloom_filter::Sbbf;
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::path::PathBuf;
use std::sync::Arc;

const NDV: u64 = 50_000;
const FPP: f64 = 0.01;

fn emails(tag: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{tag}.{i}@example.com").into_bytes())
        .collect()
}

/// Writes one row group of e-mails (a `BYTE_ARRAY` column, dictionary off so the data pages
/// hold plain values) with a bloom filter sized for `NDV` at `FPP`; returns the file's path.
fn write_parquet(name: &str, values: &[Vec<u8>]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let schema =
        Arc::new(parse_message_type("message users { required binary email (UTF8); }").unwrap());
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(FPP)
        .set_bloom_filter_max_ndv(NDV)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(props)).unwrap();
    let mut row_group = writer.next_row_group().unwrap();
    let mut column = row_group.next_column().unwrap().unwrap();
    let batch: Vec<ByteArray> = values.iter().map(|v| ByteArray::from(v.clone())).collect();
    column
        .typed::<ByteArrayType>()
        .write_batch(&batch, None, None)
        .unwrap();
    column.close().unwrap();
    row_group.close().unwrap();
    writer.close().unwrap();
    path
}

/// The column chunk's filter bytes, found through the file's metadata (header and bitset), and
/// the filter the `parquet` crate's reader loads from the same file.
fn read_filter(path: &PathBuf) -> (Vec<u8>, Sbbf) {
    let file_bytes = std::fs::read(path).unwrap();
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader =
        SerializedFileReader::new_with_options(std::fs::File::open(path).unwrap(), options)
            .unwrap();
    let meta = reader.metadata().row_group(0).column(0).clone();
    let at = meta
        .bloom_filter_offset()
        .expect("a bloom filter was written") as usize;
    let len = meta.bloom_filter_length().expect("its length was recorded") as usize;
    let sbbf = reader
        .get_row_group(0)
        .unwrap()
        .get_column_bloom_filter(0)
        .expect("the reader loads it")
        .clone();
    (file_bytes[at..at + len].to_vec(), sbbf)
}

fn ours(values: &[Vec<u8>]) -> ParquetBloom {
    let mut f = ParquetBloom::with_ndv_fpp(NDV, FPP).unwrap();
    values.iter().for_each(|v| f.insert(v));
    f.fold_to_target_fpp(FPP).unwrap();
    f
}

#[test]
fn the_file_holds_exactly_filterlabs_bytes() {
    let members = emails("user", 5_000);
    let path = write_parquet("emails.parquet", &members);
    let (in_file, sbbf) = read_filter(&path);
    let ours = ours(&members);
    // The writer sized for 50,000 values and folded down to what 5,000 need: both sides did.
    assert!(ours.blocks() < ParquetBloom::with_ndv_fpp(NDV, FPP).unwrap().blocks());
    assert_eq!(
        ours.to_bytes(),
        in_file,
        "filterlab's bytes differ from the file's"
    );
    let mut written = Vec::new();
    sbbf.write(&mut written).unwrap();
    assert_eq!(written, in_file);
}

#[test]
fn filterlab_answers_on_the_parquet_crates_filter() {
    let members = emails("member", 3_000);
    let (in_file, sbbf) = read_filter(&write_parquet("members.parquet", &members));
    let loaded = ParquetBloom::from_bytes(&in_file).unwrap();
    assert!(members.iter().all(|m| loaded.contains(m)));
    // Same answer as the parquet crate on every probe, false positives included.
    let probes = emails("probe", 20_000);
    let mut positives = 0;
    for p in &probes {
        assert_eq!(
            loaded.contains(p),
            sbbf.check(&p[..]),
            "{}",
            String::from_utf8_lossy(p)
        );
        positives += usize::from(loaded.contains(p));
    }
    assert!(
        positives > 0,
        "the probe set should include some false positives"
    );
}

#[test]
fn the_parquet_crate_answers_on_filterlabs_filter() {
    let members = emails("prebuilt", 4_000);
    let bytes = ours(&members).to_bytes();
    let sbbf = Sbbf::from_bytes(&bytes).unwrap();
    assert!(members.iter().all(|m| sbbf.check(&m[..])));
    let ours = ParquetBloom::from_bytes(&bytes).unwrap();
    for p in emails("absent", 20_000) {
        assert_eq!(sbbf.check(&p[..]), ours.contains(&p));
    }
    // And the parquet crate's own filter, filled by its insert, has our bytes.
    let mut theirs = Sbbf::new_with_ndv_fpp(NDV, FPP).unwrap();
    members.iter().for_each(|m| theirs.insert(&m[..]));
    theirs.fold_to_target_fpp(FPP);
    let mut written = Vec::new();
    theirs.write(&mut written).unwrap();
    assert_eq!(written, bytes);
}
