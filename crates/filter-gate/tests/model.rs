//! Model-based test: random sequences of registrations and checks, on both stores, against a
//! `HashSet`. The filter is sized far too small so that "maybe" answers (and so database
//! confirmations and false positives) are common.

mod common;

use std::collections::HashSet;

use filter_gate::{Availability, Gate, PgStore, Registration, SqliteStore, Store};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Register(u8, Spelling),
    Check(u8, Spelling),
}

/// The same address written differently: the normalisation must make them one key.
#[derive(Clone, Copy, Debug)]
enum Spelling {
    Plain,
    Upper,
    Padded,
}

fn spell(key: u8, s: Spelling) -> String {
    let base = format!("user{key}@example.org");
    match s {
        Spelling::Plain => base,
        Spelling::Upper => base.to_uppercase(),
        Spelling::Padded => format!("  {base}\t"),
    }
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let spelling = prop_oneof![
        Just(Spelling::Plain),
        Just(Spelling::Upper),
        Just(Spelling::Padded)
    ];
    let op = prop_oneof![
        (0u8..64, spelling.clone()).prop_map(|(k, s)| Op::Register(k, s)),
        (0u8..64, spelling).prop_map(|(k, s)| Op::Check(k, s)),
    ];
    proptest::collection::vec(op, 1..120)
}

fn run_model<S: Store>(store: S, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut gate = Gate::rebuild(common::classic(8), store).unwrap();
    let mut model = HashSet::new();
    for op in ops {
        match *op {
            Op::Register(k, s) => {
                let got = gate.register(&spell(k, s)).unwrap();
                let fresh = model.insert(k);
                prop_assert_eq!(matches!(got, Registration::Registered), fresh, "{:?}", op);
            }
            Op::Check(k, s) => {
                let got = gate.is_taken(&spell(k, s)).unwrap();
                let want = if model.contains(&k) {
                    Availability::Taken
                } else {
                    Availability::Available
                };
                prop_assert_eq!(got, want, "{:?}", op);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn the_gate_agrees_with_a_hash_set_on_sqlite(ops in ops()) {
        run_model(SqliteStore::open_in_memory("users").unwrap(), &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn the_gate_agrees_with_a_hash_set_on_postgres(ops in ops()) {
        if let Some(conn) = common::pg() {
            let table = common::pg_table(&conn, "model");
            let result = run_model(PgStore::connect(&conn, &table).unwrap(), &ops);
            common::drop_pg(&conn, &table);
            result?;
        }
    }
}
