//! The command line's messages read as one line of single spaces: no string literal in its
//! source runs onto the next line without a `\` continuation (which puts the next line's
//! indentation into the message), and none has a run of spaces after a punctuation mark (what
//! such a literal becomes when its lines are joined). Issue 37: "holds more than its share of
//! the 1000 items per window;                  the rate is above the target", and one of
//! `recommend`'s notes. Tables align their columns after a word, never after punctuation.

use std::path::Path;

/// The lines (1-based) on which a plain string literal of `source` continues without a `\`,
/// or holds a run of spaces after a punctuation mark. A small lexer: comments, raw strings (`r"…"`, `r#"…"#`, which may span lines as they
/// are), character literals and escapes are skipped.
fn unbroken_lines(source: &str) -> Vec<usize> {
    let b = source.as_bytes();
    let (mut i, mut line, mut hits) = (0, 1, Vec::new());
    let newlines = |s: &[u8]| s.iter().filter(|&&c| c == b'\n').count();
    let find = |from: usize, pat: &[u8]| {
        (from..b.len())
            .find(|&j| b[j..].starts_with(pat))
            .unwrap_or(b.len())
    };
    while i < b.len() {
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        match b[i] {
            b'\n' => line += 1,
            b'/' if b[i..].starts_with(b"//") => {
                i = find(i, b"\n");
                continue;
            }
            b'/' if b[i..].starts_with(b"/*") => {
                let end = find(i, b"*/");
                line += newlines(&b[i..end]);
                i = end + 2;
                continue;
            }
            b'r' if !ident_before && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let mut close = vec![b'"'];
                    close.extend(std::iter::repeat_n(b'#', hashes));
                    let end = find(i + 2 + hashes, &close);
                    line += newlines(&b[i..end]);
                    i = end + close.len();
                    continue;
                }
            }
            b'\'' => {
                // A character literal ('x', '\n', '\''), or a lifetime (left as it is).
                let len = match b.get(i + 1) {
                    Some(b'\\') => b[i + 2..].iter().position(|&c| c == b'\'').map(|p| p + 3),
                    Some(_) if b.get(i + 2) == Some(&b'\'') => Some(3),
                    _ => None,
                };
                i += len.unwrap_or(1);
                continue;
            }
            b'"' => {
                let (mut j, start_line) = (i + 1, line);
                while j < b.len() && b[j] != b'"' {
                    match b[j] {
                        b'\\' => {
                            line += usize::from(b.get(j + 1) == Some(&b'\n'));
                            j += 2;
                            continue;
                        }
                        b'\n' => {
                            line += 1;
                            hits.push(line);
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if spaced_after_punctuation(&b[i + 1..j.min(b.len())]) {
                    hits.push(start_line);
                }
                i = j + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    hits
}

/// Whether `text` has a punctuation mark followed by two spaces or more and more text.
fn spaced_after_punctuation(text: &[u8]) -> bool {
    text.windows(4)
        .any(|w| b";,.:".contains(&w[0]) && w[1] == b' ' && w[2] == b' ')
}

#[test]
fn the_scan_finds_a_literal_broken_without_a_continuation() {
    let broken = "let m = \"one;\n        two\";\n";
    assert_eq!(unbroken_lines(broken), [2]);
    let continued = "let m = \"one; \\\n        two\";\n";
    assert!(unbroken_lines(continued).is_empty());
    let raw = "let t = r#\"a\n  \"b\"\"#; // \"not\n let c = '\"'; let l: &'static str = \"x\";";
    assert!(unbroken_lines(raw).is_empty(), "{:?}", unbroken_lines(raw));
    let joined = "let m = \"one;          two\";\nlet t = \"items         {}\";";
    assert_eq!(unbroken_lines(joined), [1]);
}

#[test]
fn no_message_of_the_command_line_runs_onto_the_next_line() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for line in unbroken_lines(&text) {
                    found.push(format!("{}:{line}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "string literals broken without `\\`, or with a run of spaces: {found:?}"
    );
}
