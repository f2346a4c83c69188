//! Each command's parse, generated from its declaration when the module is
//! built.
//!
//! [`declare_command!`](crate::declare_command) gives every command a type
//! of its own whose [`Declared::ARGS`] is its declaration, a constant, and
//! [`parse_declared`] is instantiated for that type: one step per declared
//! argument, each specialised by the compiler for the argument at its
//! index (its kind, node, keyword, what follows it), so a command's parse
//! is straight-line code. A required value sits at a position the compiler
//! knows while every argument before it has a fixed width; a group of
//! options is one scan of the words that follow, each word compared with
//! the group's keywords, packed into an integer each when the declaration
//! is built.
//!
//! It only parses: a call it refuses is parsed again by the walk over the
//! declaration ([`parse`](super::parse())), which names the mistake (the
//! error reply and its usage line) and finds the keys COMMAND GETKEYS
//! answers. The two agree on every call:
//! `the_generated_parse_fills_what_the_walk_fills` (in `commands`) holds
//! every command to it on random argument vectors, malformed ones included.

use super::arg::{const_nodes, Arg, ArgKind, SKIP_WRAPPER_OPTION};
use super::keyword::{is_keyword, packed};
use super::number::{parse_f64, parse_i64};
use super::request::Request;
use super::slot::{Counts, FillSlots, Slot, MAX_NODES};

/// A command's declaration as a constant of its own type, for which its
/// parse is generated ([`parse_declared`]).
pub trait Declared {
    const ARGS: &'static [Arg];
}

/// Parses `argv` (the command name first) by `D`'s declaration, then gives
/// `then` the parsed call's request, read by `args` (`D::ARGS`, as the
/// command static holds it); `None` when the call does not fit the
/// declaration (the walk then says why).
#[inline(always)]
pub fn parse_declared<D: Declared, A: AsRef<[u8]>, R>(
    argv: &[A],
    args: &'static [Arg],
    then: impl FnOnce(Request<'_, A>) -> R,
) -> Option<R> {
    let mut slots = [Slot::Absent; MAX_NODES];
    let wrapper_options_given = fill::<D, A>(argv, &mut slots)?;
    Some(then(Request::parsed(
        argv,
        &slots,
        args,
        wrapper_options_given,
    )))
}

/// What [`parse_declared`] fills for `argv`, as the tests compare it with
/// the walk's.
#[cfg(test)]
pub fn generated_parse<D: Declared>(argv: &[Vec<u8>]) -> Option<super::slot::ParsedCall> {
    let mut slots = [Slot::Absent; MAX_NODES];
    let wrapper_options_given = fill::<D, Vec<u8>>(argv, &mut slots)?;
    Some(super::slot::ParsedCall {
        slots,
        wrapper_options_given,
    })
}

/// The most top-level arguments a declaration holds (each takes a node).
const MAX_ARGS: usize = MAX_NODES;

/// Runs `$step::<..., I>` for every index I below [`MAX_ARGS`]: each step
/// of an index past the declaration is empty once the compiler has
/// specialised it.
macro_rules! for_each_index {
    ($run:ident) => {
        $run!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
}

/// Fills `slots` from `argv` by `D`'s declaration, as the walk would;
/// says whether an option read by a wrapper was given.
#[inline(always)]
fn fill<D: Declared, A: AsRef<[u8]>>(argv: &[A], slots: &mut [Slot; MAX_NODES]) -> Option<bool> {
    const { assert!(D::ARGS.len() <= MAX_ARGS && const_nodes(D::ARGS) <= MAX_NODES) };
    let mut parse = Generated {
        argv,
        at: 1,
        slots,
        counts: Counts::new(),
        wrapper_options_given: false,
        kept_next: 0,
        declared_nodes: const { const_nodes(D::ARGS) },
    };
    macro_rules! steps {
        ($($i:literal)*) => { $( parse.step::<D, $i>()?; )* };
    }
    for_each_index!(steps);
    if parse.at < argv.len() {
        return None;
    }
    Some(parse.wrapper_options_given)
}

/// What stands at index `i` of a declaration: its argument, or none.
const fn arg_at(args: &'static [Arg], i: usize) -> Option<&'static Arg> {
    if i < args.len() {
        Some(&args[i])
    } else {
        None
    }
}

/// The first node of argument `i`.
const fn node_at(args: &[Arg], i: usize) -> usize {
    let mut node = 0;
    let mut j = 0;
    while j < i && j < args.len() {
        node += args[j].node_count;
        j += 1;
    }
    node
}

/// The first argument of the group of options argument `i` stands in, or
/// `usize::MAX` where there is no option at `i`.
const fn group_start(args: &[Arg], i: usize) -> usize {
    if i >= args.len() || !args[i].option {
        return usize::MAX;
    }
    let mut start = i;
    while start > 0 && args[start - 1].option {
        start -= 1;
    }
    start
}

/// The fewest words the arguments after `i` take.
const fn min_width_after(args: &[Arg], i: usize) -> usize {
    let mut width = 0;
    let mut j = i + 1;
    while j < args.len() {
        width += args[j].min_width();
        j += 1;
    }
    width
}

/// A call being parsed by a generated parse: what the walk's `Parser`
/// keeps, but for what only the walk needs (the command's name for the
/// usage line, the keys for COMMAND GETKEYS).
struct Generated<'a, 's, A> {
    argv: &'a [A],
    /// The next argv index to read.
    at: usize,
    slots: &'s mut [Slot; MAX_NODES],
    /// Integers read so far that count lists, by name.
    counts: Counts,
    wrapper_options_given: bool,
    /// The first slot past the declared nodes not holding a list's kept
    /// values (`Slot::List`); 0 until a list of numbers is parsed.
    kept_next: usize,
    declared_nodes: usize,
}

impl<A: AsRef<[u8]>> FillSlots for Generated<'_, '_, A> {
    type Error = ();
    type Missing = ();

    #[inline(always)]
    fn slots(&mut self) -> &mut [Slot; MAX_NODES] {
        self.slots
    }

    #[inline(always)]
    fn kept_next(&mut self) -> &mut usize {
        &mut self.kept_next
    }

    #[inline(always)]
    fn declared_nodes(&self) -> usize {
        self.declared_nodes
    }

    #[inline(always)]
    fn pass(&mut self, n: usize) {
        self.at += n;
    }

    #[inline(always)]
    fn value_of(&mut self, part: &'static Arg, _: ()) -> Result<Slot, ()> {
        self.value(part).ok_or(())
    }

    #[inline(always)]
    fn missing_item(_: &'static Arg) {}
}

impl<A: AsRef<[u8]>> Generated<'_, '_, A> {
    /// Argument `I` of `D`'s declaration; a group of options at its first
    /// option.
    #[inline(always)]
    fn step<D: Declared, const I: usize>(&mut self) -> Option<()> {
        let Some(arg) = (const { arg_at(D::ARGS, I) }) else {
            return Some(());
        };
        let node = const { node_at(D::ARGS, I) };
        if arg.plain {
            self.slots[node] = self.value(arg)?;
            return Some(());
        }
        if !arg.option {
            return self.required(arg, const { min_width_after(D::ARGS, I) }, node);
        }
        if const { group_start(D::ARGS, I) != I } {
            return Some(());
        }
        'scan: while let Some(word) = self.argv.get(self.at) {
            let word = word.as_ref();
            let packed_word = packed(word);
            macro_rules! options {
                ($($k:literal)*) => {$(
                    if const { group_start(D::ARGS, $k) == I } {
                        if self.option::<D, $k>(word, packed_word)? {
                            continue 'scan;
                        }
                    }
                )*};
            }
            for_each_index!(options);
            break;
        }
        Some(())
    }

    /// Option `K` of `D`'s declaration, if `word` (packed as
    /// `packed_word`) starts it: `Some(false)` when it does not, `None`
    /// when the call cannot parse (the option given twice, or incomplete).
    #[inline(always)]
    fn option<D: Declared, const K: usize>(
        &mut self,
        word: &[u8],
        packed_word: Option<u64>,
    ) -> Option<bool> {
        let Some(option) = (const { arg_at(D::ARGS, K) }) else {
            return Some(false);
        };
        let node = const { node_at(D::ARGS, K) };
        let choice = match option.kind {
            ArgKind::OneOf(choices) => {
                let Some(c) = choices
                    .iter()
                    .position(|choice| starts(choice, word, packed_word))
                else {
                    return Some(false);
                };
                Some((choices, c))
            }
            _ if starts(option, word, packed_word) => None,
            _ => return Some(false),
        };
        if self.slots[node] != Slot::Absent {
            return None;
        }
        self.at += 1;
        self.wrapper_options_given |= option.skip & SKIP_WRAPPER_OPTION != 0;
        match choice {
            Some((choices, c)) => {
                self.slots[node] = Slot::Choice(c);
                let choice_node = node + 1 + nodes_before(choices, c);
                self.after_keyword(&choices[c], choice_node)?;
            }
            None => self.after_keyword(option, node)?,
        }
        Some(true)
    }

    /// What follows an argument's keyword (already read).
    #[inline(always)]
    fn after_keyword(&mut self, arg: &'static Arg, node: usize) -> Option<()> {
        if arg.multiple {
            return self.list(arg, 0, node);
        }
        self.item(arg, (), node).ok()
    }

    /// A required argument that is not a plain value; the arguments after
    /// it take at least `after` words.
    #[inline(always)]
    fn required(&mut self, arg: &'static Arg, after: usize, node: usize) -> Option<()> {
        if let ArgKind::OneOf(choices) = arg.kind {
            let word = self.argv.get(self.at)?.as_ref();
            let packed_word = packed(word);
            let c = choices
                .iter()
                .position(|choice| starts(choice, word, packed_word))?;
            self.at += 1;
            self.slots[node] = Slot::Choice(c);
            return self.after_keyword(&choices[c], node + 1 + nodes_before(choices, c));
        }
        if arg.token.is_some() {
            let word = self.argv.get(self.at)?.as_ref();
            if !starts(arg, word, packed(word)) {
                return None;
            }
            self.at += 1;
            return self.after_keyword(arg, node);
        }
        if arg.multiple {
            return self.list(arg, after, node);
        }
        self.item(arg, (), node).ok()
    }

    /// A list, as the walk's `Parser::list` parses it: counted, or running
    /// to the end of the call; `after`: the fewest words after it.
    #[inline(always)]
    fn list(&mut self, arg: &'static Arg, after: usize, node: usize) -> Option<()> {
        let width = arg.item_width().max(1);
        let remaining = self.argv.len().saturating_sub(self.at);
        let count = match arg.counted_by {
            Some(counter) => {
                let count = self.counts.of(counter)?;
                let room = remaining.saturating_sub(after) / width;
                usize::try_from(count).ok().filter(|&count| count <= room)?
            }
            None => {
                if remaining == 0 || !remaining.is_multiple_of(width) {
                    return None;
                }
                remaining / width
            }
        };
        let first = self.at;
        self.list_items(arg, node, first, count).ok()
    }

    /// One word of a value's kind (a key, a string, a number, a count).
    #[inline(always)]
    fn value(&mut self, arg: &'static Arg) -> Option<Slot> {
        let position = self.at;
        let word = self.argv.get(position)?;
        self.at += 1;
        Some(match arg.kind {
            ArgKind::Key(_) | ArgKind::String => Slot::Word(position),
            ArgKind::Integer | ArgKind::UnixTime => {
                let n = parse_i64(word.as_ref())?;
                if arg.is_count && (n < 1 || !self.counts.keep(arg.name, n)) {
                    return None;
                }
                Slot::Int(n)
            }
            ArgKind::Double => Slot::Float(parse_f64(word.as_ref())?),
            ArgKind::PureToken | ArgKind::OneOf(_) | ArgKind::Block(_) => return None,
        })
    }
}

/// Whether `word` (packed as `packed_word`) is the keyword that starts
/// `arg`: one comparison of the packed words for a keyword of at most 8
/// bytes.
#[inline(always)]
fn starts(arg: &Arg, word: &[u8], packed_word: Option<u64>) -> bool {
    match arg.token {
        Some(token) if token.len() <= 8 => {
            word.len() == token.len() && packed_word == Some(arg.packed_token)
        }
        Some(token) => is_keyword(word, token),
        None => false,
    }
}

/// The nodes of the first `c` choices of a one-of.
#[inline(always)]
fn nodes_before(choices: &[Arg], c: usize) -> usize {
    choices[..c].iter().map(|choice| choice.node_count).sum()
}
