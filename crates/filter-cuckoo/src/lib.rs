//! filter-cuckoo
