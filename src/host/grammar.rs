//! A command's grammar: the declared arguments are the only description of
//! a command's syntax, and everything reads them: the parser that turns a
//! call into typed values, the key positions (COMMAND GETKEYS, ACL, Cluster),
//! the key specs and arity the server is told, COMMAND DOCS, the usage line
//! of a syntax error, and the check that no value can be taken for a keyword.
//!
//! The shapes follow Redis's own unambiguous grammars:
//! - positionals at fixed places (`key member amount`);
//! - options: a keyword and a fixed number of typed values (`AT unix-ms`,
//!   `LEASE inflight ms`), or a keyword alone (`SHARED`), in any order
//!   within their group, each at most once;
//! - lists, either counted by an earlier integer (`numkeys key [key ...]`,
//!   `WEIGHTS w [w ...]`) or introduced by a keyword after which every
//!   argument is a value (`ITEMS a b c`, as `XREAD ... STREAMS` does), or at
//!   the end, of a type no option keyword can spell (`score member ...` after
//!   `[CAP n]`, as ZADD does).
//!
//! [`ambiguity`] proves the last part for each declaration: no grammar may
//! let a value stand where a keyword is looked for.
//!
//! Plain Rust on byte strings, so it is unit-tested without a server.

use std::cell::RefCell;
use std::fmt::Write as _;

/// One declared argument.
pub struct Arg {
    pub name: &'static str,
    pub kind: ArgKind,
    /// The keyword before the value(s): `AT` in `AT unix-ms`.
    pub token: Option<&'static str>,
    pub optional: bool,
    pub multiple: bool,
    /// For a list: the name of the earlier count that says how many items
    /// it holds (`numkeys`).
    pub counted_by: Option<&'static str>,
    /// An integer that counts a later list ([`Arg::count`]): the parse
    /// takes it, and a request reads the list, never the count.
    pub is_count: bool,
    /// An option several commands share, read apart from the command's
    /// own request ([`Arg::read_apart`]).
    pub is_read_apart: bool,
    /// What a command's request passes over when it reads the next value:
    /// [`SKIP_COUNT`] for a count, [`SKIP_APART`] for an option read apart.
    skip: u8,
    /// The version that added it (for options newer than their command).
    pub since: Option<&'static str>,
    /// [`Arg::nodes`], counted when the declaration is built: a parse walks
    /// them on every call.
    node_count: usize,
    /// [`Arg::item_width`] and [`Arg::is_option`], worked out when the
    /// declaration is built (each builder step keeps them true), for the
    /// same reason.
    width: usize,
    option: bool,
    /// A required value standing alone: no keyword, not a list, not a
    /// one-of or block. The parse takes it in one step.
    plain: bool,
}

pub enum ArgKind {
    /// A key name, with the key-spec flags of what the command does to it.
    Key(u32),
    String,
    Integer,
    Double,
    UnixTime,
    PureToken,
    OneOf(&'static [Arg]),
    Block(&'static [Arg]),
}

impl Arg {
    const fn new(name: &'static str, kind: ArgKind) -> Arg {
        Arg {
            name,
            token: None,
            optional: false,
            multiple: false,
            counted_by: None,
            is_count: false,
            is_read_apart: false,
            skip: 0,
            since: None,
            node_count: match kind {
                ArgKind::Block(parts) | ArgKind::OneOf(parts) => 1 + const_nodes(parts),
                _ => 1,
            },
            width: match kind {
                ArgKind::PureToken => 0,
                ArgKind::Block(parts) => {
                    let mut sum = 0;
                    let mut i = 0;
                    while i < parts.len() {
                        sum += parts[i].min_width();
                        i += 1;
                    }
                    sum
                }
                ArgKind::OneOf(choices) => {
                    let mut least = 0;
                    let mut i = 0;
                    while i < choices.len() {
                        let width = choices[i].min_width();
                        if i == 0 || width < least {
                            least = width;
                        }
                        i += 1;
                    }
                    least
                }
                _ => 1,
            },
            option: false,
            plain: matches!(
                kind,
                ArgKind::Key(_)
                    | ArgKind::String
                    | ArgKind::Integer
                    | ArgKind::Double
                    | ArgKind::UnixTime
            ),
            kind,
        }
    }

    /// A key the command touches with `flags` (`key_flags`).
    pub const fn key(name: &'static str, flags: u32) -> Arg {
        Arg::new(name, ArgKind::Key(flags))
    }

    pub const fn string(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::String)
    }

    pub const fn integer(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::Integer)
    }

    /// An integer (at least 1) that says how many items a later list holds
    /// (`numkeys key [key ...]`, the list declared
    /// [`counted_by`](Arg::counted_by) it). The grammar consumes it: the
    /// typed request holds the list, whose length is the count.
    pub const fn count(name: &'static str) -> Arg {
        let mut arg = Arg::new(name, ArgKind::Integer);
        arg.is_count = true;
        arg.skip = SKIP_COUNT;
        arg
    }

    pub const fn double(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::Double)
    }

    pub const fn unix_time(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::UnixTime)
    }

    /// A keyword that stands alone (`UP`, `SHARED`).
    pub const fn pure_token(name: &'static str, token: &'static str) -> Arg {
        Arg::new(name, ArgKind::PureToken).token(token)
    }

    pub const fn one_of(name: &'static str, choices: &'static [Arg]) -> Arg {
        Arg::new(name, ArgKind::OneOf(choices))
    }

    pub const fn block(name: &'static str, parts: &'static [Arg]) -> Arg {
        Arg::new(name, ArgKind::Block(parts))
    }

    /// Preceded by a keyword (`AT unix-ms`); with [`Arg::multiple`], the
    /// keyword introduces the list and everything after it is a value.
    pub const fn token(mut self, token: &'static str) -> Arg {
        let bytes = token.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            assert!(
                bytes[i].is_ascii_uppercase(),
                "a keyword is declared in upper-case letters"
            );
            i += 1;
        }
        self.token = Some(token);
        self.option = self.optional;
        self.plain = false;
        self
    }

    pub const fn optional(mut self) -> Arg {
        self.optional = true;
        self.option = self.has_keyword();
        self.plain = false;
        self
    }

    pub const fn multiple(mut self) -> Arg {
        self.multiple = true;
        self.plain = false;
        self
    }

    /// A list of as many items as the earlier [`Arg::count`] `count` says.
    pub const fn counted_by(mut self, count: &'static str) -> Arg {
        self.multiple = true;
        self.counted_by = Some(count);
        self.plain = false;
        self
    }

    /// An option several commands share (`IDMP seen-key event-id`), declared
    /// where each command's syntax puts it but read by one wrapper every
    /// such command goes through ([`Request::apart`]): the command's own
    /// request passes over it.
    pub const fn read_apart(mut self) -> Arg {
        self.is_read_apart = true;
        self.skip = SKIP_APART;
        self
    }

    /// Added in `version`.
    pub const fn since(mut self, version: &'static str) -> Arg {
        self.since = Some(version);
        self
    }

    /// An option: optional and found by its keyword (or its choices').
    #[inline(always)]
    fn is_option(&self) -> bool {
        self.option
    }

    /// Whether a keyword starts this argument (or one of its choices).
    const fn has_keyword(&self) -> bool {
        match (self.token, &self.kind) {
            (Some(_), _) => true,
            (None, ArgKind::OneOf(choices)) => {
                let mut i = 0;
                while i < choices.len() {
                    if choices[i].has_keyword() {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            _ => false,
        }
    }

    /// How many nodes of a parsed call this argument takes: itself, then
    /// its parts or choices (see `Slot`).
    fn nodes(&self) -> usize {
        self.node_count
    }

    /// The keywords that start this argument.
    fn keywords(&self) -> Vec<&'static str> {
        match (self.token, &self.kind) {
            (Some(token), _) => vec![token],
            (None, ArgKind::OneOf(choices)) => choices.iter().flat_map(Arg::keywords).collect(),
            _ => Vec::new(),
        }
    }

    /// How many words one item of this argument takes after its keyword.
    #[inline(always)]
    pub(super) const fn item_width(&self) -> usize {
        self.width
    }

    /// The fewest words this argument takes in a call.
    pub(super) const fn min_width(&self) -> usize {
        if self.optional {
            return 0;
        }
        self.token.is_some() as usize + self.item_width()
    }
}

/// [`Arg::skip`]: a count, which the parse consumes.
const SKIP_COUNT: u8 = 1;
/// [`Arg::skip`]: an option read apart ([`Arg::read_apart`]).
const SKIP_APART: u8 = 2;

/// A mistake in a call, named so the error reply can say what to fix.
#[derive(Debug, Clone, PartialEq)]
pub enum GrammarError {
    /// Not a 64-bit integer where the grammar wants one.
    NotInteger,
    /// Not a valid float where the grammar wants one.
    NotFloat,
    /// A count (`numkeys`) below 1.
    CountTooSmall(&'static str),
    /// A count larger than the arguments that follow it.
    CountTooLarge {
        count: &'static str,
        list: &'static str,
    },
    /// The call does not fit the grammar; `usage` is the command's syntax.
    Syntax { mistake: Mistake, usage: String },
}

/// What does not fit the grammar.
#[derive(Debug, Clone, PartialEq)]
pub enum Mistake {
    /// A required argument is missing (its name).
    Missing(&'static str),
    /// An option's keyword came without all of its values.
    OptionIncomplete(&'static str),
    /// A keyword that introduces a list came without a value.
    EmptyList(&'static str),
    /// A list of groups ended inside a group (the group's names: `score
    /// member`).
    Unpaired(String),
    /// An option given twice.
    Repeated(&'static str),
    /// Two options of which only one may be given.
    Exclusive(&'static str, &'static str),
    /// A word where none is expected, or not the keyword expected there.
    Unexpected(String),
}

/// The [`Mistake`] of a call that ends before a value: passed down a
/// parse as a copy, and made a `Mistake` only when the call does end there.
#[derive(Clone, Copy)]
enum Short {
    Missing(&'static str),
    OptionIncomplete(&'static str),
}

impl From<Short> for Mistake {
    fn from(short: Short) -> Mistake {
        match short {
            Short::Missing(name) => Mistake::Missing(name),
            Short::OptionIncomplete(keyword) => Mistake::OptionIncomplete(keyword),
        }
    }
}

/// Parses a 64-bit integer exactly as Redis's `string2ll` does: no `+`, no
/// leading zeros, no spaces, within i64.
pub fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    match digits {
        [b'0'] if !negative => return Some(0),
        [b'1'..=b'9', ..] => {}
        _ => return None,
    }
    // At most 18 digits cannot overflow: one pass, eight digits at a time
    // (a unix ms has 13), then one at a time, no checked steps.
    if digits.len() <= 18 {
        let mut n = 0u64;
        let mut rest = digits;
        while let Some((eight, tail)) = rest.split_first_chunk::<8>() {
            n = n * 100_000_000 + eight_digits(u64::from_le_bytes(*eight))?;
            rest = tail;
        }
        for &d in rest {
            let digit = d.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            n = n * 10 + u64::from(digit);
        }
        // Below 10^18, so within i64 either way.
        let n = n as i64;
        return Some(if negative { -n } else { n });
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Accumulate negatively so i64::MIN parses.
    digits
        .iter()
        .try_fold(0i64, |acc, d| {
            acc.checked_mul(10)?.checked_sub(i64::from(d - b'0'))
        })
        .and_then(|n| if negative { Some(n) } else { n.checked_neg() })
}

/// The value of eight ASCII digits read as a little-endian word (the
/// first digit in the lowest byte), or `None` if a byte is not a digit: a
/// few word-wide steps instead of eight (pairs of digits, then fours, then
/// all eight, each a multiply and a shift).
#[inline(always)]
fn eight_digits(word: u64) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    // Every byte is 0x30..=0x39: its high nibble is 3, and adding 6 leaves
    // it 3 (0x3A and above would carry into it).
    let plus_six = word.wrapping_add(0x0606_0606_0606_0606);
    if (word & HIGH_NIBBLES) | ((plus_six & HIGH_NIBBLES) >> 4) != 0x3333_3333_3333_3333 {
        return None;
    }
    let digits = word - 0x3030_3030_3030_3030;
    // Each byte pair's low byte becomes ten times its digit plus the next.
    let pairs = digits * 10 + (digits >> 8);
    const PAIR_MASK: u64 = 0x0000_00FF_0000_00FF;
    // 100 + 10^6 * 2^32 and 1 + 10^4 * 2^32: the four pairs weighted into
    // the high half.
    let first = (pairs & PAIR_MASK).wrapping_mul(100 + (1_000_000 << 32));
    let second = ((pairs >> 16) & PAIR_MASK).wrapping_mul(1 + (10_000 << 32));
    Some(first.wrapping_add(second) >> 32)
}

/// Parses a double as Redis does (`inf`, `-inf`, exponents), refusing NaN
/// and, like Redis's `strtod` check, a finite number too large for a double
/// (`1e400`) or so small it would round to zero (`1e-400`).
pub fn parse_f64(bytes: &[u8]) -> Option<f64> {
    parse_short_decimal(bytes).or_else(|| parse_any_f64(bytes))
}

/// [`parse_f64`] of any word.
fn parse_any_f64(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let value = text.parse::<f64>().ok()?;
    let digits = text.trim_start_matches(['+', '-']);
    let mantissa = digits.split(['e', 'E']).next().unwrap_or_default();
    let overflowed = value.is_infinite()
        && !digits.eq_ignore_ascii_case("inf")
        && !digits.eq_ignore_ascii_case("infinity");
    let underflowed = value == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    (!value.is_nan() && !overflowed && !underflowed).then_some(value)
}

/// [`parse_f64`] of the words most calls send (`1700000000000`, `-2.5`):
/// an optional `-`, then at most 15 digits with at most one `.` between
/// two of them, or `None` for anything else. The digits as an integer and
/// the power of ten both are exact doubles (below 2^53 and 10^22), so one
/// division rounds the decimal correctly, as the full parse does, at a
/// tenth of its cost.
fn parse_short_decimal(bytes: &[u8]) -> Option<f64> {
    const POWERS: [f64; 15] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
    ];
    let (negative, text) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    if text.is_empty() || text.len() > 16 {
        return None;
    }
    let mut digits = 0u64;
    let mut count = 0;
    let mut point = None;
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                digits = digits * 10 + u64::from(b - b'0');
                count += 1;
            }
            b'.' if point.is_none() && i > 0 && i + 1 < text.len() => point = Some(i),
            _ => return None,
        }
    }
    if count > 15 {
        return None;
    }
    let decimals = point.map_or(0, |at| text.len() - at - 1);
    let value = digits as f64 / POWERS[decimals];
    Some(if negative { -value } else { value })
}

/// The most nodes one declaration holds ([`Arg::nodes`] of all its
/// arguments); `every_declaration_gives_key_specs_and_arity` (in `commands`)
/// checks each against it.
pub const MAX_NODES: usize = 16;

/// One declared argument's value in a parsed call. A declaration is a tree
/// of nodes: each argument, followed by its parts (a block) or its choices
/// (a one-of), in declaration order ([`Arg::nodes`]); a call's values sit at
/// their nodes' indices.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// An option not given, a choice not taken, or a part of a list's item
    /// (items are read from argv).
    Absent,
    /// A keyword alone, or a block option, given.
    Given,
    /// A one-of: which choice was given.
    Choice(usize),
    /// A key or a string: its argv index.
    Word(usize),
    Int(i64),
    Float(f64),
    /// A list: the argv index of its first item, and how many items (both
    /// below argc, an int: 32 bits keep a slot at 16 bytes). A list of
    /// numbers also keeps the values of its first words, as the parse
    /// checked them, in `kept` slots from index `kept_at`, past the
    /// declared nodes: its request reads them there instead of parsing the
    /// words again.
    List {
        first: u32,
        count: u32,
        kept_at: u8,
        kept: u8,
    },
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

/// Parses `argv` (the command name first) by `args`, the command `name`'s
/// grammar, telling `key` the argv index and key-spec flags of every key as
/// it is found (in argv order), then gives `then` the parsed call's request,
/// which the command's typed request reads. The parse (one [`Slot`] per
/// declared node) stays on this function's stack while `then` runs: it is
/// never copied out. On error, `key` has heard of the keys found before the
/// mistake (what COMMAND GETKEYS answers for a malformed call).
pub fn parse<A: AsRef<[u8]>, R>(
    name: &str,
    args: &'static [Arg],
    plan: &Plan,
    argv: &[A],
    key: &mut impl FnMut(usize, u32),
    then: impl FnOnce(Request<'_, A>) -> R,
) -> Result<R, GrammarError> {
    let mut slots = [Slot::Absent; MAX_NODES];
    let apart_given = fill_slots(name, args, plan, argv, key, &mut slots)?;
    Ok(then(Request {
        argv,
        slots: &slots,
        args,
        at: 0,
        node: 0,
        skip: SKIP_COUNT | SKIP_APART,
        apart_given,
        mode: Mode::Parsed,
    }))
}

/// Parses `argv` into `slots`, one per declared node; says whether an
/// option read apart ([`Arg::read_apart`]) was given.
fn fill_slots<A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    plan: &Plan,
    argv: &[A],
    key: &mut impl FnMut(usize, u32),
    slots: &mut [Slot; MAX_NODES],
) -> Result<bool, GrammarError> {
    let mut parser = Parser {
        name,
        grammar: args,
        argv,
        at: 1,
        counts: [("", 0); MAX_COUNTS],
        count_len: 0,
        apart_given: false,
        kept_next: 0,
        slots,
        key,
    };
    parser.sequence(args, plan, 0)?;
    if let Some(word) = argv.get(parser.at) {
        return Err(parser.mistake(Mistake::Unexpected(show(word.as_ref()))));
    }
    Ok(parser.apart_given)
}

/// The argv index and flags of every key of a call; for a malformed call,
/// those found before the mistake.
#[cfg(test)]
fn key_positions<A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    argv: &[A],
) -> Vec<(usize, u32)> {
    let mut keys = Vec::new();
    let _ = parse(
        name,
        args,
        &Plan::of(args),
        argv,
        &mut |position, flags| keys.push((position, flags)),
        |_| (),
    );
    keys
}

/// What the parse of a declaration works out from the declaration alone,
/// worked out once, when the declaration is built ([`Plan::of`] is a
/// `const fn`; a command keeps its plan beside its arguments), instead of
/// on every call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// For each argument that starts a group of options (a run of them):
    /// the index past the group and the nodes the group takes.
    groups: [(u8, u8); MAX_NODES],
    /// Each argument's first node.
    nodes_at: [u8; MAX_NODES],
    /// The keywords that start the options, in declaration order (an
    /// option's, or each of its choices'); `keywords_at[i]` is the range of
    /// those of the group starting at argument `i`.
    keywords: [Keyword; MAX_KEYWORDS],
    keywords_at: [(u8, u8); MAX_NODES],
}

/// The most option keywords one declaration holds.
const MAX_KEYWORDS: usize = 16;

/// A keyword an option starts with, as [`packed`] packs a word, with the
/// option's place in its group and, for a one-of, the choice it picks.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Keyword {
    /// Its bytes, the first in the lowest (0 for a keyword over 8 bytes:
    /// no packed word is 0, and such a word is compared byte by byte).
    packed: u64,
    len: u8,
    option: u8,
    choice: Option<u8>,
}

/// The keyword `token`, packed as [`packed`] packs a word that spells it.
const fn packed_keyword(token: &str) -> u64 {
    let bytes = token.as_bytes();
    if bytes.len() > 8 {
        return 0;
    }
    let mut packed = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        packed |= (bytes[i] as u64) << (8 * i);
        i += 1;
    }
    packed
}

/// A word of at most 8 bytes as a little-endian integer with each byte's
/// case bit cleared, which equals a packed keyword exactly when
/// [`is_keyword`] says the word is that keyword (the lengths equal, which
/// the caller checks); `None` for a longer word.
#[inline(always)]
fn packed(word: &[u8]) -> Option<u64> {
    let n = word.len();
    let value = match n {
        4..=8 => {
            // Two 4-byte reads that overlap when n < 8: the bytes read twice
            // are the same, so or-ing them changes nothing.
            let low = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let high = u32::from_le_bytes([word[n - 4], word[n - 3], word[n - 2], word[n - 1]]);
            u64::from(low) | u64::from(high) << (8 * (n - 4))
        }
        0..=3 => word
            .iter()
            .enumerate()
            .fold(0, |packed, (i, &b)| packed | u64::from(b) << (8 * i)),
        _ => return None,
    };
    Some(value & !0x2020_2020_2020_2020)
}

impl Plan {
    pub const fn of(args: &[Arg]) -> Plan {
        assert!(
            const_nodes(args) <= MAX_NODES,
            "a declaration holds at most MAX_NODES nodes"
        );
        let mut groups = [(0, 0); MAX_NODES];
        let mut nodes_at = [0; MAX_NODES];
        let mut keywords = [Keyword {
            packed: 0,
            len: 0,
            option: 0,
            choice: None,
        }; MAX_KEYWORDS];
        let mut keywords_at = [(0, 0); MAX_NODES];
        let mut keyword_count = 0;
        let (mut i, mut node) = (0, 0);
        while i < args.len() {
            nodes_at[i] = node as u8;
            node += args[i].node_count;
            i += 1;
        }
        i = 0;
        while i < args.len() {
            if !args[i].option {
                i += 1;
                continue;
            }
            let (mut end, mut nodes) = (i, 0);
            let first_keyword = keyword_count;
            while end < args.len() && args[end].option {
                nodes += args[end].node_count;
                // What `find_option` looks for, in its order.
                let option = (end - i) as u8;
                if let Some(token) = args[end].token {
                    keywords[keyword_count] = Keyword {
                        packed: packed_keyword(token),
                        len: token.len() as u8,
                        option,
                        choice: None,
                    };
                    keyword_count += 1;
                } else if let ArgKind::OneOf(choices) = args[end].kind {
                    let mut c = 0;
                    while c < choices.len() {
                        if let Some(token) = choices[c].token {
                            keywords[keyword_count] = Keyword {
                                packed: packed_keyword(token),
                                len: token.len() as u8,
                                option,
                                choice: Some(c as u8),
                            };
                            keyword_count += 1;
                        }
                        c += 1;
                    }
                }
                end += 1;
            }
            groups[i] = (end as u8, nodes as u8);
            keywords_at[i] = (first_keyword as u8, keyword_count as u8);
            i = end;
        }
        Plan {
            groups,
            nodes_at,
            keywords,
            keywords_at,
        }
    }

    /// The option of the group starting at argument `at` that `word`
    /// starts, and for a one-of, which choice: what a walk over the group
    /// finds (`find_option`, the tests' oracle), from the keywords packed
    /// when the declaration was built (a word of at most 8 bytes is one
    /// comparison a keyword).
    #[inline(always)]
    fn find_option(
        &self,
        args: &'static [Arg],
        at: usize,
        word: &[u8],
    ) -> Option<(usize, Option<usize>)> {
        let (first, end) = self.keywords_at[at];
        let keywords = &self.keywords[usize::from(first)..usize::from(end)];
        let found = match packed(word) {
            Some(packed) => keywords
                .iter()
                .find(|k| usize::from(k.len) == word.len() && k.packed == packed),
            None => keywords.iter().find(|k| {
                let option = &args[at + usize::from(k.option)];
                let token = match (k.choice, &option.kind) {
                    (Some(c), ArgKind::OneOf(choices)) => choices[usize::from(c)].token,
                    _ => option.token,
                };
                token.is_some_and(|token| is_keyword(word, token))
            }),
        }?;
        Some((usize::from(found.option), found.choice.map(usize::from)))
    }
}

/// Whether `plan` (a command's) finds, in every group of options of
/// `args`, the option and choice that the walk over the group finds for
/// `word`.
#[cfg(test)]
pub fn plan_finds_as_the_walk(
    args: &'static [Arg],
    plan: &Plan,
    word: &[u8],
) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        if !args[i].is_option() {
            i += 1;
            continue;
        }
        let end = usize::from(plan.groups[i].0);
        let (planned, walked) = (
            plan.find_option(args, i, word),
            find_option(&args[i..end], word),
        );
        if planned != walked {
            return Err(format!(
                "{:?} in the group of `{}`: the plan finds {planned:?}, the walk {walked:?}",
                show(word),
                args[i].name
            ));
        }
        i = end;
    }
    Ok(())
}

/// The most counts (`numkeys`) one grammar declares.
const MAX_COUNTS: usize = 2;

struct Parser<'a, 'n, A, K> {
    name: &'n str,
    grammar: &'static [Arg],
    argv: &'a [A],
    /// The next argv index to read.
    at: usize,
    /// Integers read so far that count lists, by name.
    counts: [(&'static str, i64); MAX_COUNTS],
    count_len: usize,
    /// Whether an option read apart was given.
    apart_given: bool,
    /// The first slot past the declared nodes not holding a list's kept
    /// values (`Slot::List`); 0 until a list of numbers is parsed.
    kept_next: usize,
    slots: &'n mut [Slot; MAX_NODES],
    key: &'n mut K,
}

impl<'a, A: AsRef<[u8]>, K: FnMut(usize, u32)> Parser<'a, '_, A, K> {
    fn mistake(&self, mistake: Mistake) -> GrammarError {
        GrammarError::Syntax {
            mistake,
            usage: usage(self.name, self.grammar),
        }
    }

    fn peek(&self) -> Option<&'a [u8]> {
        self.argv.get(self.at).map(AsRef::as_ref)
    }

    fn remaining(&self) -> usize {
        self.argv.len().saturating_sub(self.at)
    }

    /// The next word's argv index.
    fn word(&mut self, missing: Short) -> Result<usize, GrammarError> {
        if self.at >= self.argv.len() {
            return Err(self.mistake(missing.into()));
        }
        self.at += 1;
        Ok(self.at - 1)
    }

    /// A run of arguments whose first node is `node`: options are looked
    /// for as a group, in any order, wherever the declaration puts them.
    fn sequence(
        &mut self,
        args: &'static [Arg],
        plan: &Plan,
        mut node: usize,
    ) -> Result<(), GrammarError> {
        let mut i = 0;
        while i < args.len() {
            // What `required` does for such a value, without asking what
            // else it could be.
            if args[i].plain {
                self.slots[node] = self.value(&args[i], Short::Missing(args[i].name))?;
                node += 1;
                i += 1;
                continue;
            }
            if !args[i].is_option() {
                self.required(&args[i], &args[i + 1..], node)?;
                node += args[i].nodes();
                i += 1;
                continue;
            }
            // The group, and its nodes, as the plan found them.
            let (group_end, group_nodes) = plan.groups[i];
            let (group_end, group_nodes) = (usize::from(group_end), usize::from(group_nodes));
            let group = &args[i..group_end];
            while let Some(word) = self.peek() {
                let Some((index, choice)) = plan.find_option(args, i, word) else {
                    break;
                };
                let option = &group[index];
                let option_node = usize::from(plan.nodes_at[i + index]);
                let again = option_keyword(option, choice);
                match self.slots[option_node] {
                    Slot::Absent => {}
                    Slot::Choice(first) => {
                        let first = option_keyword(option, Some(first));
                        return Err(self.mistake(if first == again {
                            Mistake::Repeated(again)
                        } else {
                            Mistake::Exclusive(first, again)
                        }));
                    }
                    _ => return Err(self.mistake(Mistake::Repeated(again))),
                }
                self.at += 1;
                self.apart_given |= option.skip & SKIP_APART != 0;
                match (choice, &option.kind) {
                    (Some(c), ArgKind::OneOf(choices)) => {
                        self.slots[option_node] = Slot::Choice(c);
                        let choice_node = option_node + 1 + nodes(&choices[..c]);
                        self.after_keyword(&choices[c], choice_node)?;
                    }
                    _ => self.after_keyword(option, option_node)?,
                }
            }
            node += group_nodes;
            i = group_end;
        }
        Ok(())
    }

    /// What follows an argument's keyword (already read).
    fn after_keyword(&mut self, arg: &'static Arg, node: usize) -> Result<(), GrammarError> {
        let keyword = arg.token.unwrap_or(arg.name);
        if arg.multiple {
            return self.list(arg, &[], Some(keyword), node);
        }
        self.item(arg, Short::OptionIncomplete(keyword), node)
    }

    /// A required argument; `rest` is what the declaration puts after it.
    fn required(
        &mut self,
        arg: &'static Arg,
        rest: &'static [Arg],
        node: usize,
    ) -> Result<(), GrammarError> {
        if let ArgKind::OneOf(choices) = arg.kind {
            let word = self
                .peek()
                .ok_or_else(|| self.mistake(Mistake::Missing(arg.name)))?;
            let Some(c) = choices.iter().position(|choice| is_token(choice, word)) else {
                return Err(self.mistake(Mistake::Unexpected(show(word))));
            };
            self.at += 1;
            self.slots[node] = Slot::Choice(c);
            return self.after_keyword(&choices[c], node + 1 + nodes(&choices[..c]));
        }
        if let Some(token) = arg.token {
            let word = self
                .peek()
                .ok_or_else(|| self.mistake(Mistake::Missing(token)))?;
            if !is_keyword(word, token) {
                return Err(self.mistake(Mistake::Unexpected(show(word))));
            }
            self.at += 1;
            return self.after_keyword(arg, node);
        }
        if arg.multiple {
            return self.list(arg, rest, None, node);
        }
        self.item(arg, Short::Missing(arg.name), node)
    }

    /// A list: counted, or running to the end of the call (after its
    /// keyword, if it has one). At least one item either way. Its items are
    /// checked here and read from argv when the request reads them.
    fn list(
        &mut self,
        arg: &'static Arg,
        rest: &'static [Arg],
        keyword: Option<&'static str>,
        node: usize,
    ) -> Result<(), GrammarError> {
        let width = arg.item_width().max(1);
        let count = match arg.counted_by {
            Some(counter) => {
                let count = self.counts[..self.count_len]
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == counter)
                    .map(|(_, n)| *n)
                    .expect("a list is counted by an integer declared before it");
                let after: usize = rest.iter().map(Arg::min_width).sum();
                let room = self.remaining().saturating_sub(after) / width;
                if usize::try_from(count).map_or(true, |count| count > room) {
                    return Err(GrammarError::CountTooLarge {
                        count: counter,
                        list: arg.name,
                    });
                }
                count as usize
            }
            None => {
                if self.remaining() == 0 {
                    return Err(self.mistake(match keyword {
                        Some(keyword) => Mistake::EmptyList(keyword),
                        None => Mistake::Missing(arg.name),
                    }));
                }
                if !self.remaining().is_multiple_of(width) {
                    let group = match arg.kind {
                        ArgKind::Block(parts) => {
                            parts.iter().map(|p| p.name).collect::<Vec<_>>().join(" ")
                        }
                        _ => arg.name.to_string(),
                    };
                    return Err(self.mistake(Mistake::Unpaired(group)));
                }
                self.remaining() / width
            }
        };
        let first = self.at;
        let parts = match arg.kind {
            ArgKind::Block(parts) => parts,
            _ => std::slice::from_ref(arg),
        };
        let has_numbers = parts.iter().any(|part| {
            matches!(
                part.kind,
                ArgKind::Integer | ArgKind::UnixTime | ArgKind::Double
            )
        });
        // Strings need no check and tell no key: their words are passed.
        if !has_numbers
            && parts
                .iter()
                .all(|part| matches!(part.kind, ArgKind::String))
        {
            self.at += count * parts.len();
            self.slots[node] = Slot::List {
                first: first as u32,
                count: count as u32,
                kept_at: 0,
                kept: 0,
            };
            return Ok(());
        }
        // The slots past the declared nodes that are still free.
        if has_numbers && self.kept_next == 0 {
            self.kept_next = nodes(self.grammar);
        }
        let kept_at = self.kept_next;
        let room = if has_numbers { MAX_NODES - kept_at } else { 0 };
        let mut kept = 0;
        for _ in 0..count {
            for part in parts {
                let value = self.value(part, Short::Missing(arg.name))?;
                if kept < room {
                    self.slots[kept_at + kept] = value;
                    kept += 1;
                }
            }
        }
        self.kept_next += kept;
        // Both are below argc, which is an int; the kept ones below
        // MAX_NODES.
        self.slots[node] = Slot::List {
            first: first as u32,
            count: count as u32,
            kept_at: kept_at as u8,
            kept: kept as u8,
        };
        Ok(())
    }

    /// One item of an argument's kind, its keyword already read, at `node`.
    #[inline(always)]
    fn item(&mut self, arg: &'static Arg, missing: Short, node: usize) -> Result<(), GrammarError> {
        match arg.kind {
            ArgKind::Block(parts) => {
                self.slots[node] = Slot::Given;
                let mut part_node = node + 1;
                for part in parts {
                    self.slots[part_node] = match part.kind {
                        ArgKind::PureToken => Slot::Given,
                        _ => self.value(part, missing)?,
                    };
                    part_node += part.nodes();
                }
            }
            ArgKind::PureToken => self.slots[node] = Slot::Given,
            ArgKind::OneOf(_) => unreachable!("a one-of is read by its keyword"),
            _ => self.slots[node] = self.value(arg, missing)?,
        }
        Ok(())
    }

    /// One word of a value's kind (a key, a string, a number, a count).
    #[inline(always)]
    fn value(&mut self, arg: &'static Arg, missing: Short) -> Result<Slot, GrammarError> {
        let position = self.word(missing)?;
        // Read as bytes only where a number is parsed: a key or a string
        // stays the server's string, and reading its bytes costs a call.
        let word = || self.argv[position].as_ref();
        Ok(match arg.kind {
            ArgKind::Key(flags) => {
                (self.key)(position, flags);
                Slot::Word(position)
            }
            ArgKind::String => Slot::Word(position),
            ArgKind::Integer | ArgKind::UnixTime => {
                let word = word();
                let n =
                    parse_i64(word).ok_or_else(|| self.not_a(word, GrammarError::NotInteger))?;
                if arg.is_count {
                    if n < 1 {
                        return Err(GrammarError::CountTooSmall(arg.name));
                    }
                    assert!(self.count_len < MAX_COUNTS, "too many counts in a grammar");
                    self.counts[self.count_len] = (arg.name, n);
                    self.count_len += 1;
                }
                Slot::Int(n)
            }
            ArgKind::Double => {
                let word = word();
                Slot::Float(
                    parse_f64(word).ok_or_else(|| self.not_a(word, GrammarError::NotFloat))?,
                )
            }
            ArgKind::PureToken | ArgKind::OneOf(_) | ArgKind::Block(_) => {
                unreachable!("a list item or block part is a value")
            }
        })
    }

    /// A number that is not one: a keyword of the command where a number
    /// stands is a misplaced option (0.2's `RATE.HIT k 1000 5 COST 2`), so
    /// the reply shows the usage; any other word is `not_a`.
    fn not_a(&self, word: &[u8], not_a: GrammarError) -> GrammarError {
        let is_keyword = keywords(self.grammar)
            .iter()
            .any(|k| word.eq_ignore_ascii_case(k.as_bytes()));
        if is_keyword {
            self.mistake(Mistake::Unexpected(show(word)))
        } else {
            not_a
        }
    }
}

/// The nodes of a run of arguments (see `Slot`).
pub fn nodes(args: &[Arg]) -> usize {
    args.iter().map(Arg::nodes).sum()
}

/// [`nodes`], for a declaration being built.
const fn const_nodes(args: &[Arg]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < args.len() {
        sum += args[i].node_count;
        i += 1;
    }
    sum
}

/// The option of `group` that `word` starts, and for a one-of, which
/// choice: the walk [`Plan::find_option`] must agree with
/// (`a_plan_finds_the_options_the_declaration_walk_finds`).
#[cfg(test)]
fn find_option(group: &'static [Arg], word: &[u8]) -> Option<(usize, Option<usize>)> {
    for (i, arg) in group.iter().enumerate() {
        if let Some(token) = arg.token {
            if is_keyword(word, token) {
                return Some((i, None));
            }
        } else if let ArgKind::OneOf(choices) = arg.kind {
            if let Some(c) = choices.iter().position(|choice| is_token(choice, word)) {
                return Some((i, Some(c)));
            }
        }
    }
    None
}

/// The keyword that starts an option (or the choice of a one-of).
fn option_keyword(option: &Arg, choice: Option<usize>) -> &'static str {
    match (choice, &option.kind) {
        (Some(c), ArgKind::OneOf(choices)) => option_keyword(&choices[c], None),
        _ => option.token.unwrap_or(option.name),
    }
}

#[inline(always)]
fn is_token(arg: &Arg, word: &[u8]) -> bool {
    arg.token.is_some_and(|token| is_keyword(word, token))
}

/// Whether `word` is `keyword` in any case; `keyword` is upper-case
/// letters ([`Arg::token`] checks it when the declaration is built), so a
/// byte matches when it is the letter with its case bit (0x20) cleared (no
/// other byte is), and a word of another length costs one comparison.
#[inline(always)]
fn is_keyword(word: &[u8], keyword: &str) -> bool {
    word.len() == keyword.len()
        && word
            .iter()
            .zip(keyword.as_bytes())
            .all(|(w, k)| w & !0x20 == *k)
}

/// A word as an error message shows it: text, or escaped bytes, cut short.
fn show(word: &[u8]) -> String {
    let text: String = word.escape_ascii().to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// Reads a parsed call into a command's typed request, in declaration
/// order, without copying: keys and strings are borrowed from the call's
/// arguments, numbers come from the parse, and list items are read from the
/// arguments as a handler walks them ([`Items`]). Counts are not read: the
/// parse took them, and a counted list's length is its count. A read that does not match
/// the declaration is a bug in the command: it panics (the dispatcher turns
/// it into an error reply), and `every_declared_value_is_read_once` (in
/// `commands`) finds it in every declaration without a server, with
/// [`trace_reads`].
pub struct Request<'a, A> {
    argv: &'a [A],
    slots: &'a [Slot],
    /// The arguments being read, and the index of the next one.
    args: &'static [Arg],
    at: usize,
    /// The node of `args[at]`.
    node: usize,
    /// The [`Arg::skip`] bits of the arguments this request passes over.
    skip: u8,
    /// Whether the call gave an option read apart: when it gave none, its
    /// wrapper reads nothing ([`Request::apart`]).
    apart_given: bool,
    mode: Mode<'a>,
}

#[derive(Clone, Copy)]
enum Mode<'a> {
    /// Values from the parsed call's slots.
    Parsed,
    /// One item of a list: its `j`-th part is the word at `first + j`.
    Item { first: usize },
    /// A run over the declaration alone ([`trace_reads`]): each read
    /// records its node, and every value is a placeholder.
    Trace(&'a RefCell<Vec<usize>>),
}

impl<'a, A: AsRef<[u8]>> Request<'a, A> {
    /// The next declared argument and its node, past any count (which the
    /// parse consumed: the request reads the list it counts) and any option
    /// read apart (which its wrapper reads).
    #[inline(always)]
    fn next(&mut self, wanted: &str) -> (usize, &'static Arg) {
        let args: &'static [Arg] = self.args;
        loop {
            let Some(arg) = args.get(self.at) else {
                Self::undeclared(wanted)
            };
            let node = self.node;
            self.at += 1;
            self.node += arg.nodes();
            if arg.skip & self.skip == 0 {
                return (node, arg);
            }
        }
    }

    // Cold and out of line: a read passes `wanted` only on this path.
    #[cold]
    #[inline(never)]
    fn undeclared(wanted: &str) -> ! {
        panic!("the request reads a {wanted} the grammar does not declare")
    }

    #[cold]
    #[inline(never)]
    fn mismatch(wanted: &str) -> ! {
        panic!("the request reads a {wanted} where the grammar declares something else")
    }

    fn record(&self, node: usize) {
        if let Mode::Trace(reads) = self.mode {
            reads.borrow_mut().push(node);
        }
    }

    /// The word of a key or string node.
    #[inline(always)]
    fn word(&mut self, wanted: &str, is: fn(&ArgKind) -> bool) -> &'a A {
        let (node, arg) = self.next(wanted);
        if !is(&arg.kind) {
            Self::mismatch(wanted)
        }
        let index = match self.mode {
            Mode::Parsed => match self.slots[node] {
                Slot::Word(index) => index,
                _ => Self::mismatch(wanted),
            },
            Mode::Item { first } => first + self.at - 1,
            Mode::Trace(_) => {
                self.record(node);
                0
            }
        };
        &self.argv[index]
    }

    /// The word of a number node inside a list item (checked by the parse).
    fn item_word(&self, first: usize) -> &'a [u8] {
        self.argv[first + self.at - 1].as_ref()
    }

    #[inline(always)]
    pub fn key(&mut self) -> &'a A {
        self.word("key", |kind| matches!(kind, ArgKind::Key(_)))
    }

    #[inline(always)]
    pub fn string(&mut self) -> &'a A {
        self.word("string", |kind| matches!(kind, ArgKind::String))
    }

    #[inline(always)]
    pub fn integer(&mut self) -> i64 {
        self.number(
            "integer",
            |kind| matches!(kind, ArgKind::Integer | ArgKind::UnixTime),
            |slot| match slot {
                Slot::Int(n) => Some(n),
                _ => None,
            },
            parse_i64,
        )
    }

    #[inline(always)]
    pub fn double(&mut self) -> f64 {
        self.number(
            "double",
            |kind| matches!(kind, ArgKind::Double),
            |slot| match slot {
                Slot::Float(x) => Some(x),
                _ => None,
            },
            parse_f64,
        )
    }

    /// The value of a number node: from the parse, or from the word of a
    /// list item (which the parse checked), or a placeholder when tracing.
    #[inline(always)]
    fn number<T: Default>(
        &mut self,
        wanted: &str,
        is: fn(&ArgKind) -> bool,
        from_slot: fn(Slot) -> Option<T>,
        parse: fn(&[u8]) -> Option<T>,
    ) -> T {
        let (node, arg) = self.next(wanted);
        if !is(&arg.kind) {
            Self::mismatch(wanted)
        }
        match self.mode {
            Mode::Parsed => from_slot(self.slots[node]).unwrap_or_else(|| Self::mismatch(wanted)),
            // The value the parse kept, or the word parsed again.
            Mode::Item { first } => match self.slots.get(self.at - 1) {
                Some(&slot) => from_slot(slot).unwrap_or_else(|| Self::mismatch(wanted)),
                None => parse(self.item_word(first)).expect("the parse checked every item"),
            },
            Mode::Trace(_) => {
                self.record(node);
                T::default()
            }
        }
    }

    /// An optional keyword alone: whether it was given.
    #[inline(always)]
    pub fn flag(&mut self) -> bool {
        let (node, arg) = self.next("flag");
        if !matches!(arg.kind, ArgKind::PureToken) || !arg.optional {
            Self::mismatch("flag")
        }
        self.record(node);
        self.slots.get(node) == Some(&Slot::Given)
    }

    /// An option's values, read by `read`; `None` when it was not given.
    #[inline(always)]
    pub fn option<T>(&mut self, read: impl FnOnce(&mut Request<'a, A>) -> T) -> Option<T> {
        let (node, arg) = self.next("option");
        if !arg.optional || matches!(arg.kind, ArgKind::OneOf(_)) {
            Self::mismatch("option");
        }
        let given = match self.mode {
            Mode::Parsed => self.slots[node] != Slot::Absent,
            Mode::Item { .. } => Self::mismatch("option"),
            Mode::Trace(_) => {
                if matches!(arg.kind, ArgKind::Block(_)) && !arg.multiple {
                    self.record(node);
                }
                true
            }
        };
        given.then(|| read(&mut self.inside(arg, node)))
    }

    /// A one-of (required or optional): the choice's value in `choices`, in
    /// declaration order; each reads what follows its keyword.
    #[inline(always)]
    pub fn one_of<T>(&mut self, choices: &[fn(&mut Request<'a, A>) -> T]) -> Option<T> {
        let (node, arg) = self.next("one-of");
        let ArgKind::OneOf(declared) = arg.kind else {
            Self::mismatch("one-of")
        };
        assert_eq!(
            choices.len(),
            declared.len(),
            "the request reads a one-of of another number of choices than the grammar declares"
        );
        let choice_node = |c: usize| node + 1 + nodes(&declared[..c]);
        match self.mode {
            Mode::Parsed => match self.slots[node] {
                Slot::Absent => None,
                Slot::Choice(c) => Some(choices[c](&mut self.inside(&declared[c], choice_node(c)))),
                _ => Self::mismatch("one-of"),
            },
            Mode::Item { .. } => Self::mismatch("one-of"),
            Mode::Trace(_) => {
                self.record(node);
                let mut value = None;
                for (c, read) in choices.iter().enumerate() {
                    let choice = &declared[c];
                    if matches!(choice.kind, ArgKind::PureToken | ArgKind::Block(_)) {
                        self.record(choice_node(c));
                    }
                    value = Some(read(&mut self.inside(choice, choice_node(c))));
                }
                value
            }
        }
    }

    /// A required one-of: the chosen value (see [`Request::one_of`]).
    #[inline(always)]
    pub fn choice<T>(&mut self, choices: &[fn(&mut Request<'a, A>) -> T]) -> T {
        self.one_of(choices)
            .unwrap_or_else(|| Self::mismatch("required one-of"))
    }

    /// A list, each item read by `read` (a block's parts in order), into a
    /// vector.
    pub fn list<T>(&mut self, read: fn(&mut Request<'a, A>) -> T) -> Vec<T> {
        self.items(read).collect()
    }

    /// A list, read item by item as the handler walks it (nothing copied,
    /// nothing allocated).
    #[inline(always)]
    pub fn items<T>(&mut self, read: fn(&mut Request<'a, A>) -> T) -> Items<'a, A, T> {
        let (node, arg) = self.next("list");
        if !arg.multiple {
            Self::mismatch("list")
        }
        let (first, count, kept) = match self.mode {
            Mode::Parsed => match self.slots[node] {
                Slot::List {
                    first,
                    count,
                    kept_at,
                    kept,
                } => {
                    let kept_at = usize::from(kept_at);
                    let kept = &self.slots[kept_at..kept_at + usize::from(kept)];
                    (first as usize, count as usize, kept)
                }
                _ => Self::mismatch("list"),
            },
            Mode::Item { .. } => Self::mismatch("list"),
            Mode::Trace(_) => {
                if matches!(arg.kind, ArgKind::Block(_)) {
                    self.record(node);
                }
                read(&mut self.item_request(arg, node, 0, &[]));
                (0, 0, &[][..])
            }
        };
        Items {
            argv: self.argv,
            arg,
            node,
            next: first,
            left: count,
            width: arg.item_width().max(1),
            kept,
            mode: self.mode,
            read,
        }
    }

    /// A list of single keys or strings, as the call's own words: a slice
    /// of argv, walked with no reading per item (what [`Request::items`]
    /// with [`Request::string`] gives, at no cost per item).
    #[inline(always)]
    pub fn words(&mut self) -> WordList<'a, A> {
        let (node, arg) = self.next("list of words");
        if !arg.multiple || !matches!(arg.kind, ArgKind::Key(_) | ArgKind::String) {
            Self::mismatch("list of words")
        }
        match self.mode {
            Mode::Parsed => match self.slots[node] {
                Slot::List { first, count, .. } => {
                    let first = first as usize;
                    self.argv[first..first + count as usize].iter()
                }
                _ => Self::mismatch("list of words"),
            },
            Mode::Item { .. } => Self::mismatch("list of words"),
            Mode::Trace(_) => {
                self.record(node);
                self.argv.iter()
            }
        }
    }

    /// This request of a parsed call, read from its start by the
    /// declaration `args` (the one it was parsed by) as the command's own
    /// static holds it: each command's dispatch reads its request through
    /// this, so the reads, inlined there, find every argument's node, kind
    /// and skip bits in a constant (the compiler works the walk over the
    /// declaration out once per command, when it is built, not on each
    /// call). The same reads, the same checks: only where their inputs come
    /// from changes.
    #[inline(always)]
    pub fn declared_by(self, args: &'static [Arg]) -> Request<'a, A> {
        debug_assert!(std::ptr::eq(args, self.args) && self.at == 0);
        Request {
            args,
            at: 0,
            node: 0,
            skip: SKIP_COUNT | SKIP_APART,
            mode: Mode::Parsed,
            ..self
        }
    }

    /// Whether every declared argument was read (but the options read
    /// apart, which their wrapper reads).
    pub fn is_read(&self) -> bool {
        self.args[self.at..]
            .iter()
            .all(|arg| arg.skip & self.skip != 0)
    }

    /// A request for the options read apart ([`Arg::read_apart`]), from
    /// the first one after what was read, in declaration order: what the
    /// wrapper of an option several commands share reads, wherever each
    /// command declares it (read before the command's own request). `None`
    /// when the call gave none of them: the wrapper then reads nothing,
    /// and each is absent.
    #[inline(always)]
    pub fn apart(&self) -> Option<Request<'a, A>> {
        if matches!(self.mode, Mode::Parsed) && !self.apart_given {
            return None;
        }
        let (mut at, mut node) = (self.at, self.node);
        loop {
            let Some(arg) = self.args.get(at) else {
                panic!("the request reads an option the grammar does not declare apart")
            };
            if arg.skip & SKIP_APART != 0 {
                break;
            }
            node += arg.nodes();
            at += 1;
        }
        Some(Request {
            at,
            node,
            skip: SKIP_COUNT,
            ..*self
        })
    }

    /// A request for what an option or a choice holds: a block's parts, or
    /// the argument's own value(s).
    fn inside(&self, arg: &'static Arg, node: usize) -> Request<'a, A> {
        let (args, node) = match arg.kind {
            ArgKind::Block(parts) if !arg.multiple => (parts, node + 1),
            _ => (std::slice::from_ref(arg), node),
        };
        Request {
            args,
            at: 0,
            node,
            ..*self
        }
    }

    /// A request for one item of the list `arg` at `node`, whose words start
    /// at `first`; `kept` holds the values of its first words, as the parse
    /// kept them.
    fn item_request(
        &self,
        arg: &'static Arg,
        node: usize,
        first: usize,
        kept: &'a [Slot],
    ) -> Request<'a, A> {
        item_request(self.argv, arg, node, first, kept, self.mode)
    }
}

/// A request for one item of a list (see [`Request::item_request`]): its
/// slots are the values the parse kept of its words, if any.
fn item_request<'a, A>(
    argv: &'a [A],
    arg: &'static Arg,
    node: usize,
    first: usize,
    kept: &'a [Slot],
    mode: Mode<'a>,
) -> Request<'a, A> {
    let (args, node) = match arg.kind {
        ArgKind::Block(parts) => (parts, node + 1),
        _ => (std::slice::from_ref(arg), node),
    };
    Request {
        argv,
        slots: kept,
        args,
        at: 0,
        node,
        skip: SKIP_COUNT | SKIP_APART,
        apart_given: false,
        mode: match mode {
            Mode::Trace(reads) => Mode::Trace(reads),
            _ => Mode::Item { first },
        },
    }
}

/// The words of a list of single keys or strings ([`Request::words`]).
pub type WordList<'a, A> = std::slice::Iter<'a, A>;

/// The items of a list, read from the call's arguments one at a time.
pub struct Items<'a, A, T> {
    argv: &'a [A],
    arg: &'static Arg,
    node: usize,
    /// The argv index of the next item, and how many are left.
    next: usize,
    left: usize,
    /// The words of one item.
    width: usize,
    /// The values the parse kept of the words from `next` on.
    kept: &'a [Slot],
    mode: Mode<'a>,
    read: fn(&mut Request<'a, A>) -> T,
}

impl<A, T> Clone for Items<'_, A, T> {
    fn clone(&self) -> Self {
        Items { ..*self }
    }
}

impl<'a, A: AsRef<[u8]>, T> Iterator for Items<'a, A, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let mut item = item_request(
            self.argv, self.arg, self.node, self.next, self.kept, self.mode,
        );
        self.next += self.width;
        self.kept = self.kept.get(self.width..).unwrap_or_default();
        self.left -= 1;
        Some((self.read)(&mut item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<A: AsRef<[u8]>, T> ExactSizeIterator for Items<'_, A, T> {}

/// Runs `read` (a command's request reading) over the declaration `args`
/// alone, with `placeholder` for every key and string, and says which
/// declared values it does not read exactly once: every option present, so
/// its reading runs, every choice of a one-of and one item of each list. A
/// read of something the declaration does not hold panics.
pub fn trace_reads<A: AsRef<[u8]>>(
    args: &'static [Arg],
    placeholder: &[A],
    read: impl for<'r> FnOnce(&mut Request<'r, A>),
) -> Result<(), String> {
    let reads = RefCell::new(Vec::new());
    let mut request = Request {
        argv: placeholder,
        slots: &[],
        args,
        at: 0,
        node: 0,
        skip: SKIP_COUNT | SKIP_APART,
        apart_given: true,
        mode: Mode::Trace(&reads),
    };
    read(&mut request);
    if !request.is_read() {
        return Err(format!(
            "`{}` is declared but not read",
            args[request.at].name
        ));
    }
    let mut counts = vec![0usize; nodes(args)];
    for &node in reads.borrow().iter() {
        counts[node] += 1;
    }
    let declared = node_args(args);
    let mut wrong = Vec::new();
    // A count is read through the lists it counts: once if one of them is
    // read, and not at all if none is (or none names it).
    for (node, arg) in declared.iter().enumerate() {
        let Some(counter) = arg.counted_by else {
            continue;
        };
        match declared[..node]
            .iter()
            .rposition(|a| a.is_count && a.name == counter)
        {
            Some(count) => counts[count] = counts[count].max(counts[node].min(1)),
            None => wrong.push(format!(
                "`{}` is counted by `{counter}`, which is no count declared before it",
                node_name(arg)
            )),
        }
    }
    wrong.extend(
        counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n != 1)
            .map(|(node, &n)| match n {
                0 => format!("`{}` is declared but not read", node_name(declared[node])),
                _ => format!("`{}` is read {n} times", node_name(declared[node])),
            }),
    );
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

/// Every node of a declaration, in node order (see `Slot`).
fn node_args(args: &'static [Arg]) -> Vec<&'static Arg> {
    let mut out = Vec::new();
    for arg in args {
        out.push(arg);
        if let ArgKind::Block(parts) | ArgKind::OneOf(parts) = arg.kind {
            out.extend(node_args(parts));
        }
    }
    out
}

/// A node's name, with its keyword (`TTL seconds`).
fn node_name(arg: &Arg) -> String {
    match arg.token {
        Some(token) => format!("{token} {}", arg.name),
        None => arg.name.to_string(),
    }
}

/// A command's syntax as a user reads it: `RECENT.ADD key [CAP cap] ...`.
pub fn usage(name: &str, args: &[Arg]) -> String {
    let mut out = name.to_ascii_uppercase();
    for arg in args {
        out.push(' ');
        write_usage(&mut out, arg);
    }
    out
}

fn write_usage(out: &mut String, arg: &Arg) {
    let mut one = String::new();
    if let Some(token) = arg.token {
        one.push_str(token);
    }
    let item = match arg.kind {
        ArgKind::PureToken => String::new(),
        ArgKind::Block(parts) => parts
            .iter()
            .map(|part| {
                let mut s = String::new();
                write_usage(&mut s, part);
                s
            })
            .collect::<Vec<_>>()
            .join(" "),
        ArgKind::OneOf(choices) => {
            let inner = choices
                .iter()
                .map(|choice| {
                    let mut s = String::new();
                    write_usage(&mut s, choice);
                    s
                })
                .collect::<Vec<_>>()
                .join(" | ");
            if arg.optional {
                inner
            } else {
                format!("<{inner}>")
            }
        }
        _ => arg.name.to_string(),
    };
    if !item.is_empty() {
        if !one.is_empty() {
            one.push(' ');
        }
        one.push_str(&item);
        if arg.multiple {
            let _ = write!(one, " [{item} ...]");
        }
    }
    if arg.optional {
        let _ = write!(out, "[{one}]");
    } else {
        out.push_str(&one);
    }
}

/// The fewest arguments a call takes, the name included, as Redis arity:
/// negative when a call may take more. A list introduced by its keyword
/// (`TASKS task [task ...]`) counts one word: a call with one value and no
/// keyword (0.2's `DELAY.ACK inflight task`) then reaches the parser, whose
/// error shows the usage with the keyword, as for several values, rather
/// than the server's bare arity error.
pub fn arity(args: &[Arg]) -> i32 {
    let width = |arg: &Arg| match arg.token.is_some() && arg.multiple && !arg.optional {
        true => 1,
        false => arg.min_width(),
    };
    let least = 1 + args.iter().map(width).sum::<usize>();
    let fixed = args
        .iter()
        .all(|arg| !arg.optional && !arg.multiple && !matches!(arg.kind, ArgKind::OneOf(_)));
    let least = least as i32;
    if fixed {
        least
    } else {
        -least
    }
}

/// Why a grammar would let a value be taken for a keyword, if it would.
///
/// The rules: nothing follows a list that runs to the end of the call; a
/// list runs to the end only after its own keyword or where no option is
/// looked for, unless no keyword looked for there is a valid value of its
/// first item's type (a double is never `CAP`); no optional argument goes
/// without a keyword; the keywords looked for at one place differ; and a
/// required value never stands where an option is looked for unless its
/// type cannot spell the option's keyword.
pub fn ambiguity(args: &[Arg]) -> Result<(), String> {
    let mut looked_for: Vec<&'static str> = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if arg.optional && arg.keywords().is_empty() {
            return Err(format!("optional `{}` has no keyword", arg.name));
        }
        if arg.is_option() {
            for keyword in arg.keywords() {
                if looked_for.iter().any(|k| k.eq_ignore_ascii_case(keyword)) {
                    return Err(format!("`{keyword}` is looked for twice at one place"));
                }
                looked_for.push(keyword);
            }
            if let ArgKind::Block(parts) = arg.kind {
                ambiguity(parts)?;
            }
            continue;
        }
        let runs_to_end = arg.multiple && arg.counted_by.is_none();
        if runs_to_end && i + 1 < args.len() {
            return Err(format!(
                "`{}` runs to the end of the call, but `{}` follows it",
                arg.name,
                args[i + 1].name
            ));
        }
        if arg.token.is_none() && !matches!(arg.kind, ArgKind::OneOf(_)) {
            let first = first_value(arg);
            if let Some(keyword) = looked_for.iter().find(|k| can_spell(first, k)) {
                return Err(format!(
                    "`{}` stands where option `{keyword}` is looked for, and may be spelled `{keyword}`",
                    arg.name
                ));
            }
        }
        looked_for.clear();
    }
    Ok(())
}

/// The first value an argument's item starts with.
fn first_value(arg: &Arg) -> &Arg {
    match arg.kind {
        ArgKind::Block(parts) => parts.first().map_or(arg, first_value),
        _ => arg,
    }
}

/// Whether a value of `arg`'s type may be spelled `keyword`.
fn can_spell(arg: &Arg, keyword: &str) -> bool {
    match arg.kind {
        ArgKind::Key(_) | ArgKind::String => true,
        ArgKind::Integer | ArgKind::UnixTime => parse_i64(keyword.as_bytes()).is_some(),
        ArgKind::Double => parse_f64(keyword.as_bytes()).is_some(),
        ArgKind::PureToken | ArgKind::OneOf(_) | ArgKind::Block(_) => false,
    }
}

/// Every keyword of a grammar, options and list keywords alike.
pub fn keywords(args: &[Arg]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for arg in args {
        out.extend(arg.token);
        if let ArgKind::Block(parts) | ArgKind::OneOf(parts) = arg.kind {
            out.extend(keywords(parts));
        }
    }
    out
}

/// Grammars of today's commands and the 0.2 ones they replaced, for the
/// host's unit tests.
#[cfg(test)]
pub(super) mod examples {
    use super::Arg;

    pub const RW: u32 = 1;
    pub const RO: u32 = 2;

    // Today's grammars and the 0.2 ones they replaced.
    pub static RECENT_ADD: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("cap").token("CAP").optional(),
        Arg::integer("seconds").token("TTL").optional(),
        Arg::string("member").token("ITEMS").multiple(),
    ];
    pub static RECENT_ADD_0_2: &[Arg] = &[
        Arg::key("key", RW),
        Arg::string("member").multiple(),
        Arg::integer("cap").token("CAP").optional(),
        Arg::integer("seconds").token("TTL").optional(),
    ];
    pub static MGET_0_2: &[Arg] = &[
        Arg::key("key", RO),
        Arg::string("member").multiple(),
        Arg::pure_token("shared", "SHARED").optional(),
    ];
    pub static MGET_OPTION_FIRST: &[Arg] = &[
        Arg::key("key", RO),
        Arg::pure_token("shared", "SHARED").optional(),
        Arg::string("member").multiple(),
    ];
    pub static FEED_ADD: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("n").token("CAP").optional(),
        Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
    ];
    pub static FEED_ADD_WITH_INF: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("n").token("INF").optional(),
        Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
    ];
    pub static MERGE: &[Arg] = &[
        Arg::key("destkey", RW),
        Arg::count("numkeys"),
        Arg::key("key", RO).counted_by("numkeys"),
        Arg::integer("weight")
            .token("WEIGHTS")
            .optional()
            .counted_by("numkeys"),
    ];
    pub static MGIFT: &[Arg] = &[
        Arg::count("numkeys"),
        Arg::key("key", RW).counted_by("numkeys"),
        Arg::string("member"),
        Arg::integer("amount"),
        Arg::unix_time("unix-ms").token("AT").optional(),
    ];
    pub static POLL: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("count").token("COUNT").optional(),
        Arg::block("lease", &[Arg::key("inflight", RW), Arg::integer("ms")])
            .token("LEASE")
            .optional(),
        Arg::one_of(
            "order",
            &[Arg::pure_token("gt", "GT"), Arg::pure_token("lt", "LT")],
        )
        .optional(),
    ];
}

#[cfg(test)]
mod tests {
    use super::examples::*;
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<Vec<u8>> {
        text.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn parse_text(args: &'static [Arg], text: &str) -> Result<(), GrammarError> {
        let argv = words(text);
        parse("cmd", args, &Plan::of(args), &argv, &mut |_, _| {}, |_| ())
    }

    /// Parses `text` by `args` and reads it with `read`, which must read
    /// every declared argument.
    fn read<T>(
        args: &'static [Arg],
        text: &str,
        read: impl for<'r> FnOnce(&mut Request<'r, Vec<u8>>) -> T,
    ) -> T {
        let argv = words(text);
        parse(
            "cmd",
            args,
            &Plan::of(args),
            &argv,
            &mut |_, _| {},
            |mut request| {
                let value = read(&mut request);
                assert!(request.is_read(), "{text}: not every argument was read");
                value
            },
        )
        .unwrap()
    }

    fn string(request: &mut Request<'_, Vec<u8>>) -> String {
        String::from_utf8(request.string().clone()).unwrap()
    }

    fn key(request: &mut Request<'_, Vec<u8>>) -> String {
        String::from_utf8(request.key().clone()).unwrap()
    }

    fn mistake(args: &'static [Arg], text: &str) -> Mistake {
        match parse_text(args, text) {
            Err(GrammarError::Syntax { mistake, .. }) => mistake,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn the_ambiguity_check_refuses_the_0_2_grammars() {
        assert!(ambiguity(RECENT_ADD).is_ok());
        assert!(ambiguity(FEED_ADD).is_ok());
        assert!(ambiguity(MERGE).is_ok());
        assert!(ambiguity(MGIFT).is_ok());
        assert!(ambiguity(POLL).is_ok());
        let refused = ambiguity(RECENT_ADD_0_2).unwrap_err();
        assert!(refused.contains("`member` runs to the end"), "{refused}");
        assert!(ambiguity(MGET_0_2).is_err());
        let refused = ambiguity(MGET_OPTION_FIRST).unwrap_err();
        assert!(refused.contains("may be spelled `SHARED`"), "{refused}");
        // A score may be spelled `inf`, so an option named INF may not
        // stand before the scores.
        assert!(ambiguity(FEED_ADD_WITH_INF).is_err());
    }

    #[test]
    fn values_spelled_like_keywords_stay_values() {
        let (cap, ttl, items) = read(RECENT_ADD, "c k CAP 3 ITEMS CAP TTL items", |r| {
            assert_eq!(key(r), "k");
            (
                r.option(Request::integer),
                r.option(Request::integer),
                r.list(string),
            )
        });
        assert_eq!((cap, ttl), (Some(3), None));
        assert_eq!(items, ["CAP", "TTL", "items"]);
        assert_eq!(
            mistake(RECENT_ADD, "c k alice CAP 3"),
            Mistake::Unexpected("alice".into())
        );
        assert_eq!(mistake(RECENT_ADD, "c k CAP 3"), Mistake::Missing("ITEMS"));
        assert_eq!(
            mistake(RECENT_ADD, "c k ITEMS"),
            Mistake::EmptyList("ITEMS")
        );
        assert_eq!(
            mistake(RECENT_ADD, "c k cap 1 CAP 2 ITEMS a"),
            Mistake::Repeated("CAP")
        );
        assert_eq!(
            parse_text(RECENT_ADD, "c k CAP x ITEMS a"),
            Err(GrammarError::NotInteger)
        );
    }

    #[test]
    fn options_come_in_any_order_and_one_of_excludes() {
        let (count, lease, order) = read(POLL, "c q lt LEASE held 5 COUNT 2", |r| {
            key(r);
            (
                r.option(Request::integer),
                r.option(|lease| (key(lease), lease.integer())),
                r.one_of(&[|_| "gt", |_| "lt"]),
            )
        });
        assert_eq!(count, Some(2));
        assert_eq!(lease, Some(("held".to_string(), 5)));
        assert_eq!(order, Some("lt"));
        let (count, lease, order) = read(POLL, "c q", |r| {
            key(r);
            (
                r.option(Request::integer),
                r.option(|lease| (key(lease), lease.integer())),
                r.one_of(&[|_| "gt", |_| "lt"]),
            )
        });
        assert_eq!((count, lease, order), (None, None, None));
        assert_eq!(mistake(POLL, "c q GT LT"), Mistake::Exclusive("GT", "LT"));
        assert_eq!(
            mistake(POLL, "c q LEASE held"),
            Mistake::OptionIncomplete("LEASE")
        );
        assert_eq!(
            mistake(POLL, "c q NOPE"),
            Mistake::Unexpected("NOPE".into())
        );
    }

    #[test]
    fn counted_lists_take_their_count() {
        // The parse consumes the count: the request reads the lists.
        let (sources, weights) = read(MERGE, "m d 2 a b WEIGHTS 1 2", |r| {
            key(r);
            (
                r.list(key),
                r.option(|weights| weights.list(Request::integer)),
            )
        });
        assert_eq!(sources, ["a", "b"]);
        assert_eq!(weights, Some(vec![1, 2]));
        let (boards, member) = read(MGIFT, "m 3 a b c alice 5", |r| {
            let boards = r.list(key);
            let member = string(r);
            r.integer();
            r.option(Request::integer);
            (boards, member)
        });
        assert_eq!(boards, ["a", "b", "c"]);
        assert_eq!(member, "alice");
        assert_eq!(
            parse_text(MERGE, "m d 0 a"),
            Err(GrammarError::CountTooSmall("numkeys"))
        );
        assert_eq!(
            parse_text(MGIFT, "m 3 a b alice 5"),
            Err(GrammarError::CountTooLarge {
                count: "numkeys",
                list: "key"
            })
        );
        assert_eq!(
            parse_text(MERGE, "m d 2 a b WEIGHTS 1"),
            Err(GrammarError::CountTooLarge {
                count: "numkeys",
                list: "weight"
            })
        );
        // Keys are exactly the counted ones, whatever they are named.
        let argv = words("m WEIGHTS 2 WEIGHTS 1 WEIGHTS 1 2");
        let keys: Vec<usize> = key_positions("m", MERGE, &argv)
            .iter()
            .map(|k| k.0)
            .collect();
        assert_eq!(keys, [1, 3, 4]);
        let argv = words("m 2 AT b alice 5 AT 7");
        let keys: Vec<usize> = key_positions("m", MGIFT, &argv)
            .iter()
            .map(|k| k.0)
            .collect();
        assert_eq!(keys, [2, 3]);
    }

    #[test]
    fn list_items_are_read_from_the_call_as_they_are_walked() {
        let pairs = read(FEED_ADD, "f k CAP 9 1 a 2.5 CAP", |r| {
            key(r);
            assert_eq!(r.option(Request::integer), Some(9));
            let items = r.items(|pair| (pair.double(), string(pair)));
            assert_eq!(items.len(), 2);
            items.clone().chain(items).collect::<Vec<_>>()
        });
        assert_eq!(
            pairs,
            [
                (1.0, "a".into()),
                (2.5, "CAP".into()),
                (1.0, "a".into()),
                (2.5, "CAP".into())
            ]
        );
    }

    /// The parse keeps the values of a list's first words in the slots
    /// its declaration leaves free; the items past them are parsed again,
    /// and both read the same.
    #[test]
    fn list_values_kept_by_the_parse_read_as_the_words_parsed_again() {
        // FEED_ADD takes 5 nodes: 11 slots keep the first 5.5 pairs.
        for n in [1, 5, 6, 8] {
            let pairs: Vec<String> = (0..n).map(|i| format!("{i}.{i}5 m{i}")).collect();
            let text = format!("f k CAP 9 {}", pairs.join(" "));
            let read_pairs = read(FEED_ADD, &text, |r| {
                key(r);
                assert_eq!(r.option(Request::integer), Some(9));
                let items = r.items(|pair| (pair.double(), string(pair)));
                items.clone().chain(items).collect::<Vec<_>>()
            });
            let expected: Vec<(f64, String)> = (0..n)
                .map(|i| (format!("{i}.{i}5").parse().unwrap(), format!("m{i}")))
                .collect();
            assert_eq!(
                read_pairs,
                [expected.clone(), expected].concat(),
                "{n} pairs"
            );
        }
        // A list of keys keeps nothing; a counted list of numbers in an
        // option keeps its values.
        let weights = read(MERGE, "m d 3 a b c WEIGHTS 7 8 9", |r| {
            key(r);
            let keys = r.list(key);
            (keys, r.option(|w| w.list(Request::integer)))
        });
        assert_eq!(
            weights,
            (
                vec!["a".into(), "b".into(), "c".into()],
                Some(vec![7, 8, 9])
            )
        );
    }

    #[test]
    fn a_list_of_words_is_the_calls_own_words() {
        let text = "c k CAP 3 ITEMS a TTL ITEMS";
        let by_item = read(RECENT_ADD, text, |r| {
            key(r);
            assert_eq!(r.option(Request::integer), Some(3));
            assert_eq!(r.option(Request::integer), None);
            r.items(string).collect::<Vec<_>>()
        });
        let by_word = read(RECENT_ADD, text, |r| {
            key(r);
            assert_eq!(r.option(Request::integer), Some(3));
            assert_eq!(r.option(Request::integer), None);
            let words = r.words();
            assert_eq!(words.len(), 3);
            words
                .map(|w| String::from_utf8(w.clone()).unwrap())
                .collect::<Vec<_>>()
        });
        assert_eq!(by_item, ["a", "TTL", "ITEMS"]);
        assert_eq!(by_word, by_item);
    }

    #[test]
    fn options_read_apart_are_read_only_when_given() {
        static SHARED_IDMP: &[Arg] = &[
            Arg::key("key", RW),
            Arg::integer("n").token("CAP").optional(),
            Arg::block("idmp", &[Arg::key("seen", RW), Arg::string("id")])
                .token("IDMP")
                .optional()
                .read_apart(),
            Arg::integer("ms").token("RETAIN").optional().read_apart(),
        ];
        let apart = |text: &str| {
            read(SHARED_IDMP, text, |r| {
                let apart = r.apart().map(|mut apart| {
                    let idmp = apart.option(|c| (key(c), string(c)));
                    (idmp, apart.option(Request::integer))
                });
                key(r);
                r.option(Request::integer);
                apart
            })
        };
        assert_eq!(apart("c k CAP 2"), None);
        assert_eq!(apart("c k RETAIN 5"), Some((None, Some(5))));
        assert_eq!(
            apart("c k IDMP s CAP CAP 1"),
            Some((Some(("s".into(), "CAP".into())), None))
        );
    }

    /// What every declaration's request is held to (in `commands`): each
    /// declared value read exactly once.
    #[test]
    fn tracing_finds_unread_and_twice_read_values() {
        let placeholder = words("x");
        let poll = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.option(Request::integer);
            r.option(|lease| (lease.key(), lease.integer()));
            r.one_of(&[|_| 0, |_| 1]);
        };
        assert_eq!(trace_reads(POLL, &placeholder, poll), Ok(()));
        let lease_ms_unread = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.option(Request::integer);
            r.option(|lease| lease.key());
            r.one_of(&[|_| 0, |_| 1]);
        };
        let err = trace_reads(POLL, &placeholder, lease_ms_unread).unwrap_err();
        assert_eq!(err, "`ms` is declared but not read");
        let order_unread = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.option(Request::integer);
            r.option(|lease| (lease.key(), lease.integer()));
        };
        let err = trace_reads(POLL, &placeholder, order_unread).unwrap_err();
        assert_eq!(err, "`order` is declared but not read");
        let pairs = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.option(Request::integer);
            r.items(|pair| (pair.double(), pair.string()))
                .for_each(drop);
        };
        assert_eq!(trace_reads(FEED_ADD, &placeholder, pairs), Ok(()));
        let pair_half_read = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.option(Request::integer);
            r.items(|pair| pair.double()).for_each(drop);
        };
        let err = trace_reads(FEED_ADD, &placeholder, pair_half_read).unwrap_err();
        assert_eq!(err, "`member` is declared but not read");
        let undeclared = std::panic::catch_unwind(|| {
            trace_reads(RECENT_ADD, &placeholder, |r| {
                r.key();
                r.option(Request::integer);
                r.option(Request::integer);
                r.list(Request::string);
                r.flag();
            })
        });
        assert!(undeclared.is_err(), "reading past the declaration panics");
        let wrong_kind = std::panic::catch_unwind(|| {
            trace_reads(RECENT_ADD, &placeholder, |r| {
                r.key();
                r.option(Request::string);
            })
        });
        assert!(
            wrong_kind.is_err(),
            "reading a string where an integer is declared panics"
        );
    }

    /// A count is the grammar's: a request that reads it reads what the
    /// grammar does not declare there, and a count that counts no list is
    /// a value no request can read.
    #[test]
    fn tracing_holds_counts_to_the_lists_they_count() {
        let placeholder = words("x");
        let merge = |r: &mut Request<'_, Vec<u8>>| {
            r.key();
            r.items(Request::key).for_each(drop);
            r.option(|weights| weights.list(Request::integer));
        };
        assert_eq!(trace_reads(MERGE, &placeholder, merge), Ok(()));
        let count_read = std::panic::catch_unwind(|| {
            trace_reads(MERGE, &placeholder, |r| {
                r.key();
                r.integer();
                r.list(Request::key);
                r.option(|weights| weights.list(Request::integer));
            })
        });
        assert!(count_read.is_err(), "a count is not the request's to read");
        static COUNTS_NOTHING: &[Arg] = &[Arg::count("numkeys"), Arg::key("key", RW).multiple()];
        let err = trace_reads(COUNTS_NOTHING, &placeholder, |r| {
            r.list(Request::key);
        })
        .unwrap_err();
        assert_eq!(err, "`numkeys` is declared but not read");
        static COUNTED_BY_AN_INTEGER: &[Arg] = &[
            Arg::integer("numkeys"),
            Arg::key("key", RW).counted_by("numkeys"),
        ];
        let err = trace_reads(COUNTED_BY_AN_INTEGER, &placeholder, |r| {
            r.integer();
            r.list(Request::key);
        })
        .unwrap_err();
        assert_eq!(
            err,
            "`key` is counted by `numkeys`, which is no count declared before it"
        );
    }

    #[test]
    fn pairs_must_be_whole() {
        assert!(parse_text(FEED_ADD, "f k CAP 9 1 a 2 CAP").is_ok());
        assert_eq!(
            mistake(FEED_ADD, "f k 1 a 2"),
            Mistake::Unpaired("score member".into())
        );
        assert_eq!(parse_text(FEED_ADD, "f k x a"), Err(GrammarError::NotFloat));
        // A keyword where a number stands is a misplaced option.
        assert_eq!(
            mistake(FEED_ADD, "f k 1 a CAP 2"),
            Mistake::Unexpected("CAP".into())
        );
    }

    #[test]
    fn usage_and_arity_come_from_the_declaration() {
        assert_eq!(
            usage("recent.add", RECENT_ADD),
            "RECENT.ADD key [CAP cap] [TTL seconds] ITEMS member [member ...]"
        );
        assert_eq!(
            usage("rank.merge", MERGE),
            "RANK.MERGE destkey numkeys key [key ...] [WEIGHTS weight [weight ...]]"
        );
        assert_eq!(
            usage("p", POLL),
            "P key [COUNT count] [LEASE inflight ms] [GT | LT]"
        );
        // ITEMS counts one word: a lone item without it reaches the parser.
        assert_eq!(arity(RECENT_ADD), -3);
        assert_eq!(arity(MGIFT), -5);
    }

    #[test]
    fn the_short_decimal_parse_takes_plain_numbers_only() {
        for (text, value) in [
            ("1700000000000", 1.7e12f64),
            ("-2.5", -2.5),
            ("0.1", 0.1),
            ("-0", -0.0),
            ("007", 7.0),
            ("999999999999999", 999_999_999_999_999.0),
        ] {
            let short = parse_short_decimal(text.as_bytes()).map(f64::to_bits);
            assert_eq!(short, Some(value.to_bits()), "{text}");
        }
        for text in [
            "",
            "-",
            "1e3",
            ".5",
            "5.",
            "+1",
            "1.2.3",
            " 1",
            "inf",
            "1234567890123456",
        ] {
            assert_eq!(parse_short_decimal(text.as_bytes()), None, "{text}");
        }
    }

    proptest! {
        #[test]
        fn parsing_never_panics_and_keys_stay_inside_argv(
            argv in proptest::collection::vec("[0-9a-zA-Z-]{0,5}|CAP|TTL|ITEMS|WEIGHTS|LEASE|GT|1|2", 0..9)
        ) {
            for grammar in [RECENT_ADD, FEED_ADD, MERGE, MGIFT, POLL] {
                for (i, _) in key_positions("c", grammar, &argv) {
                    prop_assert!(i >= 1 && i < argv.len());
                }
            }
        }

        #[test]
        fn every_i64_round_trips(n in any::<i64>()) {
            prop_assert_eq!(parse_i64(n.to_string().as_bytes()), Some(n));
        }

        #[test]
        fn integers_parse_as_a_digit_at_a_time_does(
            text in "-?[0-9/:a ]{0,3}[0-9]{0,17}[0-9/:]{0,3}"
        ) {
            // Digits next to bytes just outside `0-9` (`/`, `:`), at every
            // place of the eight-digit steps.
            let canonical = text.parse::<i64>().ok().filter(|n| n.to_string() == text);
            prop_assert_eq!(parse_i64(text.as_bytes()), canonical);
        }

        #[test]
        fn integers_parse_as_redis_does(text in "[-+]?[0-9]{1,20}") {
            // Redis's string2ll: no sign but `-`, no leading zero, no `-0`.
            let canonical = text.parse::<i64>().ok().filter(|n| n.to_string() == text);
            prop_assert_eq!(parse_i64(text.as_bytes()), canonical);
        }

        #[test]
        fn short_decimals_parse_as_the_full_parse_does(
            text in "-?[0-9]{0,9}(\\.[0-9]{0,8})?|-?[0-9]{14,17}|[0-9.+eE-]{1,6}"
        ) {
            let short = parse_short_decimal(text.as_bytes());
            if let Some(value) = short {
                let full = parse_any_f64(text.as_bytes());
                prop_assert_eq!(full.map(f64::to_bits), Some(value.to_bits()), "{}", text);
            }
        }

        #[test]
        fn number_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_i64(&bytes);
            let _ = parse_f64(&bytes);
        }
    }
}
