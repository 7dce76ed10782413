//! `filterlab.load` of a Parquet file: `ParquetFilters`, every column chunk's bloom filter
//! (`filter_blocked::parquet::file`), read from the footer's offsets and checked against the
//! file's length before anything is allocated. A key is asked of a column by its value (a `str`
//! or `bytes` for a `BYTE_ARRAY` column, an `int` or `float` for the numeric ones), hashed as
//! Parquet hashes the value's plain encoding.

use crate::err;
use filter_blocked::parquet::file::{Ndv, ParquetFile, ValueType};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyString};
use std::path::PathBuf;

/// The bloom filters of a Parquet file's column chunks (`filterlab.load("data.parquet")`):
/// which row groups may hold a value, and each filter's size, distinct count and rate.
#[pyclass(frozen, module = "filterlab._filterlab")]
pub struct ParquetFilters {
    inner: ParquetFile,
    path: PathBuf,
}

/// The filters of the Parquet file at `path`, when it opens and ends with Parquet's magic
/// (`PAR1`); `None` for anything else. The footer and the filters are read at their offsets,
/// not the whole file.
pub(crate) fn read_if_parquet(path: &std::path::Path) -> PyResult<Option<ParquetFilters>> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = filterlab::open_regular(path) else {
        return Ok(None);
    };
    let len = file.metadata()?.len();
    let (mut head, mut tail) = ([0u8; 4], [0u8; 4]);
    let magic = len >= 8
        && file.read_exact(&mut head).is_ok()
        && file.seek(SeekFrom::End(-4)).is_ok()
        && file.read_exact(&mut tail).is_ok()
        && &head == b"PAR1"
        && &tail == b"PAR1";
    if !magic {
        return Ok(None);
    }
    let inner = ParquetFile::read(&file).map_err(|e| {
        err(format!(
            "{}: not a usable Parquet file: {}",
            path.display(),
            e.0
        ))
    })?;
    Ok(Some(ParquetFilters {
        inner,
        path: path.to_path_buf(),
    }))
}

impl ParquetFilters {
    fn column_index(&self, name: &str) -> PyResult<usize> {
        self.inner.column(name).ok_or_else(|| {
            let names: Vec<&str> = self.inner.columns.iter().map(|c| c.path.as_str()).collect();
            err(format!(
                "{}: no column {name:?} (columns: {names:?})",
                self.path.display()
            ))
        })
    }
}

/// The text form of a key, for [`ValueType::plain`]: a `str` as it is, `bytes` as they are, an
/// `int` or `float` as Python prints it.
fn key_text(key: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = key.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = key.downcast::<PyString>() {
        return Ok(s.to_str()?.as_bytes().to_vec());
    }
    if key.is_instance_of::<PyInt>() || key.is_instance_of::<PyFloat>() {
        return Ok(key.str()?.to_str()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "a Parquet value is a str, bytes, int or float, not {}",
        key.get_type().name()?
    )))
}

#[pymethods]
impl ParquetFilters {
    /// The leaf columns' dotted names, in the schema's order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.inner.columns.iter().map(|c| c.path.clone()).collect()
    }

    /// Row groups in the file.
    #[getter]
    fn row_groups(&self) -> usize {
        self.inner.row_groups()
    }

    /// The path it was loaded from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The row groups (by index) whose chunk of `column` may hold `key`: those whose filter says
    /// maybe, and those without a filter. An empty list: no row group holds it.
    fn may_hold(&self, column: &str, key: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let c = self.column_index(column)?;
        let value_type: ValueType = self.inner.columns[c].value_type;
        let plain = value_type
            .plain(&key_text(key)?)
            .map_err(|why| err(format!("column {column:?} ({}): {why}", value_type.name())))?;
        // `chunks[column][row group]`.
        Ok(self.inner.chunks[c]
            .iter()
            .enumerate()
            .filter(|(_, chunk)| chunk.may_hold(&plain))
            .map(|(g, _)| g)
            .collect())
    }

    /// One dict per column chunk: `column`, `row_group`, `rows`, `filter_bytes` (None: no
    /// filter), `ndv`, `ndv_source` (`"statistics"`, `"estimated"` from the set bits, or None)
    /// and `fpr` (the split-block formula's rate at that count).
    fn filters<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut out = Vec::new();
        // `chunks[column][row group]`.
        for (c, column) in self.inner.chunks.iter().enumerate() {
            for (g, chunk) in column.iter().enumerate() {
                let d = PyDict::new(py);
                d.set_item("column", &self.inner.columns[c].path)?;
                d.set_item("row_group", g)?;
                d.set_item("rows", chunk.rows)?;
                d.set_item("filter_bytes", chunk.filter.as_ref().map(|f| f.length))?;
                let (ndv, source) = match chunk.ndv() {
                    Ndv::Statistics(n) => (Some(n as f64), Some("statistics")),
                    Ndv::Estimated(n) => (Some(n), Some("estimated")),
                    Ndv::Unknown => (None, None),
                };
                d.set_item("ndv", ndv)?;
                d.set_item("ndv_source", source)?;
                d.set_item("fpr", chunk.fpr_at_ndv())?;
                out.push(d);
            }
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "ParquetFilters(path={:?}, columns={:?}, row_groups={})",
            self.path.display().to_string(),
            self.columns(),
            self.row_groups()
        )
    }
}
