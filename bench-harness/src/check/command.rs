//! The `check` command of the harness's binary, over the files of one reports directory.

use crate::check::Floors;
use crate::dataset;
use crate::record::Results;
use anyhow::{bail, Context, Result};
use std::path::Path;

/// `bench-harness check FILE`: every rule of [`super::check`] on `file`, the report files next to
/// it ([`super::reports::check_dir`]), and, with the root README (the committed reports), the
/// provenance against git. Prints what passed; every problem makes it an error.
///
/// # Errors
/// A file that cannot be read or parsed, or any problem found.
pub fn run(
    file: &Path,
    manifest: &Path,
    root_readme: Option<&Path>,
    min_probes: u64,
) -> Result<()> {
    let read =
        |p: &Path| std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()));
    let results: Results = serde_json::from_str(&read(file)?)
        .with_context(|| format!("parsing {}", file.display()))?;
    let manifest: Option<dataset::Manifest> = match std::fs::read_to_string(manifest) {
        Ok(text) => Some(
            serde_json::from_str(&text)
                .with_context(|| format!("parsing {}", manifest.display()))?,
        ),
        Err(_) => None,
    };
    let readme = read(&file.with_file_name("README.md"))?;
    let root = root_readme.map(read).transpose()?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let git = crate::check::provenance::Git(Path::new("."));
    let repo = root
        .is_some()
        .then_some(&git as &dyn crate::check::provenance::Repo);
    let found = crate::render::studies::read_studies(dir)?;
    let stamps = crate::render::studies::stamps(&found, &results.machine.commit, repo)?;
    let against = crate::check::Against {
        manifest: manifest.as_ref(),
        readme: Some(&readme),
        root_readme: root.as_deref(),
        stamps: &stamps,
    };
    let floors = Floors {
        probes: min_probes,
        ..Floors::default()
    };
    let mut problems = crate::check::check(&results, floors, &against);
    // Every other report file next to results.json, from its JSON; no Markdown left unchecked.
    let files = crate::check::reports::check_dir(dir, &results, repo);
    for notice in &files.notices {
        println!("{}: {notice}", dir.display());
    }
    problems.extend(files.problems);
    if root.is_some() {
        problems.extend(crate::check::commit_is_current(&results, &git));
        rendered_notice(dir, &results, &git);
        // The committed book's chapters against the committed course.
        let (book, chapters) =
            crate::check::course::book(&dir.join("course"), Path::new("book/src"));
        println!(
            "book/src: {chapters} chapters checked against {}/course/course.json",
            dir.display()
        );
        problems.extend(book);
    }
    if let Some(why) = crate::check::dataset_skipped(&results, manifest.as_ref()) {
        println!("{}: dataset not checked: {why}", file.display());
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("{}: {p}", file.display());
        }
        bail!("{}: {} problems", file.display(), problems.len());
    }
    println!(
        "{}: {} records and {} contenders pass every check (counts, timings, probes, theory, false negatives, peers, dataset{}, tables); {} Markdown files accounted for (see any notice above)",
        file.display(),
        results.records.len(),
        results.peers.len(),
        match &manifest {
            Some(m) if crate::check::manifest_covers(&results, m) => " against the manifest",
            _ => " (not covered by the manifest)",
        },
        files.covered.len()
    );
    Ok(())
}

/// Names the code that only renders and changed since the run, if any: the pages were
/// re-rendered with HEAD's code and compared, so they need no new run.
fn rendered_notice(dir: &Path, results: &Results, repo: &dyn crate::check::provenance::Repo) {
    let rendered = crate::check::provenance::rendered_since(&results.machine.commit, repo);
    if !rendered.is_empty() {
        println!(
            "{}: code that only renders changed since the run ({}): every page above was \
             re-rendered with HEAD's code and compared, nothing needs measuring again",
            dir.display(),
            crate::check::provenance::listed(&rendered, 5)
        );
    }
}
