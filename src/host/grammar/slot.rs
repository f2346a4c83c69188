//! A parsed call: one value per declared node, on the stack of the parse,
//! and how a list's items fill it, the same for the walk and the generated
//! parse.

use super::arg::{Arg, ArgKind};

/// The most nodes one declaration holds ([`Arg::nodes`] of all its
/// arguments); `every_declaration_gives_key_specs_and_arity` (in `commands`)
/// checks each against it.
pub const MAX_NODES: usize = 24;

/// One declared argument's value in a parsed call. A declaration is a tree
/// of nodes: each argument, followed by its parts (a block) or its choices
/// (a one-of), in declaration order ([`Arg::nodes`]); a call's values sit at
/// their nodes' indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Slot {
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

/// A parsed call as the tests compare the generated parse with the walk:
/// every slot, and whether an option read by a wrapper was given.
#[cfg(test)]
#[derive(Debug, PartialEq)]
pub struct ParsedCall {
    pub(super) slots: [Slot; MAX_NODES],
    pub(super) wrapper_options_given: bool,
}

/// The most counts (`numkeys`) one grammar declares.
const MAX_COUNTS: usize = 2;

/// The integers a parse has read so far that count lists, by name.
#[derive(Clone, Copy)]
pub(super) struct Counts {
    counts: [(&'static str, i64); MAX_COUNTS],
    len: usize,
}

impl Counts {
    pub(super) const fn new() -> Counts {
        Counts {
            counts: [("", 0); MAX_COUNTS],
            len: 0,
        }
    }

    /// Keeps the count `name` read as `n`; false when the grammar declares
    /// more counts than a parse keeps.
    #[inline(always)]
    pub(super) fn keep(&mut self, name: &'static str, n: i64) -> bool {
        if self.len == MAX_COUNTS {
            return false;
        }
        self.counts[self.len] = (name, n);
        self.len += 1;
        true
    }

    /// The last count named `name` read so far.
    #[inline(always)]
    pub(super) fn of(&self, name: &str) -> Option<i64> {
        self.counts[..self.len]
            .iter()
            .rev()
            .find(|(counted, _)| *counted == name)
            .map(|&(_, n)| n)
    }
}

/// A parse that fills slots (the walk, a generated parse): what a list's
/// items need of it, and the filling itself, written once.
pub(super) trait FillSlots {
    type Error;
    /// What a value's error says when the call ends before it.
    type Missing: Copy;

    fn slots(&mut self) -> &mut [Slot; MAX_NODES];

    /// The first slot past the declared nodes not holding a list's kept
    /// values; 0 until a list of numbers is parsed.
    fn kept_next(&mut self) -> &mut usize;

    /// How many nodes the declaration holds.
    fn declared_nodes(&self) -> usize;

    /// Passes over `n` words no part of which needs a check.
    fn pass(&mut self, n: usize);

    /// The next word as a value of `part`'s kind.
    fn value_of(&mut self, part: &'static Arg, missing: Self::Missing)
        -> Result<Slot, Self::Error>;

    /// What a missing item of the list `list` is.
    fn missing_item(list: &'static Arg) -> Self::Missing;

    /// One item of an argument's kind, its keyword already read, at `node`.
    #[inline(always)]
    fn item(
        &mut self,
        arg: &'static Arg,
        missing: Self::Missing,
        node: usize,
    ) -> Result<(), Self::Error> {
        match arg.kind {
            ArgKind::Block(parts) => {
                self.slots()[node] = Slot::Given;
                let mut part_node = node + 1;
                for part in parts {
                    let value = match part.kind {
                        ArgKind::PureToken => Slot::Given,
                        _ => self.value_of(part, missing)?,
                    };
                    self.slots()[part_node] = value;
                    part_node += part.node_count;
                }
            }
            ArgKind::PureToken => self.slots()[node] = Slot::Given,
            ArgKind::OneOf(_) => unreachable!("a one-of is read by its keyword"),
            _ => {
                let value = self.value_of(arg, missing)?;
                self.slots()[node] = value;
            }
        }
        Ok(())
    }

    /// The `count` items of the list `arg` at `node`, from argv index
    /// `first` on. Strings need no check and tell no key: their words are
    /// passed. A list of numbers keeps the values of its first words, as
    /// parsed, in the slots past the declared nodes that are still free.
    #[inline(always)]
    fn list_items(
        &mut self,
        arg: &'static Arg,
        node: usize,
        first: usize,
        count: usize,
    ) -> Result<(), Self::Error> {
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
        if !has_numbers
            && parts
                .iter()
                .all(|part| matches!(part.kind, ArgKind::String))
        {
            self.pass(count * parts.len());
            self.slots()[node] = Slot::List {
                first: first as u32,
                count: count as u32,
                kept_at: 0,
                kept: 0,
            };
            return Ok(());
        }
        if has_numbers && *self.kept_next() == 0 {
            *self.kept_next() = self.declared_nodes();
        }
        let kept_at = *self.kept_next();
        let room = if has_numbers { MAX_NODES - kept_at } else { 0 };
        let mut kept = 0;
        for _ in 0..count {
            for part in parts {
                let value = self.value_of(part, Self::missing_item(arg))?;
                if kept < room {
                    self.slots()[kept_at + kept] = value;
                    kept += 1;
                }
            }
        }
        *self.kept_next() += kept;
        // Both are below argc, which is an int; the kept ones below
        // MAX_NODES.
        self.slots()[node] = Slot::List {
            first: first as u32,
            count: count as u32,
            kept_at: kept_at as u8,
            kept: kept as u8,
        };
        Ok(())
    }
}
