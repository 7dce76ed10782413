//! Huge-page coverage of an address range, from `/proc/self/smaps`.
//!
//! The file lists the process's memory areas in address order, each a header line
//! (`start-end perms offset dev inode [path]`, hexadecimal addresses) followed by `Key: value`
//! lines, among them `AnonHugePages: <n> kB`.

/// One memory area: `[start, end)` and its `AnonHugePages` in bytes (`None`: no such line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Area {
    start: u64,
    end: u64,
    huge: Option<u64>,
}

/// Bytes of `[start, start + len)` on transparent huge pages, measured now; `None` where that
/// cannot be told (see [`huge_bytes_in`]) or read.
pub(super) fn huge_page_bytes_of(start: u64, len: u64) -> Option<u64> {
    let end = start.checked_add(len)?;
    huge_bytes_in(&parse(&read()?)?, start, end)
}

#[cfg(all(target_os = "linux", not(miri)))]
fn read() -> Option<String> {
    std::fs::read_to_string("/proc/self/smaps").ok()
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn read() -> Option<String> {
    None
}

/// The areas of an smaps text; `None` if a header or an `AnonHugePages` line is malformed.
fn parse(text: &str) -> Option<Vec<Area>> {
    let mut areas: Vec<Area> = Vec::new();
    for line in text.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some(value) = line.strip_prefix("AnonHugePages:") {
            let kb = value
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse::<u64>()
                .ok()?;
            let area = areas.last_mut()?;
            if area.huge.is_some() {
                return None;
            }
            area.huge = Some(kb.checked_mul(1024)?);
        } else if !first.ends_with(':') && !first.is_empty() {
            let (a, b) = first.split_once('-')?;
            let start = u64::from_str_radix(a, 16).ok()?;
            let end = u64::from_str_radix(b, 16).ok()?;
            if end <= start || areas.last().is_some_and(|p| p.end > start) {
                return None;
            }
            areas.push(Area {
                start,
                end,
                huge: None,
            });
        }
    }
    Some(areas)
}

/// Huge-page bytes of `[start, end)`, given the areas in address order.
///
/// The areas must cover the range without a gap, each with its `AnonHugePages`. An area inside
/// the range counts whole. An area reaching outside it (the kernel merged the range's area with
/// a neighbour of identical flags) counts only if the split is certain: no huge page (0), or
/// nothing but huge pages (its overlap with the range); otherwise `None`, since smaps does not
/// say where in the area its huge pages are, and a prorated share could be wrong either way.
fn huge_bytes_in(areas: &[Area], start: u64, end: u64) -> Option<u64> {
    let mut covered = start;
    let mut huge = 0u64;
    for a in areas.iter().filter(|a| a.end > start && a.start < end) {
        if a.start > covered {
            return None;
        }
        let area_huge = a.huge?;
        let size = a.end - a.start;
        if area_huge > size {
            return None;
        }
        let overlap = a.end.min(end) - a.start.max(start);
        huge += if overlap == size || area_huge == 0 {
            area_huge
        } else if area_huge == size {
            overlap
        } else {
            return None;
        };
        covered = a.end;
    }
    (covered >= end).then_some(huge)
}

#[cfg(test)]
mod tests;
