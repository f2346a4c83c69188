//! The argument builders: a declaration is a slice of [`Arg`]s, built by
//! `const fn`s that work out, once, what the parse and the reads ask of
//! each argument on every call.

/// One declared argument.
pub struct Arg {
    pub name: &'static str,
    pub kind: ArgKind,
    /// The keyword before the value(s): `AT` in `AT unix-ms`.
    pub token: Option<&'static str>,
    /// The keyword's bytes as one integer, the first in the lowest (0 for
    /// a keyword over 8 bytes, which is compared byte by byte): a word of
    /// at most 8 bytes is matched with one comparison (`keyword::packed`).
    pub(super) packed_token: u64,
    pub optional: bool,
    pub multiple: bool,
    /// For a list: the name of the earlier count that says how many items
    /// it holds (`numkeys`).
    pub counted_by: Option<&'static str>,
    /// An integer that counts a later list ([`Arg::count`]): the parse
    /// takes it, and a request reads the list, never the count.
    pub is_count: bool,
    /// An option several commands share, read by the wrapper they run
    /// through, not by the command's own request ([`Arg::read_by_wrapper`]).
    pub is_read_by_wrapper: bool,
    /// What a command's request passes over when it reads the next value:
    /// [`SKIP_COUNT`] for a count, [`SKIP_WRAPPER_OPTION`] for an option read by its wrapper.
    pub(super) skip: u8,
    /// The version that added it (for options newer than their command).
    pub since: Option<&'static str>,
    /// [`Arg::nodes`], counted when the declaration is built: a parse walks
    /// them on every call.
    pub(super) node_count: usize,
    /// [`Arg::item_width`] and [`Arg::is_option`], worked out when the
    /// declaration is built (each builder step keeps them true), for the
    /// same reason.
    width: usize,
    pub(super) option: bool,
    /// A required value standing alone: no keyword, not a list, not a
    /// one-of or block. The parse takes it in one step.
    pub(super) plain: bool,
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
            packed_token: 0,
            optional: false,
            multiple: false,
            counted_by: None,
            is_count: false,
            is_read_by_wrapper: false,
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
        let mut packed = 0u64;
        let mut i = 0;
        while i < bytes.len() {
            assert!(
                bytes[i].is_ascii_uppercase(),
                "a keyword is declared in upper-case letters"
            );
            if bytes.len() <= 8 {
                packed |= (bytes[i] as u64) << (8 * i);
            }
            i += 1;
        }
        self.token = Some(token);
        self.packed_token = packed;
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
    /// such command goes through ([`Request::wrapper_options`](super::request::Request::wrapper_options)): the command's own
    /// request passes over it.
    pub const fn read_by_wrapper(mut self) -> Arg {
        self.is_read_by_wrapper = true;
        self.skip = SKIP_WRAPPER_OPTION;
        self
    }

    /// Added in `version`.
    pub const fn since(mut self, version: &'static str) -> Arg {
        self.since = Some(version);
        self
    }

    /// An option: optional and found by its keyword (or its choices').
    #[inline(always)]
    pub(super) fn is_option(&self) -> bool {
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
    pub(super) fn nodes(&self) -> usize {
        self.node_count
    }

    /// The keywords that start this argument.
    pub(super) fn keywords(&self) -> Vec<&'static str> {
        match (self.token, &self.kind) {
            (Some(token), _) => vec![token],
            (None, ArgKind::OneOf(choices)) => choices.iter().flat_map(Arg::keywords).collect(),
            _ => Vec::new(),
        }
    }

    /// How many words one item of this argument takes after its keyword.
    #[inline(always)]
    pub(in crate::host) const fn item_width(&self) -> usize {
        self.width
    }

    /// The fewest words this argument takes in a call.
    pub(in crate::host) const fn min_width(&self) -> usize {
        if self.optional {
            return 0;
        }
        self.token.is_some() as usize + self.item_width()
    }
}

/// [`Arg::skip`]: a count, which the parse consumes.
pub(super) const SKIP_COUNT: u8 = 1;
/// [`Arg::skip`]: an option read by its wrapper ([`Arg::read_by_wrapper`]).
pub(super) const SKIP_WRAPPER_OPTION: u8 = 2;

/// The nodes of a run of arguments (see `Slot`).
pub fn nodes(args: &[Arg]) -> usize {
    args.iter().map(Arg::nodes).sum()
}

/// [`nodes`], for a declaration being built.
pub(super) const fn const_nodes(args: &[Arg]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < args.len() {
        sum += args[i].node_count;
        i += 1;
    }
    sum
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
