//! What a command replies, as its declaration states it ([`Command::reply`]):
//! a static value read only by the reference generator (docs/commands.json's
//! `reply_schema`, docs/commands.md's "Reply" lines) and, through that file,
//! by the clients' generator, which writes every client's reply types and
//! parsers from it. Nothing reads it on a call.
//!
//! [`Command::reply`]: super::command::Command::reply

/// One reply, or one element of a reply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReplyShape {
    /// A status reply (`+OK`).
    Status,
    /// No reply but an error: a testing command that fails on purpose.
    ErrorOnly,
    /// An integer.
    Integer,
    /// An integer that is 1 or 0, read as true or false.
    Boolean,
    /// A bulk string (a member, a task id, a cursor).
    Bulk,
    /// A score: a double in RESP3, its text in RESP2.
    Double,
    /// An integer, or nil that clients read as 0 (a rank of a member that has
    /// left its board since an IDMP event was applied).
    IntegerOrNilAsZero,
    /// The shape, or nil.
    OrNil(&'static ReplyShape),
    /// An array of the shape, any length.
    ArrayOf(&'static ReplyShape),
    /// An array holding the elements of one tuple after another, flat
    /// (FEED.PAGE's `member score member score ...`).
    FlatArrayOf(&'static Tuple),
    /// An array of fixed elements in order.
    Tuple(&'static Tuple),
    /// A field list `[name, value, ...]` (a map in RESP3) read by name; the
    /// names are the tuple's element names, and a client ignores names it
    /// does not know (a later version may add some).
    Fields(&'static Tuple),
    /// `with` when the call sent the option `token`, else `without` (RANK.MERGE
    /// with `STEP` replies `[cursor, staged]` in place of the member count).
    ByOption {
        token: &'static str,
        with: &'static ReplyShape,
        without: &'static ReplyShape,
    },
    /// The shape, and when the call sent `IDMP` one more element last: 1 when
    /// the event id was already applied (nothing changed), else 0. Of an
    /// array of tuples, the flag follows the last tuple and is about them all.
    Idmp(&'static ReplyShape),
}

/// A named, fixed list of elements: what the clients expose as one type
/// (`TotalRank`, `RankInfo`), its fields named after the elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuple {
    /// The clients' type name; empty for a plain pair (RATE.STATS's
    /// `[window-ms, entries]`), which clients keep as a tuple.
    pub name: &'static str,
    /// What it is, for the clients' docs and the JSON's `description`.
    pub about: &'static str,
    pub elements: &'static [Element],
}

/// One element of a [`Tuple`]: its name (kebab-case, as the docs and
/// field-list replies spell it), its shape and when it is there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    pub name: &'static str,
    pub shape: ReplyShape,
    /// Empty: always. Else present when any of these holds; optional
    /// elements come last, so the reply's length says which are there.
    pub present_when: &'static [When],
}

/// When an optional element of a tuple is in the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// The call sent this option (by its token).
    Option(&'static str),
    /// The call gave the repeated argument of this name more than once.
    Several(&'static str),
}

impl Element {
    /// An element that is always there.
    pub const fn new(name: &'static str, shape: ReplyShape) -> Element {
        Element {
            name,
            shape,
            present_when: &[],
        }
    }

    /// An element that is there only when one of `present_when` holds.
    pub const fn when(
        name: &'static str,
        shape: ReplyShape,
        present_when: &'static [When],
    ) -> Element {
        Element {
            name,
            shape,
            present_when,
        }
    }
}
