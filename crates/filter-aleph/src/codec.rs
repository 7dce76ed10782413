//! The saved form (variant id 14).
//!
//! ```text
//! parameters: the sizing (capacity, fpr), estimate u64 (0: none), Q0 u64, doublings u32,
//!             slot width u32, keys u64, used slots u64, slots used after the last doubling
//!             u64, void groups u64
//! payload:    per void group: level u32, origin u64, groups u32; then the table as the
//!             quotient filter saves it (`filter_quotient::table::encode_slots`)
//! ```
//!
//! Saves write format version 3, the table in blocks of 64 slots; version 1 and 2 files (the
//! table in separate arrays) still load, their table copied into blocks.
//!
//! Nothing derived is trusted: `Q0` and the slot width are recomputed from the sizing, the
//! estimate and the doublings; the table is checked in full as a quotient filter's load checks
//! it; no stored entry may be 0; and the void entries in every run must be exactly the copies
//! the listed groups give. A table opened in place is copied (this variant changes in place
//! only after a load).

use crate::voids::Voids;
use crate::{entry, math, AlephFilter, FILE_KIND};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, MemoryCap, Sizing, TableOptions};
use filter_quotient::table::{decode_slots, encode_slots, payload_len};
use filter_quotient::{MAX_QUOTIENTS, MIN_QUOTIENTS};
use std::collections::BTreeMap;

/// Bytes of one void group in the payload.
const GROUP_BYTES: u64 = 16;

impl Codec for AlephFilter {
    const KIND: FileKind = FILE_KIND;
    /// Version 3: the table in blocks, as the quotient filter writes it.
    const WRITE_VERSION: u16 = filter_quotient::table::BLOCKED_VERSION;

    fn table_layout(version: u16) -> Option<&'static str> {
        Some(filter_quotient::table::table_layout(version))
    }

    fn encode_params(&self, e: &mut Encoder<'_>) {
        self.sizing.encode_params(e);
        e.u64(self.estimate.unwrap_or(0))
            .u64(self.base_quotients)
            .u32(self.expansions)
            .u32(self.slots.rbits())
            .u64(self.len)
            .u64(self.used)
            .u64(self.carried)
            .u64(self.voids.pairs() as u64);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for (level, origin, groups) in self.voids.iter() {
            e.u32(level).u64(origin).u32(groups);
        }
        encode_slots(&self.slots, e);
    }

    fn max_payload_len(hasher: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let p = Params::read(hasher, params)?;
        let table = payload_len(p.quotients, p.width, params.format_version())
            .map_err(|e| invalid(format!("Q {} with {}-bit slots: {e}", p.quotients, p.width)))?;
        Ok(p.pairs.saturating_mul(GROUP_BYTES).saturating_add(table.0))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let p = Params::read(hasher, params)?;
        let voids = read_groups(&p, payload)?;
        let (mut slots, counted) = decode_slots(p.quotients, p.width, payload)?;
        let used = match counted {
            Some(used) => used,
            None => slots.check().map_err(invalid)?,
        };
        slots.set_checked();
        slots
            .own_tables(TableOptions::default())
            .map_err(|_| FormatError::OutOfMemory {
                bytes: slots.bytes() as u64,
            })?;
        if used != p.used || p.len > used || p.carried > used {
            return Err(invalid(format!(
                "{used} stored entries, but {} used, {} keys and {} carried",
                p.used, p.len, p.carried
            )));
        }
        let f = AlephFilter {
            slots,
            base_quotients: p.base_quotients,
            expansions: p.expansions,
            len: p.len,
            used,
            carried: p.carried,
            voids,
            widening: p.widening,
            estimate: p.estimate,
            sizing: p.sizing,
            cap: MemoryCap::NONE,
            pages: filter_core::Pages::default(),
        };
        check_entries(&f)?;
        Ok(f)
    }
}

/// The parameter section, checked against itself.
struct Params {
    sizing: Sizing,
    estimate: Option<u64>,
    base_quotients: u64,
    expansions: u32,
    quotients: u64,
    width: u32,
    widening: math::Widening,
    len: u64,
    used: u64,
    carried: u64,
    pairs: u64,
}

impl Params {
    fn read(hasher: KeyHasher, params: &mut Reader<'_>) -> Result<Params, FormatError> {
        let sizing = Sizing::decode_params(params, hasher)?;
        let estimate = Some(params.u64()?).filter(|&n| n != 0);
        let (base_quotients, expansions, width) = (params.u64()?, params.u32()?, params.u32()?);
        let (len, used, carried, pairs) =
            (params.u64()?, params.u64()?, params.u64()?, params.u64()?);
        let sizing = sizing.validate().map_err(refused)?;
        let (planned, first) = match estimate {
            Some(n) => {
                let (k, first) = math::planned_doublings(sizing.capacity, n).map_err(refused)?;
                (Some(k), first)
            }
            None => (None, sizing.capacity),
        };
        let built_for = filter_core::math::quotient::quotients_for(
            first,
            math::MAX_LOAD,
            MIN_QUOTIENTS,
            MAX_QUOTIENTS,
        )
        .map_err(refused)?;
        let widening = math::Widening::new(sizing.fpr, planned).map_err(refused)?;
        let quotients = 1u64
            .checked_shl(expansions)
            .and_then(|s| base_quotients.checked_mul(s))
            .filter(|&q| q <= MAX_QUOTIENTS && expansions < 32);
        let shape_ok = built_for == base_quotients && quotients.is_some();
        if !shape_ok || widening.slot_width(expansions) != width {
            return Err(invalid(format!(
                "{base_quotients} quotients doubled {expansions} times with {width}-bit slots \
                 do not follow from the sizing and the estimate"
            )));
        }
        Ok(Params {
            sizing,
            estimate,
            base_quotients,
            expansions,
            quotients: quotients.unwrap_or(0),
            width,
            widening,
            len,
            used,
            carried,
            pairs,
        })
    }
}

/// The void groups: each at a level up to the doublings, an address of that level's table,
/// at least one group, in strictly increasing `(level, origin)` order.
fn read_groups(p: &Params, payload: &mut Reader<'_>) -> Result<Voids, FormatError> {
    if p.pairs.saturating_mul(GROUP_BYTES) > payload.remaining() as u64 {
        return Err(invalid(format!(
            "{} void groups in a shorter payload",
            p.pairs
        )));
    }
    let mut voids = Voids::default();
    let mut last = None;
    for _ in 0..p.pairs {
        let (level, origin, groups) = (payload.u32()?, payload.u64()?, payload.u32()?);
        let in_table = level <= p.expansions && origin < p.base_quotients << level;
        if !in_table || groups == 0 || last >= Some((level, origin)) {
            return Err(invalid(format!(
                "void group ({level}, {origin}) x{groups} after {last:?}"
            )));
        }
        last = Some((level, origin));
        voids.add_many(level, origin, groups);
    }
    Ok(voids)
}

/// No stored entry is 0, and the void entries of each run are the copies the groups give.
fn check_entries(f: &AlephFilter) -> Result<(), FormatError> {
    let (k, w) = (f.expansions, f.slots.rbits());
    let Some(want) = f.voids.coverage(k, f.used) else {
        return Err(invalid("more void copies than stored entries"));
    };
    let mut found: BTreeMap<u64, u32> = BTreeMap::new();
    let mut zero = false;
    f.slots.for_each(|a, v| {
        zero |= v == 0;
        if v == entry::void(w) {
            *found.entry(a).or_insert(0) += 1;
        }
    });
    if zero {
        return Err(invalid("a stored entry of 0 (no length marker)"));
    }
    if found != want {
        return Err(invalid(format!(
            "{} void entries in the table, but the void groups give {}",
            found.values().map(|&c| u64::from(c)).sum::<u64>(),
            want.values().map(|&c| u64::from(c)).sum::<u64>()
        )));
    }
    Ok(())
}
