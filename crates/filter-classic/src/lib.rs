//! filter-classic
