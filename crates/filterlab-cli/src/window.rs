//! Sliding windows on the command line: `recommend --window` (the question "seen in the last
//! N inserts / the last T?") and the time that a window counted in time takes with its keys
//! (`build`, `add` and `query --at`).

use crate::output::Out;
use anyhow::{bail, Result};
use filterlab::{AnyFilter, Capabilities, Timestamp, Variant};

/// What `recommend --window` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// Only the last `--n` inserts matter (`--window items`).
    Items,
    /// Only what was inserted in the last this many seconds matters (`--window 24h`); `--n` is
    /// the most items one window receives.
    Seconds(u64),
}

impl Window {
    /// Whether a variant with these capabilities answers this window.
    pub fn fits(self, c: Capabilities) -> bool {
        c.windowed && c.timed == matches!(self, Window::Seconds(_))
    }

    /// Why a window of this kind, in one line.
    pub fn reason(self, n: u64) -> String {
        match self {
            Window::Items => format!(
                "only the last {n} inserts matter: a window counted in items forgets older keys \
                 by itself (no reset), in memory that never grows"
            ),
            Window::Seconds(s) => format!(
                "only the last {s} s matter: a window counted in time keeps {n} items per window \
                 in slices each sized for its share of the target, and forgets older slices by \
                 itself; every insert and query gives its time (`build`, `add`, `query --at`)"
            ),
        }
    }
}

/// Parses `items`, or a duration: a number of seconds with an optional unit (`s`, `m`, `h`,
/// `d`), such as `3600`, `10m`, `24h`, `7d`.
///
/// # Errors
/// Anything else, or a duration of 0 or past `u64` seconds.
pub fn parse(s: &str) -> Result<Window, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("items") {
        return Ok(Window::Items);
    }
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let scale = match unit.trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => 0,
    };
    match digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        Some(secs) if secs > 0 => Ok(Window::Seconds(secs)),
        _ => Err(format!(
            "{s:?} is not a window: give `items` (the last --n inserts) or a duration such as \
             3600, 10m, 24h, 7d"
        )),
    }
}

/// The time keys are inserted or asked at: `--at` for a window counted in time (required to
/// insert), refused for any other variant.
///
/// # Errors
/// `--at` for a variant without a time, or no `--at` to insert into one with.
pub fn time(variant: Variant, at: Option<u64>, inserting: bool) -> Result<Option<Timestamp>> {
    let timed = variant.capabilities().timed;
    match (timed, at) {
        (true, Some(t)) => Ok(Some(Timestamp(t))),
        (true, None) if inserting => bail!(
            "the {variant} filter files each key into the slice of its time: give --at TICKS (in \
             the units of its window, such as seconds since the Unix epoch)"
        ),
        (_, None) => Ok(None),
        (false, Some(_)) => {
            let refusal = variant.unsupported("take a time (--at)", |c| c.timed);
            bail!("{refusal}")
        }
    }
}

/// Checks an insert's time against a window counted in time as saved: a time that would
/// forget every key it holds (more than one window past its newest slice) is refused unless
/// `allow_jump`, and warned about when allowed; a time before its newest slice is warned
/// about (the keys are filed into the newest slice, so they stay longer than their time says).
///
/// # Errors
/// The refused jump.
pub fn check_jump(
    filter: &AnyFilter,
    at: Option<Timestamp>,
    allow_jump: bool,
    out: Out,
) -> Result<()> {
    let (Some(t), Some(w)) = (at, filter.as_time_window()) else {
        return Ok(());
    };
    let Some(newest) = w.latest() else {
        return Ok(()); // nothing inserted yet: nothing to forget or to be late for
    };
    if w.forgets_all_at(t) {
        let what = format!(
            "--at {} is more than one window ({} ticks) after the window's newest slice, which \
             starts at {}: every key it holds would be forgotten",
            t.0,
            w.window(),
            newest.0
        );
        if !allow_jump {
            bail!(
                "{what}; check the units of --at (milliseconds given to a window counted in \
                 seconds?), or pass --allow-jump if that time is right; nothing was changed"
            );
        }
        out.warn(&format!("{what} (--allow-jump)"));
    } else if t.0 < newest.0 {
        out.warn(&format!(
            "--at {} is before the window's newest slice, which starts at {}: the keys are \
             filed into that slice and stay in the window longer than their time says",
            t.0, newest.0
        ));
    }
    Ok(())
}

/// Whether `filter` holds `key`: at `at` for a window counted in time, else as it stands.
///
/// # Errors
/// None for the times [`time`] lets through.
pub fn contains(filter: &AnyFilter, key: &[u8], at: Option<Timestamp>) -> Result<bool> {
    use filterlab::Filter;
    Ok(match at {
        Some(t) => filter.contains_at(key, t)?,
        None => filter.contains(key),
    })
}

#[cfg(test)]
mod tests;
