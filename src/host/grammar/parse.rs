//! The parse: a call's words, walked by its declaration, into one value
//! per declared node (a [`Slot`]), or the mistake an error reply names.

use super::arg::{keywords, nodes, Arg, ArgKind, SKIP_WRAPPER_OPTION};
use super::keyword::{find_option, is_keyword, is_token};
use super::number::{parse_f64, parse_i64};
use super::request::Request;
use super::slot::{Counts, FillSlots, Slot, MAX_NODES};
use super::syntax::usage;

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
    /// A required one-of is missing (its choices' keywords, `TASKS or
    /// LEASES`).
    MissingChoice(String),
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
    argv: &[A],
    key: &mut impl FnMut(usize, u32),
    then: impl FnOnce(Request<'_, A>) -> R,
) -> Result<R, GrammarError> {
    let mut slots = [Slot::Absent; MAX_NODES];
    let wrapper_options_given = fill_slots(name, args, argv, key, &mut slots)?;
    Ok(then(Request::parsed(
        argv,
        &slots,
        args,
        wrapper_options_given,
    )))
}

/// Parses `argv` into `slots`, one per declared node; says whether an
/// option read by a wrapper ([`Arg::read_by_wrapper`]) was given.
fn fill_slots<A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    argv: &[A],
    key: &mut impl FnMut(usize, u32),
    slots: &mut [Slot; MAX_NODES],
) -> Result<bool, GrammarError> {
    let mut parser = Parser {
        name,
        grammar: args,
        argv,
        at: 1,
        counts: Counts::new(),
        wrapper_options_given: false,
        kept_next: 0,
        slots,
        key,
    };
    parser.sequence(args, 0)?;
    if let Some(word) = argv.get(parser.at) {
        return Err(parser.mistake(Mistake::Unexpected(show(word.as_ref()))));
    }
    Ok(parser.wrapper_options_given)
}

/// What the walk fills for `argv`, as the tests compare it with the
/// generated parse's.
#[cfg(test)]
pub fn walked_parse<A: AsRef<[u8]>>(
    name: &str,
    args: &'static [Arg],
    argv: &[A],
) -> Result<super::slot::ParsedCall, GrammarError> {
    let mut slots = [Slot::Absent; MAX_NODES];
    let wrapper_options_given = fill_slots(name, args, argv, &mut |_, _| {}, &mut slots)?;
    Ok(super::slot::ParsedCall {
        slots,
        wrapper_options_given,
    })
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
        argv,
        &mut |position, flags| keys.push((position, flags)),
        |_| (),
    );
    keys
}
struct Parser<'a, 'n, A, K> {
    name: &'n str,
    grammar: &'static [Arg],
    argv: &'a [A],
    /// The next argv index to read.
    at: usize,
    /// Integers read so far that count lists, by name.
    counts: Counts,
    /// Whether an option read by its wrapper was given.
    wrapper_options_given: bool,
    /// The first slot past the declared nodes not holding a list's kept
    /// values (`Slot::List`); 0 until a list of numbers is parsed.
    kept_next: usize,
    slots: &'n mut [Slot; MAX_NODES],
    key: &'n mut K,
}

impl<A: AsRef<[u8]>, K: FnMut(usize, u32)> FillSlots for Parser<'_, '_, A, K> {
    type Error = GrammarError;
    type Missing = Short;

    fn slots(&mut self) -> &mut [Slot; MAX_NODES] {
        self.slots
    }

    fn kept_next(&mut self) -> &mut usize {
        &mut self.kept_next
    }

    fn declared_nodes(&self) -> usize {
        nodes(self.grammar)
    }

    fn pass(&mut self, n: usize) {
        self.at += n;
    }

    fn value_of(&mut self, part: &'static Arg, missing: Short) -> Result<Slot, GrammarError> {
        self.value(part, missing)
    }

    fn missing_item(list: &'static Arg) -> Short {
        Short::Missing(list.name)
    }
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
    fn sequence(&mut self, args: &'static [Arg], mut node: usize) -> Result<(), GrammarError> {
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
            // The group: the run of options from here.
            let group_end = i + args[i..].iter().take_while(|arg| arg.is_option()).count();
            let group = &args[i..group_end];
            while let Some(word) = self.peek() {
                let Some((index, choice)) = find_option(group, word) else {
                    break;
                };
                let option = &group[index];
                let option_node = node + nodes(&group[..index]);
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
                self.wrapper_options_given |= option.skip & SKIP_WRAPPER_OPTION != 0;
                match (choice, &option.kind) {
                    (Some(c), ArgKind::OneOf(choices)) => {
                        self.slots[option_node] = Slot::Choice(c);
                        let choice_node = option_node + 1 + nodes(&choices[..c]);
                        self.after_keyword(&choices[c], choice_node)?;
                    }
                    _ => self.after_keyword(option, option_node)?,
                }
            }
            node += nodes(group);
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
                .ok_or_else(|| self.mistake(Mistake::MissingChoice(arg.keywords().join(" or "))))?;
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
                let count = self
                    .counts
                    .of(counter)
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
        self.list_items(arg, node, first, count)
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
                    assert!(
                        self.counts.keep(arg.name, n),
                        "too many counts in a grammar"
                    );
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

/// The keyword that starts an option (or the choice of a one-of).
fn option_keyword(option: &Arg, choice: Option<usize>) -> &'static str {
    match (choice, &option.kind) {
        (Some(c), ArgKind::OneOf(choices)) => option_keyword(&choices[c], None),
        _ => option.token.unwrap_or(option.name),
    }
}

/// A word as an error message shows it: text, or escaped bytes, cut short.
pub(super) fn show(word: &[u8]) -> String {
    let text: String = word.escape_ascii().to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::grammar::examples::*;
    use crate::host::grammar::Request;
    use proptest::prelude::*;

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
    }
}
