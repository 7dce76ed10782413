//! filterlab
