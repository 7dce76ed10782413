//! filter-scalable
