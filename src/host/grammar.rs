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

use std::fmt::Write as _;

use super::command::{BeginSearch, FindKeys, KeySpec};

/// One declared argument.
pub struct Arg {
    pub name: &'static str,
    pub kind: ArgKind,
    /// The keyword before the value(s): `AT` in `AT unix-ms`.
    pub token: Option<&'static str>,
    pub optional: bool,
    pub multiple: bool,
    /// For a list: the name of the earlier integer argument that says how
    /// many items it holds (`numkeys`).
    pub counted_by: Option<&'static str>,
    /// The version that added it (for options newer than their command).
    pub since: Option<&'static str>,
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
            kind,
            token: None,
            optional: false,
            multiple: false,
            counted_by: None,
            since: None,
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
        self.token = Some(token);
        self
    }

    pub const fn optional(mut self) -> Arg {
        self.optional = true;
        self
    }

    pub const fn multiple(mut self) -> Arg {
        self.multiple = true;
        self
    }

    /// A list of as many items as the earlier integer `count` says.
    pub const fn counted_by(mut self, count: &'static str) -> Arg {
        self.multiple = true;
        self.counted_by = Some(count);
        self
    }

    /// Added in `version`.
    pub const fn since(mut self, version: &'static str) -> Arg {
        self.since = Some(version);
        self
    }

    /// An option: optional and found by its keyword (or its choices').
    fn is_option(&self) -> bool {
        self.optional && !self.keywords().is_empty()
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
    fn item_width(&self) -> usize {
        match self.kind {
            ArgKind::PureToken => 0,
            ArgKind::Block(parts) => parts.iter().map(Arg::min_width).sum(),
            ArgKind::OneOf(choices) => choices.iter().map(Arg::min_width).min().unwrap_or(0),
            _ => 1,
        }
    }

    /// The fewest words this argument takes in a call.
    fn min_width(&self) -> usize {
        if self.optional {
            return 0;
        }
        usize::from(self.token.is_some()) + self.item_width()
    }
}

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

/// Parses a 64-bit integer exactly as Redis's `string2ll` does: no `+`, no
/// leading zeros, no spaces, within i64.
pub fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    let valid = match digits {
        [b'0'] => !negative,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !valid {
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

/// Parses a double as Redis does (`inf`, `-inf`, exponents), refusing NaN
/// and, like Redis's `strtod` check, a finite number too large for a double
/// (`1e400`) or so small it would round to zero (`1e-400`).
pub fn parse_f64(bytes: &[u8]) -> Option<f64> {
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

/// One parsed argument, in the shape its declaration gives it.
#[derive(Debug, PartialEq)]
pub enum Value<'a, A> {
    /// An option that was not given.
    Absent,
    Key(&'a A),
    Str(&'a A),
    Int(i64),
    Float(f64),
    /// A keyword alone, given.
    Token,
    /// The choice at this index of a one-of, and its value.
    Choice(usize, Box<Value<'a, A>>),
    /// A block's parts, or an option's values.
    Block(Vec<Value<'a, A>>),
    List(Vec<Value<'a, A>>),
}

/// A call parsed by its grammar: one value per declared argument, in
/// declaration order, read by the command's typed request with [`Request`].
pub struct Parsed<'a, A> {
    values: Vec<Value<'a, A>>,
    /// The argv index and key-spec flags of every key, in argv order.
    pub keys: Vec<(usize, u32)>,
}

impl<'a, A> Parsed<'a, A> {
    pub fn request(self) -> Request<'a, A> {
        Request {
            values: self.values.into_iter(),
        }
    }
}

/// Parses `argv` (the command name first) by `args`, the command `name`'s
/// grammar. On error, also returns the keys found before the mistake (what
/// COMMAND GETKEYS answers for a malformed call).
#[allow(clippy::type_complexity)]
pub fn parse<'a, A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    argv: &'a [A],
) -> Result<Parsed<'a, A>, (GrammarError, Vec<(usize, u32)>)> {
    let mut parser = Parser {
        name,
        grammar: args,
        argv,
        at: 1,
        counts: Vec::new(),
        keys: Vec::new(),
    };
    let parsed = parser
        .sequence(args)
        .and_then(|values| match argv.get(parser.at) {
            None => Ok(values),
            Some(word) => Err(parser.mistake(Mistake::Unexpected(show(word.as_ref())))),
        });
    match parsed {
        Ok(values) => Ok(Parsed {
            values,
            keys: parser.keys,
        }),
        Err(error) => Err((error, parser.keys)),
    }
}

/// The argv index and flags of every key of a call; for a malformed call,
/// those found before the mistake.
pub fn key_positions<A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    argv: &[A],
) -> Vec<(usize, u32)> {
    match parse(name, args, argv) {
        Ok(parsed) => parsed.keys,
        Err((_, keys)) => keys,
    }
}

struct Parser<'a, 'n, A> {
    name: &'n str,
    grammar: &'static [Arg],
    argv: &'a [A],
    /// The next argv index to read.
    at: usize,
    /// Integers read so far, by name, for the lists they count.
    counts: Vec<(&'static str, i64)>,
    keys: Vec<(usize, u32)>,
}

impl<'a, A: AsRef<[u8]>> Parser<'a, '_, A> {
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

    fn word(&mut self, missing: Mistake) -> Result<&'a A, GrammarError> {
        let word = self
            .argv
            .get(self.at)
            .ok_or_else(|| self.mistake(missing))?;
        self.at += 1;
        Ok(word)
    }

    /// A run of arguments: options are looked for as a group, in any order,
    /// wherever the declaration puts them.
    fn sequence(&mut self, args: &'static [Arg]) -> Result<Vec<Value<'a, A>>, GrammarError> {
        let mut values: Vec<Value<'a, A>> = Vec::with_capacity(args.len());
        let mut i = 0;
        while i < args.len() {
            if !args[i].is_option() {
                values.push(self.required(&args[i], &args[i + 1..])?);
                i += 1;
                continue;
            }
            let group_end = (i..args.len())
                .find(|&j| !args[j].is_option())
                .unwrap_or(args.len());
            let group = &args[i..group_end];
            let mut found: Vec<Value<'a, A>> = group.iter().map(|_| Value::Absent).collect();
            while let Some(word) = self.peek() {
                let Some((index, choice)) = find_option(group, word) else {
                    break;
                };
                let option = &group[index];
                if !matches!(found[index], Value::Absent) {
                    let first = match (&found[index], &option.kind) {
                        (Value::Choice(c, _), ArgKind::OneOf(choices)) => choices[*c].keywords()[0],
                        _ => option.keywords()[0],
                    };
                    let again = option_keyword(option, choice);
                    return Err(self.mistake(if first == again {
                        Mistake::Repeated(again)
                    } else {
                        Mistake::Exclusive(first, again)
                    }));
                }
                self.at += 1;
                found[index] = match (choice, &option.kind) {
                    (Some(c), ArgKind::OneOf(choices)) => {
                        Value::Choice(c, Box::new(self.after_keyword(&choices[c])?))
                    }
                    _ => self.after_keyword(option)?,
                };
            }
            values.extend(found);
            i = group_end;
        }
        Ok(values)
    }

    /// What follows an argument's keyword (already read).
    fn after_keyword(&mut self, arg: &'static Arg) -> Result<Value<'a, A>, GrammarError> {
        let keyword = arg.token.unwrap_or(arg.name);
        if arg.multiple {
            return self.list(arg, &[], Some(keyword));
        }
        match arg.kind {
            ArgKind::PureToken => Ok(Value::Token),
            _ => self.item(arg, Mistake::OptionIncomplete(keyword)),
        }
    }

    /// A required argument; `rest` is what the declaration puts after it.
    fn required(
        &mut self,
        arg: &'static Arg,
        rest: &'static [Arg],
    ) -> Result<Value<'a, A>, GrammarError> {
        if let ArgKind::OneOf(choices) = arg.kind {
            let word = self
                .peek()
                .ok_or_else(|| self.mistake(Mistake::Missing(arg.name)))?;
            let Some(c) = choices.iter().position(|choice| is_token(choice, word)) else {
                return Err(self.mistake(Mistake::Unexpected(show(word))));
            };
            self.at += 1;
            return Ok(Value::Choice(c, Box::new(self.after_keyword(&choices[c])?)));
        }
        if let Some(token) = arg.token {
            let word = self
                .peek()
                .ok_or_else(|| self.mistake(Mistake::Missing(token)))?;
            if !word.eq_ignore_ascii_case(token.as_bytes()) {
                return Err(self.mistake(Mistake::Unexpected(show(word))));
            }
            self.at += 1;
            return self.after_keyword(arg);
        }
        if arg.multiple {
            return self.list(arg, rest, None);
        }
        self.item(arg, Mistake::Missing(arg.name))
    }

    /// A list: counted, or running to the end of the call (after its
    /// keyword, if it has one). At least one item either way.
    fn list(
        &mut self,
        arg: &'static Arg,
        rest: &'static [Arg],
        keyword: Option<&'static str>,
    ) -> Result<Value<'a, A>, GrammarError> {
        let width = arg.item_width().max(1);
        let count = match arg.counted_by {
            Some(counter) => {
                let count = self
                    .counts
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
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(self.item(arg, Mistake::Missing(arg.name))?);
        }
        Ok(Value::List(items))
    }

    /// One item of an argument's kind, its keyword already read.
    fn item(&mut self, arg: &'static Arg, missing: Mistake) -> Result<Value<'a, A>, GrammarError> {
        Ok(match arg.kind {
            ArgKind::Block(parts) => {
                let mut values = Vec::with_capacity(parts.len());
                for part in parts {
                    values.push(self.item(part, missing.clone())?);
                }
                Value::Block(values)
            }
            ArgKind::Key(flags) => {
                let position = self.at;
                let word = self.word(missing)?;
                self.keys.push((position, flags));
                Value::Key(word)
            }
            ArgKind::String => Value::Str(self.word(missing)?),
            ArgKind::Integer | ArgKind::UnixTime => {
                let word = self.word(missing)?.as_ref();
                let n =
                    parse_i64(word).ok_or_else(|| self.not_a(word, GrammarError::NotInteger))?;
                if self.is_counter(arg.name) {
                    if n < 1 {
                        return Err(GrammarError::CountTooSmall(arg.name));
                    }
                    self.counts.push((arg.name, n));
                }
                Value::Int(n)
            }
            ArgKind::Double => {
                let word = self.word(missing)?.as_ref();
                Value::Float(
                    parse_f64(word).ok_or_else(|| self.not_a(word, GrammarError::NotFloat))?,
                )
            }
            ArgKind::PureToken => Value::Token,
            ArgKind::OneOf(_) => unreachable!("a one-of is read by its keyword"),
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

    /// Whether some list of the grammar is counted by the integer `name`.
    fn is_counter(&self, name: &str) -> bool {
        fn counts(args: &[Arg], name: &str) -> bool {
            args.iter().any(|arg| {
                arg.counted_by == Some(name)
                    || match arg.kind {
                        ArgKind::Block(parts) | ArgKind::OneOf(parts) => counts(parts, name),
                        _ => false,
                    }
            })
        }
        counts(self.grammar, name)
    }
}

/// The option of `group` that `word` starts, and for a one-of, which choice.
fn find_option(group: &'static [Arg], word: &[u8]) -> Option<(usize, Option<usize>)> {
    group
        .iter()
        .enumerate()
        .find_map(|(i, arg)| match arg.kind {
            ArgKind::OneOf(choices) if arg.token.is_none() => choices
                .iter()
                .position(|choice| is_token(choice, word))
                .map(|c| (i, Some(c))),
            _ => is_token(arg, word).then_some((i, None)),
        })
}

fn option_keyword(option: &Arg, choice: Option<usize>) -> &'static str {
    match (choice, &option.kind) {
        (Some(c), ArgKind::OneOf(choices)) => choices[c].keywords()[0],
        _ => option.keywords()[0],
    }
}

fn is_token(arg: &Arg, word: &[u8]) -> bool {
    arg.token
        .is_some_and(|token| word.eq_ignore_ascii_case(token.as_bytes()))
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
/// order. A read that does not match the declaration is a bug in the
/// command, caught as a panic by the dispatcher and by every test that
/// calls the command.
pub struct Request<'a, A> {
    values: std::vec::IntoIter<Value<'a, A>>,
}

impl<'a, A> Request<'a, A> {
    fn next(&mut self, wanted: &str) -> Value<'a, A> {
        self.values
            .next()
            .unwrap_or_else(|| panic!("the request reads a {wanted} the grammar does not declare"))
    }

    fn mismatch(wanted: &str) -> ! {
        panic!("the request reads a {wanted} where the grammar declares something else")
    }

    pub fn key(&mut self) -> &'a A {
        match self.next("key") {
            Value::Key(key) => key,
            _ => Self::mismatch("key"),
        }
    }

    pub fn string(&mut self) -> &'a A {
        match self.next("string") {
            Value::Str(s) => s,
            _ => Self::mismatch("string"),
        }
    }

    pub fn integer(&mut self) -> i64 {
        match self.next("integer") {
            Value::Int(n) => n,
            _ => Self::mismatch("integer"),
        }
    }

    pub fn double(&mut self) -> f64 {
        match self.next("double") {
            Value::Float(x) => x,
            _ => Self::mismatch("double"),
        }
    }

    /// An optional keyword alone: whether it was given.
    pub fn flag(&mut self) -> bool {
        match self.next("flag") {
            Value::Token => true,
            Value::Absent => false,
            _ => Self::mismatch("flag"),
        }
    }

    /// An option's values, read by `read`; `None` when it was not given.
    pub fn option<T>(&mut self, read: impl FnOnce(&mut Request<'a, A>) -> T) -> Option<T> {
        match self.next("option") {
            Value::Absent => None,
            value => Some(read(&mut Request::of(value))),
        }
    }

    /// A one-of (required or optional): the choice's value in `choices`, in
    /// declaration order; each reads what follows its keyword.
    pub fn one_of<T>(&mut self, choices: &[fn(&mut Request<'a, A>) -> T]) -> Option<T> {
        match self.next("one-of") {
            Value::Absent => None,
            Value::Choice(index, value) => Some(choices[index](&mut Request::of(*value))),
            _ => Self::mismatch("one-of"),
        }
    }

    /// A required one-of: the chosen value (see [`Request::one_of`]).
    pub fn choice<T>(&mut self, choices: &[fn(&mut Request<'a, A>) -> T]) -> T {
        self.one_of(choices)
            .unwrap_or_else(|| Self::mismatch("required one-of"))
    }

    /// A list, each item read by `read` (a block's parts in order).
    pub fn list<T>(&mut self, mut read: impl FnMut(&mut Request<'a, A>) -> T) -> Vec<T> {
        match self.next("list") {
            Value::List(items) => items
                .into_iter()
                .map(|item| read(&mut Request::of(item)))
                .collect(),
            _ => Self::mismatch("list"),
        }
    }

    /// The values of one item: a block's parts, or the value itself.
    fn of(value: Value<'a, A>) -> Request<'a, A> {
        let values = match value {
            Value::Block(parts) => parts,
            Value::List(_) => vec![value],
            other => vec![other],
        };
        Request {
            values: values.into_iter(),
        }
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

/// The key specs the server is told, one per declared key, in declaration
/// order. A key at a fixed index, or counted by an integer at a fixed index,
/// is exact. A key inside an option is found after its keyword, which a
/// value spelled like the keyword could precede: such a spec is marked
/// INCOMPLETE, so the server asks the module (which parses the call with
/// this grammar) for the keys instead of searching for the keyword.
pub fn key_specs(args: &'static [Arg], incomplete: u32) -> Vec<KeySpec> {
    let mut specs = Vec::new();
    // The argv index of the next argument while every one before is at a
    // fixed place.
    let mut fixed: Option<i32> = Some(1);
    let mut counters: Vec<(&str, i32)> = Vec::new();
    for arg in args {
        match (&arg.kind, arg.token) {
            (ArgKind::Key(flags), None) if !arg.multiple && !arg.optional => {
                let index = fixed.expect("a positional key follows only fixed arguments");
                specs.push(KeySpec::at(index, *flags));
            }
            (ArgKind::Key(flags), None) if arg.counted_by.is_some() => {
                let counter = arg.counted_by.unwrap_or_default();
                let (_, at) = counters
                    .iter()
                    .find(|(name, _)| *name == counter)
                    .copied()
                    .expect("a key list's count has a fixed place");
                assert_eq!(fixed, Some(at + 1), "a key list follows its count");
                specs.push(KeySpec {
                    flags: *flags,
                    begin: BeginSearch::Index(at),
                    find: FindKeys::KeyNum {
                        count_index: 0,
                        first: 1,
                        step: 1,
                    },
                });
            }
            (_, Some(token)) => {
                if let ArgKind::Block(parts) = arg.kind {
                    let found: Vec<(i32, u32)> = parts
                        .iter()
                        .enumerate()
                        .filter_map(|(i, part)| match part.kind {
                            ArgKind::Key(flags) => Some((i as i32, flags)),
                            _ => None,
                        })
                        .collect();
                    for (offset, flags) in found {
                        specs.push(KeySpec {
                            flags: flags | incomplete,
                            begin: BeginSearch::Keyword {
                                keyword: token,
                                start: 1,
                            },
                            find: FindKeys::Range {
                                last: offset,
                                step: 1,
                                limit: 0,
                            },
                        });
                    }
                } else if let ArgKind::Key(flags) = arg.kind {
                    specs.push(KeySpec::after_keyword(token, 1, flags | incomplete));
                }
            }
            (ArgKind::Key(_), None) => panic!("a key list is counted or follows a keyword"),
            _ => {}
        }
        if matches!(arg.kind, ArgKind::Integer) && fixed.is_some() && !arg.optional {
            counters.push((arg.name, fixed.unwrap_or_default()));
        }
        fixed = match fixed {
            Some(at) if !arg.optional && !arg.multiple && arg.token.is_none() => {
                Some(at + arg.item_width() as i32)
            }
            _ => None,
        };
    }
    specs
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RW: u32 = 1;
    const RO: u32 = 2;

    // Today's grammars and the 0.2 ones they replaced.
    static RECENT_ADD: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("cap").token("CAP").optional(),
        Arg::integer("seconds").token("TTL").optional(),
        Arg::string("member").token("ITEMS").multiple(),
    ];
    static RECENT_ADD_0_2: &[Arg] = &[
        Arg::key("key", RW),
        Arg::string("member").multiple(),
        Arg::integer("cap").token("CAP").optional(),
        Arg::integer("seconds").token("TTL").optional(),
    ];
    static MGET_0_2: &[Arg] = &[
        Arg::key("key", RO),
        Arg::string("member").multiple(),
        Arg::pure_token("shared", "SHARED").optional(),
    ];
    static MGET_OPTION_FIRST: &[Arg] = &[
        Arg::key("key", RO),
        Arg::pure_token("shared", "SHARED").optional(),
        Arg::string("member").multiple(),
    ];
    static FEED_ADD: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("n").token("CAP").optional(),
        Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
    ];
    static FEED_ADD_WITH_INF: &[Arg] = &[
        Arg::key("key", RW),
        Arg::integer("n").token("INF").optional(),
        Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
    ];
    static MERGE: &[Arg] = &[
        Arg::key("destkey", RW),
        Arg::integer("numkeys"),
        Arg::key("key", RO).counted_by("numkeys"),
        Arg::integer("weight")
            .token("WEIGHTS")
            .optional()
            .counted_by("numkeys"),
    ];
    static MGIFT: &[Arg] = &[
        Arg::integer("numkeys"),
        Arg::key("key", RW).counted_by("numkeys"),
        Arg::string("member"),
        Arg::integer("amount"),
        Arg::unix_time("unix-ms").token("AT").optional(),
    ];
    static POLL: &[Arg] = &[
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

    fn words(text: &str) -> Vec<Vec<u8>> {
        text.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn parse_text(args: &'static [Arg], text: &str) -> Result<Vec<String>, GrammarError> {
        let argv = words(text);
        let parsed = parse("cmd", args, &argv).map_err(|(e, _)| e)?;
        Ok(parsed.values.iter().map(|v| format!("{v:?}")).collect())
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
        let parsed = parse_text(RECENT_ADD, "c k CAP 3 ITEMS CAP TTL items").unwrap();
        assert_eq!(parsed[1], "Int(3)");
        assert_eq!(parsed[2], "Absent");
        let item = |w: &str| format!("Str({:?})", w.as_bytes().to_vec());
        assert_eq!(
            parsed[3],
            format!(
                "List([{}, {}, {}])",
                item("CAP"),
                item("TTL"),
                item("items")
            )
        );
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
        let parsed = parse_text(POLL, "c q lt LEASE held 5 COUNT 2").unwrap();
        assert_eq!(parsed[1], "Int(2)");
        assert!(parsed[2].starts_with("Block([Key("));
        assert!(parsed[3].starts_with("Choice(1"));
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
        let parsed = parse_text(MERGE, "m d 2 a b WEIGHTS 1 2").unwrap();
        assert!(parsed[2].starts_with("List([Key"));
        assert_eq!(parsed[3], "List([Int(1), Int(2)])");
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
    fn usage_arity_and_key_specs_come_from_the_declaration() {
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
        let specs = key_specs(MERGE, 0);
        assert!(matches!(specs[0].begin, BeginSearch::Index(1)));
        assert!(matches!(specs[1].begin, BeginSearch::Index(2)));
        let specs = key_specs(POLL, 512);
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].flags, RW | 512);
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
        fn number_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_i64(&bytes);
            let _ = parse_f64(&bytes);
        }
    }
}
