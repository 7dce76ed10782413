use super::*;
use filterlab::{Params, Variant};

fn filter() -> AnyFilter {
    AnyFilter::build(Variant::Classic, &Params::new(1000, 0.01)).unwrap()
}

#[test]
fn repeats_are_counted_exactly_while_tracked() {
    let mut f = filter();
    let input = b"a\nb\r\na\n\nb\nc";
    let c = insert_lines(&input[..], "k", &mut f, None, Limits::default()).unwrap();
    assert_eq!((c.lines.lines, c.lines.empty), (6, 1));
    assert_eq!((c.duplicates, c.maybe_duplicates), (2, 0));
    assert_eq!(f.len(), 3);
}

#[test]
fn past_the_tracking_limit_repeats_are_maybe_duplicates() {
    let mut f = filter();
    let limits = Limits {
        key_bytes: 16,
        tracked: 2,
    };
    // a and b are tracked; c and d are not, and their repeats are caught by the filter.
    let input = b"a\nb\nc\nd\na\nc\nd\n";
    let c = insert_lines(&input[..], "k", &mut f, None, limits).unwrap();
    assert_eq!((c.duplicates, c.maybe_duplicates), (1, 2));
    assert_eq!(f.len(), 4);
}

#[test]
fn a_key_longer_than_the_limit_is_an_error_at_its_line() {
    let limits = Limits {
        key_bytes: 4,
        tracked: 8,
    };
    // Exactly the limit, with either line ending, is fine.
    let ok = insert_lines(&b"abcd\r\nabce\nabcf"[..], "k", &mut filter(), None, limits).unwrap();
    assert_eq!(ok.lines.lines, 3);
    let e = insert_lines(&b"abcd\nabcde\n"[..], "k", &mut filter(), None, limits).unwrap_err();
    assert!(
        format!("{e:#}").contains("cannot read the keys of k: line 2: a key longer than 4 bytes"),
        "{e}"
    );
    // An endless line stops at the limit instead of filling memory.
    let endless = std::io::BufReader::new(std::io::repeat(b'x'));
    let e = insert_lines(endless, "k", &mut filter(), None, limits).unwrap_err();
    assert!(format!("{e:#}").contains("line 1"), "{e:#}");
}

/// A file of at most the limit is held whole (read once); a longer one is counted (its keys
/// dropped) and read again by the build.
#[test]
fn a_file_is_held_up_to_the_limit_and_counted_past_it() {
    let hash = |k: &[u8]| filterlab::KeyHasher::default().hash(k);
    let input = b"a\n\nb\na\nc\n";
    match hold_or_count(&input[..], "k", hash, 4).unwrap() {
        Counted::Buffered(b) => {
            let lines: Vec<u64> = b.keys.iter().map(|&(l, _)| l).collect();
            assert_eq!(lines, [1, 3, 4, 5]);
            assert_eq!(b.keys[0].1, b.keys[2].1);
            assert_eq!((b.lines.lines, b.lines.empty), (5, 1));
        }
        Counted::File(n) => panic!("held whole expected, counted {n}"),
    }
    assert!(matches!(
        hold_or_count(&input[..], "k", hash, 3).unwrap(),
        Counted::File(4)
    ));
}
