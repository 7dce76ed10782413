/// Runs the prefetch block on references into the start, middle and end of a table, as the
/// batch loops do (under Miri this checks the unsafe block), and checks that a prefetch is
/// only a hint: the data and what a lookup reads are the same before and after.
#[test]
fn prefetch_is_a_hint_that_changes_nothing() {
    let table: Vec<u64> = (0..100).map(|i| i * 0x9e37_79b9).collect();
    let before = table.clone();
    for i in [0, 1, 50, 99] {
        super::prefetch(&table[i]);
        assert_eq!(table[i], before[i], "element {i} after its prefetch");
    }
    super::prefetch(&table[..]);
    super::prefetch("a str");
    assert_eq!(table, before);
}
