//! Word lists. Lower-case ASCII transliterations, each list roughly by decreasing
//! popularity. Changing any list or weight changes the output: bump GENERATOR_VERSION.
//! The people's names, thirteen cultures of two lists each, are data (`cultures.txt`), read
//! once; the shorter lists of nicknames and domains stay here.

use std::sync::OnceLock;

/// First and last names of one culture, and its share of people.
#[derive(Debug)]
pub(super) struct Culture {
    pub(super) first: Vec<&'static str>,
    pub(super) last: Vec<&'static str>,
    pub(super) weight: u32,
}

/// The culture blocks of `cultures.txt` (its header gives the format), parsed once.
static CULTURE_TEXT: &str = include_str!("cultures.txt");

/// Every culture, in the order of `cultures.txt`, parsed on first use.
pub(super) fn cultures() -> &'static [Culture] {
    static PARSED: OnceLock<Vec<Culture>> = OnceLock::new();
    PARSED.get_or_init(|| {
        parse_cultures(CULTURE_TEXT).unwrap_or_else(|e| panic!("cultures.txt: {e}"))
    })
}

/// Reads culture blocks; an error names the first line that is not of the format.
pub(super) fn parse_cultures(text: &'static str) -> Result<Vec<Culture>, String> {
    let mut cultures: Vec<Culture> = Vec::new();
    let mut in_first = true;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("culture:") {
            cultures.push(Culture {
                first: Vec::new(),
                last: Vec::new(),
                weight: 0,
            });
            in_first = true;
            continue;
        }
        let culture = cultures
            .last_mut()
            .ok_or_else(|| format!("line {}: words before the first `culture:`", i + 1))?;
        if let Some(w) = line.strip_prefix("weight:") {
            culture.weight = w
                .trim()
                .parse()
                .map_err(|e| format!("line {}: {e}", i + 1))?;
        } else if line == "first:" || line == "last:" {
            in_first = line == "first:";
        } else if in_first {
            culture.first.extend(line.split_whitespace());
        } else {
            culture.last.extend(line.split_whitespace());
        }
    }
    Ok(cultures)
}

#[rustfmt::skip]
pub(super) const NICKNAMES: &[&str] = &[
    "shadow", "dragon", "sunny", "angel", "star", "tiger", "ninja", "gamer", "rocket", "pixel",
    "ghost", "lucky", "cool", "happy", "crazy", "magic", "storm", "wolf", "eagle", "phoenix",
    "blue", "red", "silver", "golden", "dark", "little", "big", "super", "mega", "ultra",
    "cyber", "techie", "sweet", "cute", "honey", "baby", "princess", "king", "queen", "boss",
    "ace", "hero", "jedi", "viking", "pirate", "sniper", "hunter", "rider", "surfer", "skater",
    "dancer", "singer", "music", "rock", "metal", "soccer", "football", "hockey", "tennis",
    "runner", "biker", "coder", "hacker", "geek", "nerd", "panda", "kitty", "puppy", "bunny",
    "foxy", "moon", "sun", "sky", "ocean", "river", "fire", "ice", "snow", "thunder",
    "lightning", "cosmic", "alpha", "omega", "zero", "maverick", "legend", "wizard", "kiddo",
    "buddy", "champ", "smiley", "daisy", "rose", "lily", "cherry", "peach", "mango", "coco",
    "candy", "sugar",
];

/// Webmail and ISP domains with weights in per-mille of all addresses; together with
/// [`LONG_TAIL_WEIGHT`] they sum to 1000.
pub(super) const WEBMAIL_DOMAINS: &[(&str, u32)] = &[
    ("gmail.com", 350),
    ("yahoo.com", 70),
    ("hotmail.com", 65),
    ("outlook.com", 45),
    ("icloud.com", 30),
    ("aol.com", 10),
    ("live.com", 10),
    ("msn.com", 4),
    ("protonmail.com", 4),
    ("proton.me", 2),
    ("zoho.com", 2),
    ("gmx.de", 10),
    ("gmx.net", 5),
    ("web.de", 10),
    ("t-online.de", 6),
    ("mail.ru", 15),
    ("yandex.ru", 12),
    ("rambler.ru", 3),
    ("qq.com", 20),
    ("163.com", 12),
    ("126.com", 5),
    ("sina.com", 3),
    ("naver.com", 6),
    ("daum.net", 2),
    ("yahoo.co.jp", 5),
    ("orange.fr", 8),
    ("free.fr", 6),
    ("laposte.net", 4),
    ("sfr.fr", 3),
    ("wanadoo.fr", 3),
    ("hotmail.fr", 5),
    ("yahoo.fr", 4),
    ("libero.it", 5),
    ("yahoo.co.uk", 6),
    ("hotmail.co.uk", 5),
    ("btinternet.com", 4),
    ("comcast.net", 6),
    ("verizon.net", 3),
    ("att.net", 3),
    ("sbcglobal.net", 2),
    ("rediffmail.com", 5),
    ("yahoo.co.in", 4),
    ("uol.com.br", 3),
    ("bol.com.br", 3),
    ("terra.com.br", 2),
    ("yahoo.com.br", 3),
    ("hotmail.es", 3),
    ("yahoo.es", 2),
    ("yahoo.com.mx", 2),
];

/// Share (per mille) of addresses at generated company, country and university domains.
pub(super) const LONG_TAIL_WEIGHT: u32 = 200;

#[rustfmt::skip]
pub(super) const COMPANY_WORDS: &[&str] = &[
    "acme", "apex", "atlas", "aurora", "axis", "beacon", "bright", "cedar", "crest", "crown",
    "delta", "echo", "edge", "ember", "evergreen", "falcon", "fusion", "global", "granite",
    "harbor", "horizon", "hudson", "iron", "jade", "keystone", "lake", "legacy", "liberty",
    "lotus", "maple", "meridian", "metro", "north", "nova", "oak", "omni", "orbit", "pacific",
    "peak", "pine", "pioneer", "prime", "quantum", "radiant", "river", "rock", "sage",
    "sapphire", "sky", "solar", "spark", "sterling", "stone", "summit", "swift", "terra",
    "titan", "trinity", "union", "united", "urban", "valley", "vertex", "vista", "west",
    "zenith", "nile", "sahara", "oasis", "desert", "pearl", "gulf", "andes", "sierra", "pampa",
    "rio", "sol", "luna", "alpine", "nordic", "baltic", "danube", "rhine", "loire", "provence",
    "bengal", "ganges", "indus", "fuji", "bamboo", "jasmine", "saffron", "cinnamon", "coral",
    "cairo", "nubia", "atlasmaroc", "medina", "emirates", "najd", "levant", "carthage",
    "deccan", "kerala", "yangtze", "pearlriver", "volga", "ural", "amazonia", "iberia",
    "gallia", "bavaria", "alba", "cambria", "albion", "lagos", "sahel", "anatolia", "bosphorus",
];

#[rustfmt::skip]
pub(super) const COMPANY_SUFFIXES: &[&str] = &[
    "tech", "labs", "group", "consulting", "systems", "solutions", "media", "logistics",
    "capital", "health", "foods", "energy", "bank", "motors", "pharma", "telecom", "design",
    "studio", "partners", "holdings", "industries", "software", "digital", "networks",
    "ventures", "trading", "construction", "realty", "insurance", "law", "clinic", "school",
    "travel", "airways", "shipping", "textiles", "retail", "analytics", "data", "cloud",
    "security", "robotics", "bio",
];

/// Top-level domains of generated company domains, with relative weights.
pub(super) const COMPANY_TLDS: &[(&str, u32)] = &[
    ("com", 300),
    ("net", 40),
    ("org", 40),
    ("io", 25),
    ("co", 20),
    ("biz", 5),
    ("info", 5),
    ("co.uk", 50),
    ("de", 50),
    ("fr", 40),
    ("es", 25),
    ("it", 25),
    ("nl", 15),
    ("be", 10),
    ("ch", 10),
    ("at", 8),
    ("se", 8),
    ("pl", 10),
    ("ru", 20),
    ("com.tr", 8),
    ("eg", 15),
    ("com.eg", 10),
    ("sa", 12),
    ("com.sa", 8),
    ("ae", 15),
    ("ma", 12),
    ("dz", 6),
    ("tn", 6),
    ("qa", 6),
    ("jo", 5),
    ("lb", 5),
    ("in", 30),
    ("co.in", 15),
    ("pk", 6),
    ("cn", 15),
    ("com.cn", 8),
    ("jp", 10),
    ("co.jp", 8),
    ("kr", 6),
    ("com.br", 25),
    ("com.mx", 15),
    ("com.ar", 10),
    ("cl", 6),
    ("ca", 20),
    ("com.au", 15),
    ("co.za", 10),
    ("ng", 8),
    ("com.ng", 5),
    ("ke", 5),
];

#[rustfmt::skip]
pub(super) const UNIVERSITY_DOMAINS: &[&str] = &[
    "cu.edu.eg", "alexu.edu.eg", "aucegypt.edu", "ksu.edu.sa", "kau.edu.sa", "uaeu.ac.ae",
    "um5.ac.ma", "aub.edu.lb", "ju.edu.jo", "iitb.ac.in", "iitd.ac.in", "du.ac.in",
    "ox.ac.uk", "cam.ac.uk", "ucl.ac.uk", "ed.ac.uk", "mit.edu", "stanford.edu",
    "berkeley.edu", "umich.edu", "nyu.edu", "utexas.edu", "uni-muenchen.de", "tum.de",
    "fu-berlin.de", "uni-heidelberg.de", "sorbonne-universite.fr", "univ-lyon1.fr",
    "polytechnique.edu", "ucm.es", "ub.edu", "unimi.it", "usp.br", "unicamp.br", "unam.mx",
    "tsinghua.edu.cn", "pku.edu.cn", "u-tokyo.ac.jp", "kyoto-u.ac.jp", "msu.ru", "spbu.ru",
    "utoronto.ca", "mcgill.ca", "unimelb.edu.au", "uct.ac.za", "unilag.edu.ng", "uonbi.ac.ke",
    "metu.edu.tr", "boun.edu.tr",
];
