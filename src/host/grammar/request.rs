//! The typed reading of a parsed call: a command's [`Request`], read in
//! declaration order, and [`trace_reads`], which holds each declaration's
//! request to reading every declared value once.

use std::cell::RefCell;

use super::arg::{nodes, Arg, ArgKind, SKIP_COUNT, SKIP_WRAPPER_OPTION};
use super::number::{parse_f64, parse_i64};
use super::slot::Slot;

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
    /// Whether the call gave an option read by its wrapper: when it gave none, its
    /// wrapper reads nothing ([`Request::wrapper_options`]).
    wrapper_options_given: bool,
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
    /// The request of a call parsed by `args` into `slots`; `wrapper_options_given`:
    /// whether the call gave an option read by its wrapper.
    pub(super) fn parsed(
        argv: &'a [A],
        slots: &'a [Slot],
        args: &'static [Arg],
        wrapper_options_given: bool,
    ) -> Request<'a, A> {
        Request {
            argv,
            slots,
            args,
            at: 0,
            node: 0,
            skip: SKIP_COUNT | SKIP_WRAPPER_OPTION,
            wrapper_options_given,
            mode: Mode::Parsed,
        }
    }

    /// The next declared argument and its node, past any count (which the
    /// parse consumed: the request reads the list it counts) and any option
    /// read by a wrapper.
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
                    // A list of blocks records itself as it is read.
                    let block = matches!(choice.kind, ArgKind::Block(_)) && !choice.multiple;
                    if block || matches!(choice.kind, ArgKind::PureToken) {
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
            skip: SKIP_COUNT | SKIP_WRAPPER_OPTION,
            mode: Mode::Parsed,
            ..self
        }
    }

    /// Whether every declared argument was read (but the options read by
    /// a wrapper, which it reads).
    pub fn is_read(&self) -> bool {
        self.args[self.at..]
            .iter()
            .all(|arg| arg.skip & self.skip != 0)
    }

    /// A request for the options read by a wrapper ([`Arg::read_by_wrapper`]), from
    /// the first one after what was read, in declaration order: what the
    /// wrapper of an option several commands share reads, wherever each
    /// command declares it (read before the command's own request). `None`
    /// when the call gave none of them: the wrapper then reads nothing,
    /// and each is absent.
    #[inline(always)]
    pub fn wrapper_options(&self) -> Option<Request<'a, A>> {
        if matches!(self.mode, Mode::Parsed) && !self.wrapper_options_given {
            return None;
        }
        let (mut at, mut node) = (self.at, self.node);
        loop {
            let Some(arg) = self.args.get(at) else {
                panic!("the request reads an option the grammar does not declare for a wrapper")
            };
            if arg.skip & SKIP_WRAPPER_OPTION != 0 {
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
        skip: SKIP_COUNT | SKIP_WRAPPER_OPTION,
        wrapper_options_given: false,
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
        skip: SKIP_COUNT | SKIP_WRAPPER_OPTION,
        wrapper_options_given: true,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::grammar::examples::*;

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
    fn options_read_by_a_wrapper_are_read_only_when_given() {
        static SHARED_IDMP: &[Arg] = &[
            Arg::key("key", RW),
            Arg::integer("n").token("CAP").optional(),
            Arg::block("idmp", &[Arg::key("seen", RW), Arg::string("id")])
                .token("IDMP")
                .optional()
                .read_by_wrapper(),
            Arg::integer("ms")
                .token("RETAIN")
                .optional()
                .read_by_wrapper(),
        ];
        let wrapped = |text: &str| {
            read(SHARED_IDMP, text, |r| {
                let shared = r.wrapper_options().map(|mut options| {
                    let idmp = options.option(|c| (key(c), string(c)));
                    (idmp, options.option(Request::integer))
                });
                key(r);
                r.option(Request::integer);
                shared
            })
        };
        assert_eq!(wrapped("c k CAP 2"), None);
        assert_eq!(wrapped("c k RETAIN 5"), Some((None, Some(5))));
        assert_eq!(
            wrapped("c k IDMP s CAP CAP 1"),
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
}
