use super::*;

/// The table of the crate docs, entry by entry.
#[test]
fn crate_docs_table_is_what_the_plans_compute() {
    let docs = [
        (0.01, [22.06, 16.63, 15.90, 16.38, 17.34, 18.53]),
        (0.001, [31.64, 23.02, 21.38, 21.49, 22.29, 23.40]),
    ];
    for (p, row) in docs {
        for (n, want) in crate::GENERATION_CHOICES.into_iter().zip(row) {
            let got = SlicedPlan::new(1_000_000, n, p).unwrap().bits_per_item();
            assert!(
                (got - want).abs() <= 0.006,
                "N = {n}, p = {p}: {got} vs {want}"
            );
        }
    }
}
