//! Word lists. Lower-case ASCII transliterations, each list roughly by decreasing
//! popularity. Changing any list or weight changes the output: bump GENERATOR_VERSION.

/// First and last names of one culture, and its share of people.
pub(super) struct Culture {
    pub(super) first: &'static [&'static str],
    pub(super) last: &'static [&'static str],
    pub(super) weight: u32,
}

#[rustfmt::skip]
pub(super) const CULTURES: &[Culture] = &[
    Culture {
        // English-speaking countries.
        first: &[
            "james", "mary", "john", "patricia", "robert", "jennifer", "michael", "linda",
            "william", "elizabeth", "david", "barbara", "richard", "susan", "joseph", "jessica",
            "thomas", "sarah", "charles", "karen", "christopher", "emily", "daniel", "emma",
            "matthew", "olivia", "anthony", "sophie", "mark", "hannah", "paul", "laura", "steven",
            "rachel", "andrew", "amy", "kevin", "chloe", "brian", "megan", "george", "lucy",
            "edward", "grace", "ryan", "alice", "jack", "charlotte", "oliver", "amelia",
        ],
        last: &[
            "smith", "johnson", "williams", "brown", "jones", "miller", "davis", "wilson",
            "anderson", "taylor", "thomas", "moore", "jackson", "martin", "thompson", "white",
            "harris", "clark", "lewis", "robinson", "walker", "young", "allen", "king", "wright",
            "scott", "green", "baker", "adams", "hill", "campbell", "evans", "roberts", "turner",
            "phillips", "parker", "edwards", "collins", "stewart", "morris", "murphy", "cook",
            "rogers", "cooper", "bell", "ward", "hughes", "wood", "obrien", "kelly",
        ],
        weight: 28,
    },
    Culture {
        // Spanish-speaking countries.
        first: &[
            "jose", "maria", "juan", "carmen", "luis", "ana", "carlos", "lucia", "javier",
            "laura", "miguel", "elena", "antonio", "isabel", "manuel", "sofia", "francisco",
            "paula", "alejandro", "marta", "pablo", "cristina", "diego", "valentina", "jorge",
            "camila", "fernando", "daniela", "sergio", "gabriela", "raul", "andrea",
        ],
        last: &[
            "garcia", "rodriguez", "martinez", "hernandez", "lopez", "gonzalez", "perez",
            "sanchez", "ramirez", "torres", "flores", "rivera", "gomez", "diaz", "morales",
            "reyes", "cruz", "ortiz", "gutierrez", "chavez", "ramos", "ruiz", "alvarez",
            "mendoza", "castillo", "jimenez", "moreno", "romero", "herrera", "medina", "vargas",
            "castro",
        ],
        weight: 12,
    },
    Culture {
        // French.
        first: &[
            "jean", "marie", "pierre", "camille", "louis", "lea", "nicolas", "manon", "julien",
            "chloe", "antoine", "juliette", "francois", "claire", "thomas", "ines", "mathieu",
            "margaux", "guillaume", "pauline", "alexandre", "amelie", "benoit", "helene",
            "olivier", "celine", "sebastien", "aurelie", "yannick", "elodie", "theo", "oceane",
        ],
        last: &[
            "martin", "bernard", "dubois", "durand", "leroy", "moreau", "simon", "laurent",
            "lefebvre", "michel", "lefevre", "fontaine", "rousseau", "vincent", "muller",
            "fournier", "girard", "bonnet", "dupont", "lambert", "mercier", "blanc", "guerin",
            "boyer", "garnier", "chevalier", "francois", "legrand", "gauthier", "roussel",
            "faure", "perrin",
        ],
        weight: 6,
    },
    Culture {
        // German.
        first: &[
            "lukas", "anna", "felix", "lena", "jonas", "katharina", "maximilian", "julia", "leon",
            "johanna", "tobias", "lisa", "florian", "sabine", "stefan", "ursula", "juergen",
            "petra", "klaus", "monika", "andreas", "birgit", "uwe", "anja", "dieter", "heike",
            "sven", "kerstin", "matthias", "silke",
        ],
        last: &[
            "mueller", "schmidt", "schneider", "fischer", "weber", "meyer", "wagner", "becker",
            "schulz", "hoffmann", "schaefer", "koch", "bauer", "richter", "klein", "wolf",
            "schroeder", "neumann", "schwarz", "zimmermann", "braun", "krueger", "hofmann",
            "hartmann", "lange", "schmitt", "werner", "krause", "meier", "lehmann",
        ],
        weight: 6,
    },
    Culture {
        // Arabic, as commonly transliterated in Egypt, the Gulf and the Maghreb.
        first: &[
            "mohamed", "ahmed", "mohammed", "ali", "omar", "fatima", "aisha", "youssef",
            "khaled", "hassan", "hussein", "mahmoud", "mustafa", "ibrahim", "abdullah", "layla",
            "mariam", "nour", "salma", "yasmin", "karim", "tarek", "amr", "hamza", "bilal",
            "samir", "rania", "hala", "dina", "sara", "walid", "ziad", "abdelrahman", "zainab",
        ],
        last: &[
            "elsayed", "hassan", "hussein", "ali", "mohamed", "ibrahim", "mahmoud", "abdelaziz",
            "saleh", "khalil", "haddad", "nasser", "mansour", "farouk", "hamdan", "qasim", "aziz",
            "rahman", "suleiman", "alamri", "alharbi", "alghamdi", "alzahrani", "alotaibi",
            "elmasry", "benali", "benjelloun", "elidrissi", "alaoui", "chaoui", "bakr",
            "darwish",
        ],
        weight: 9,
    },
    Culture {
        // Indian.
        first: &[
            "aarav", "priya", "rahul", "ananya", "amit", "pooja", "rohan", "neha", "vikram",
            "divya", "arjun", "sneha", "sanjay", "kavya", "rajesh", "deepika", "suresh",
            "anjali", "vijay", "meera", "karthik", "lakshmi", "aditya", "shreya", "nikhil",
            "swati", "ravi", "isha", "manish", "aishwarya", "arun", "gayatri",
        ],
        last: &[
            "sharma", "patel", "singh", "kumar", "gupta", "reddy", "iyer", "nair", "rao",
            "joshi", "mehta", "shah", "agarwal", "verma", "mishra", "chopra", "malhotra", "bhat",
            "pillai", "menon", "das", "banerjee", "chatterjee", "mukherjee", "desai", "kapoor",
            "saxena", "jain", "naidu", "kulkarni", "chauhan", "thakur",
        ],
        weight: 12,
    },
    Culture {
        // Chinese, in pinyin without tone marks.
        first: &[
            "wei", "fang", "min", "jing", "jun", "yan", "lei", "hui", "xin", "ying", "hao", "yu",
            "qiang", "ling", "tao", "jie", "mei", "xiaoming", "xiaoyan", "yifan", "zihan",
            "yuxuan", "haoran", "jiayi", "zhiwei", "xinyi", "junjie", "yutong", "hongwei", "lina",
        ],
        last: &[
            "wang", "li", "zhang", "liu", "chen", "yang", "huang", "zhao", "wu", "zhou", "xu",
            "sun", "ma", "zhu", "hu", "guo", "he", "lin", "gao", "luo", "zheng", "liang", "xie",
            "song", "tang", "han", "feng", "deng", "cao", "peng", "zeng", "xiao",
        ],
        weight: 10,
    },
    Culture {
        // Russian, in the common passport transliteration.
        first: &[
            "alexander", "dmitry", "ivan", "sergey", "andrey", "alexey", "maxim", "nikolai",
            "mikhail", "vladimir", "pavel", "artem", "olga", "tatiana", "natalia", "irina",
            "svetlana", "ekaterina", "anastasia", "yulia", "daria", "ksenia", "polina", "oksana",
            "vera", "alina", "igor", "oleg", "yuri", "anton",
        ],
        last: &[
            "ivanov", "smirnov", "kuznetsov", "popov", "vasiliev", "petrov", "sokolov",
            "mikhailov", "novikov", "fedorov", "morozov", "volkov", "alekseev", "lebedev",
            "semenov", "egorov", "pavlov", "kozlov", "stepanov", "nikolaev", "orlov", "andreev",
            "makarov", "zakharov", "ivanova", "smirnova", "petrova", "volkova", "sokolova",
            "kuznetsova",
        ],
        weight: 5,
    },
    Culture {
        // Portuguese and Brazilian.
        first: &[
            "joao", "pedro", "beatriz", "gabriel", "mariana", "lucas", "larissa", "rafael",
            "fernanda", "gustavo", "juliana", "thiago", "leticia", "bruno", "amanda", "felipe",
            "bianca", "matheus", "vitoria", "rodrigo", "renata", "leandro", "caio", "tatiane",
            "vinicius", "eduardo", "carolina",
        ],
        last: &[
            "silva", "santos", "oliveira", "souza", "lima", "pereira", "ferreira", "costa",
            "rodrigues", "almeida", "nascimento", "alves", "carvalho", "araujo", "ribeiro",
            "gomes", "barbosa", "rocha", "dias", "moreira", "cardoso", "teixeira", "correia",
            "mendes", "freitas", "pinto", "cavalcanti", "monteiro", "batista", "azevedo",
        ],
        weight: 6,
    },
    Culture {
        // Italian.
        first: &[
            "giuseppe", "giovanni", "marco", "francesca", "alessandro", "giulia", "luca",
            "chiara", "matteo", "federica", "andrea", "valentina", "lorenzo", "alessia",
            "davide", "martina", "simone", "silvia", "stefano", "elisa", "riccardo", "roberta",
            "fabio", "serena", "paolo", "giorgia",
        ],
        last: &[
            "rossi", "russo", "ferrari", "esposito", "bianchi", "romano", "colombo", "ricci",
            "marino", "greco", "bruno", "gallo", "conti", "deluca", "mancini", "costa",
            "giordano", "rizzo", "lombardi", "moretti", "barbieri", "fontana", "santoro",
            "mariani", "rinaldi", "caruso", "ferrara", "galli",
        ],
        weight: 3,
    },
    Culture {
        // Japanese, in Hepburn romanisation without macrons.
        first: &[
            "hiroshi", "yuki", "takashi", "haruka", "kenji", "yui", "satoshi", "aoi", "daisuke",
            "sakura", "kazuki", "misaki", "shota", "nanami", "ryota", "ayaka", "takumi", "mai",
            "yuto", "hina", "kenta", "rina", "sho", "emi",
        ],
        last: &[
            "sato", "suzuki", "takahashi", "tanaka", "watanabe", "ito", "yamamoto", "nakamura",
            "kobayashi", "kato", "yoshida", "yamada", "sasaki", "yamaguchi", "matsumoto",
            "inoue", "kimura", "hayashi", "shimizu", "yamazaki", "mori", "abe", "ikeda",
            "hashimoto",
        ],
        weight: 3,
    },
    Culture {
        // Nigerian (Igbo, Yoruba, Hausa).
        first: &[
            "chinedu", "ngozi", "emeka", "adaeze", "oluwaseun", "funmilayo", "tunde", "bola",
            "chukwuemeka", "amaka", "ifeanyi", "yetunde", "babajide", "kemi", "obinna", "nneka",
            "segun", "titilayo", "uche", "chioma",
        ],
        last: &[
            "okafor", "adeyemi", "okonkwo", "nwosu", "balogun", "adebayo", "eze", "obi",
            "okeke", "olawale", "afolabi", "ogunleye", "chukwu", "nwachukwu", "adeleke", "bello",
            "abubakar", "musa", "danjuma", "ibrahim",
        ],
        weight: 2,
    },
    Culture {
        // Turkish, with diacritics folded to ASCII.
        first: &[
            "mehmet", "ayse", "mustafa", "fatma", "ahmet", "emine", "ali", "zeynep", "huseyin",
            "elif", "murat", "hatice", "emre", "merve", "burak", "esra", "can", "selin", "kemal",
            "ozlem",
        ],
        last: &[
            "yilmaz", "kaya", "demir", "sahin", "celik", "yildiz", "yildirim", "ozturk", "aydin",
            "ozdemir", "arslan", "dogan", "kilic", "aslan", "cetin", "kara", "koc", "kurt",
            "ozkan", "simsek",
        ],
        weight: 3,
    },
];

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
