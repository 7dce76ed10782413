use super::*;

/// Three areas as Linux 6.x prints them: a heap, a table of 12 MiB with 10 MiB on huge
/// pages, and a library mapping (abridged).
const SMAPS: &str = "\
55d0c0000000-55d0c0200000 rw-p 00000000 00:00 0                          [heap]
Size:               2048 kB
AnonHugePages:         0 kB
VmFlags: rd wr mr mw me ac
7f0000000000-7f0000c00000 rw-p 00000000 00:00 0 
Size:              12288 kB
KernelPageSize:        4 kB
Rss:               12288 kB
AnonHugePages:     10240 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
THPeligible:    1
VmFlags: rd wr mr mw me ac hg
7f0000c00000-7f0000e00000 r-xp 00000000 08:01 1234                       /usr/lib/libc.so.6
Size:               2048 kB
AnonHugePages:         0 kB
VmFlags: rd ex mr mw me
";

const M: u64 = 1 << 20;
const TABLE: u64 = 0x7f00_0000_0000;

#[test]
fn parses_each_area_with_its_huge_pages() {
    let areas = parse(SMAPS).unwrap();
    assert_eq!(areas.len(), 3);
    assert_eq!(
        areas[1],
        Area {
            start: TABLE,
            end: TABLE + 12 * M,
            huge: Some(10 * M)
        }
    );
}

#[test]
fn an_area_inside_the_range_counts_whole() {
    let areas = parse(SMAPS).unwrap();
    assert_eq!(huge_bytes_in(&areas, TABLE, TABLE + 12 * M), Some(10 * M));
    // The range spanning the table and the library: both inside, summed.
    assert_eq!(huge_bytes_in(&areas, TABLE, TABLE + 14 * M), Some(10 * M));
    // Part of an area with no huge page at all: certainly 0.
    assert_eq!(
        huge_bytes_in(&areas, TABLE + 12 * M, TABLE + 13 * M),
        Some(0)
    );
}

#[test]
fn a_partly_huge_area_reaching_outside_the_range_is_refused() {
    let areas = parse(SMAPS).unwrap();
    // 10 of the area's 12 MiB are huge, but which ones? Not knowable from smaps.
    assert_eq!(huge_bytes_in(&areas, TABLE, TABLE + 4 * M), None);
    assert_eq!(huge_bytes_in(&areas, TABLE + 2 * M, TABLE + 14 * M), None);
}

#[test]
fn an_all_huge_area_reaching_outside_the_range_counts_its_overlap() {
    let merged = [Area {
        start: TABLE,
        end: TABLE + 8 * M,
        huge: Some(8 * M),
    }];
    assert_eq!(
        huge_bytes_in(&merged, TABLE + 2 * M, TABLE + 6 * M),
        Some(4 * M)
    );
}

#[test]
fn gaps_and_missing_figures_are_refused() {
    let areas = parse(SMAPS).unwrap();
    // Unmapped memory before the heap, and between the heap and the table.
    assert_eq!(huge_bytes_in(&areas, 0x1000, 0x2000), None);
    assert_eq!(huge_bytes_in(&areas, 0x55d0_c000_0000, TABLE + M), None);
    // A table area without an AnonHugePages line (a kernel without THP).
    let no_thp = SMAPS.replace("AnonHugePages:     10240 kB\n", "");
    assert_eq!(
        huge_bytes_in(&parse(&no_thp).unwrap(), TABLE, TABLE + M),
        None
    );
}

#[test]
fn malformed_text_is_refused() {
    for bad in [
        SMAPS.replace("10240 kB", "10240 MB"),
        SMAPS.replace("10240 kB", "many kB"),
        SMAPS.replace("7f0000000000-7f0000c00000", "7f0000c00000-7f0000000000"),
        SMAPS.replace("7f0000000000-", "7f0000000000"),
        SMAPS.replace("7f0000c00000-7f0000e00000", "7f0000b00000-7f0000e00000"),
        "AnonHugePages: 0 kB\n".to_string(),
        SMAPS.replace("ShmemPmdMapped:        0 kB", "AnonHugePages:      0 kB"),
    ] {
        assert_eq!(parse(&bad), None, "{bad}");
    }
    let too_huge = SMAPS.replace("10240 kB", "20480 kB");
    assert_eq!(
        huge_bytes_in(&parse(&too_huge).unwrap(), TABLE, TABLE + 12 * M),
        None
    );
}
