//! filter-counting
