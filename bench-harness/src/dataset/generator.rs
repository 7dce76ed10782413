//! The e-mail generator: patterns, digits, weighted picks.

use super::*;

/// Returns a uniform integer in `[0, n)`.
///
/// Lemire's multiply-and-reject ("Fast random integer generation in an interval", 2019): exact,
/// usually one `next_u64`, and, unlike `rand`'s distributions, defined here once and for all,
/// so the stream of keys cannot change with a dependency upgrade.
#[inline]
pub(super) fn below(rng: &mut impl Rng, n: u32) -> u32 {
    debug_assert!(n > 0);
    let n = u64::from(n);
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u32
}

/// Returns `true` with probability `percent / 100`.
#[inline]
pub(super) fn chance(rng: &mut impl Rng, percent: u32) -> bool {
    below(rng, 100) < percent
}

/// Picks a uniform element of a non-empty list.
#[inline]
pub(super) fn pick<'a>(rng: &mut impl Rng, items: &[&'a str]) -> &'a str {
    items[below(rng, items.len() as u32) as usize]
}

/// Picks an element of a list ordered by popularity, the first about twice as likely as the
/// middle one and the last almost never (the minimum of two uniforms), so common names repeat
/// as they do in real address books.
#[inline]
pub(super) fn pick_popular<'a>(rng: &mut impl Rng, items: &[&'a str]) -> &'a str {
    let n = items.len() as u32;
    items[below(rng, n).min(below(rng, n)) as usize]
}

/// Appends `n` in decimal.
#[inline]
pub(super) fn push_decimal(out: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// A cumulative-weight table: draws index `i` with probability `weights[i] / sum(weights)`.
pub(super) struct WeightedIndex {
    /// `ends[i]` is the sum of the weights up to and including `i`.
    pub(super) ends: Vec<u32>,
}

impl WeightedIndex {
    pub(super) fn new(weights: impl IntoIterator<Item = u32>) -> Self {
        let ends: Vec<u32> = weights
            .into_iter()
            .scan(0u32, |sum, w| {
                *sum += w;
                Some(*sum)
            })
            .collect();
        assert!(ends.last().is_some_and(|&t| t > 0), "weights sum to zero");
        WeightedIndex { ends }
    }

    #[inline]
    pub(super) fn sample(&self, rng: &mut impl Rng) -> usize {
        let r = below(rng, *self.ends.last().expect("non-empty by construction"));
        self.ends.partition_point(|&end| end <= r)
    }
}

/// How a local part is built from a person's names; the weights are rough shares among
/// personal addresses.
#[derive(Clone, Copy, Debug)]
pub(super) enum Pattern {
    /// `john.smith`, `john_smith`, `johnsmith`, sometimes with digits: the classic.
    FirstSepLast,
    /// `jsmith`, `jsmith42`.
    InitialLast,
    /// `johnsmith1987`: the name was taken, so digits were added.
    FirstLastDigits,
    /// `john.s`, `john_s88`.
    FirstSepInitial,
    /// `smith.john`.
    LastSepFirst,
    /// `john.r.smith`.
    FirstMiddleLast,
    /// `john1987`.
    FirstDigits,
    /// `shadowwolf99`, `sunny_2004`.
    NicknameDigits,
}

pub(super) const PATTERNS: &[(Pattern, u32)] = &[
    (Pattern::FirstSepLast, 30),
    (Pattern::InitialLast, 14),
    (Pattern::FirstLastDigits, 14),
    (Pattern::FirstSepInitial, 7),
    (Pattern::LastSepFirst, 7),
    (Pattern::FirstMiddleLast, 4),
    (Pattern::FirstDigits, 12),
    (Pattern::NicknameDigits, 12),
];

pub(super) const SEPARATORS: &[(&str, u32)] = &[(".", 45), ("_", 20), ("-", 5), ("", 30)];

/// Draws e-mail addresses; holds the cumulative tables built from the weighted lists below.
pub(super) struct EmailGenerator {
    pub(super) cultures: WeightedIndex,
    pub(super) patterns: WeightedIndex,
    pub(super) separators: WeightedIndex,
    /// Over [`WEBMAIL_DOMAINS`] plus one last entry standing for the generated long tail.
    pub(super) domains: WeightedIndex,
    pub(super) tlds: WeightedIndex,
    /// [`cultures`], looked up once here rather than at every key.
    pub(super) people: &'static [Culture],
}

impl EmailGenerator {
    pub(super) fn new() -> Self {
        EmailGenerator {
            cultures: WeightedIndex::new(cultures().iter().map(|c| c.weight)),
            patterns: WeightedIndex::new(PATTERNS.iter().map(|p| p.1)),
            separators: WeightedIndex::new(SEPARATORS.iter().map(|s| s.1)),
            domains: WeightedIndex::new(
                WEBMAIL_DOMAINS
                    .iter()
                    .map(|d| d.1)
                    .chain([LONG_TAIL_WEIGHT]),
            ),
            tlds: WeightedIndex::new(COMPANY_TLDS.iter().map(|t| t.1)),
            people: cultures(),
        }
    }

    pub(super) fn separator(&self, rng: &mut impl Rng) -> &'static str {
        SEPARATORS[self.separators.sample(rng)].0
    }

    /// Appends the name part of a local part (the text before `@`) and returns the chance, in
    /// percent, that the person added digits to it.
    pub(super) fn local_base(&self, rng: &mut impl Rng, out: &mut Vec<u8>) -> u32 {
        let culture = &self.people[self.cultures.sample(rng)];
        // Most people carry a surname of their first name's culture; the rest mixes.
        let surname_culture = if chance(rng, 88) {
            culture
        } else {
            &self.people[self.cultures.sample(rng)]
        };
        let first = pick_popular(rng, &culture.first).as_bytes();
        let last = pick_popular(rng, &surname_culture.last).as_bytes();

        match PATTERNS[self.patterns.sample(rng)].0 {
            Pattern::FirstSepLast => {
                out.extend_from_slice(first);
                out.extend_from_slice(self.separator(rng).as_bytes());
                out.extend_from_slice(last);
                20
            }
            Pattern::InitialLast => {
                out.push(first[0]);
                out.extend_from_slice(last);
                35
            }
            Pattern::FirstLastDigits => {
                out.extend_from_slice(first);
                out.extend_from_slice(last);
                100
            }
            Pattern::FirstSepInitial => {
                out.extend_from_slice(first);
                out.extend_from_slice(self.separator(rng).as_bytes());
                out.push(last[0]);
                40
            }
            Pattern::LastSepFirst => {
                out.extend_from_slice(last);
                out.extend_from_slice(self.separator(rng).as_bytes());
                out.extend_from_slice(first);
                20
            }
            Pattern::FirstMiddleLast => {
                let sep = self.separator(rng).as_bytes();
                out.extend_from_slice(first);
                out.extend_from_slice(sep);
                out.push(b'a' + below(rng, 26) as u8);
                out.extend_from_slice(sep);
                out.extend_from_slice(last);
                10
            }
            Pattern::FirstDigits => {
                out.extend_from_slice(first);
                100
            }
            Pattern::NicknameDigits => {
                out.extend_from_slice(pick(rng, NICKNAMES).as_bytes());
                match below(rng, 10) {
                    0..=2 => out.extend_from_slice(pick(rng, NICKNAMES).as_bytes()),
                    3 => out.extend_from_slice(first),
                    _ => {}
                }
                if chance(rng, 25) {
                    out.push(b'_');
                }
                100
            }
        }
    }

    /// Appends a domain.
    pub(super) fn domain(&self, rng: &mut impl Rng, out: &mut Vec<u8>) {
        match WEBMAIL_DOMAINS.get(self.domains.sample(rng)) {
            Some(&(domain, _)) => out.extend_from_slice(domain.as_bytes()),
            None => self.long_tail_domain(rng, out),
        }
    }

    /// Appends a company, country or university domain: about 700k possible names, each rare.
    pub(super) fn long_tail_domain(&self, rng: &mut impl Rng, out: &mut Vec<u8>) {
        if chance(rng, 10) {
            out.extend_from_slice(pick(rng, UNIVERSITY_DOMAINS).as_bytes());
            return;
        }
        out.extend_from_slice(pick(rng, COMPANY_WORDS).as_bytes());
        match below(rng, 100) {
            0..=39 => out.extend_from_slice(pick(rng, COMPANY_SUFFIXES).as_bytes()),
            40..=64 => out.extend_from_slice(pick(rng, COMPANY_WORDS).as_bytes()),
            65..=79 => {
                out.push(b'-');
                out.extend_from_slice(pick(rng, COMPANY_SUFFIXES).as_bytes());
            }
            _ => {}
        }
        out.push(b'.');
        out.extend_from_slice(COMPANY_TLDS[self.tlds.sample(rng)].0.as_bytes());
    }
}

/// Appends the digits people add to a name, birth years first. `attempt` counts the addresses
/// already found taken for this name: after a few, people resort to longer numbers, which also
/// bounds the retries for very popular names.
pub(super) fn push_digits(rng: &mut impl Rng, out: &mut Vec<u8>, attempt: u32) {
    if attempt >= 3 {
        // 3..=5 -> up to 4 digits, 6..=8 -> 5 digits, ..., capped at 9 digits.
        let width = (attempt / 3 + 3).min(9);
        push_decimal(out, below(rng, 10u32.pow(width)));
        return;
    }
    match below(rng, 100) {
        0..=34 => push_decimal(out, 1950 + below(rng, 61)),
        35..=46 => {
            // Two-digit birth year, zero padded as people write it: 1950..=2010 -> "50".."10".
            let year = (50 + below(rng, 61)) % 100;
            push_two_digits(out, year);
        }
        47..=71 => push_decimal(out, 1 + below(rng, 99)),
        72..=84 => push_decimal(out, 100 + below(rng, 900)),
        85..=94 => {
            // A birthday, day then month ("0712"); days stop at 28 so every date exists.
            push_two_digits(out, 1 + below(rng, 28));
            push_two_digits(out, 1 + below(rng, 12));
        }
        _ => push_decimal(out, 1000 + below(rng, 9000)),
    }
}

/// Appends `n < 100` as exactly two digits.
#[inline]
pub(super) fn push_two_digits(out: &mut Vec<u8>, n: u32) {
    debug_assert!(n < 100);
    out.push(b'0' + (n / 10) as u8);
    out.push(b'0' + (n % 10) as u8);
}
