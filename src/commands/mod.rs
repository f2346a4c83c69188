//! The command layer: one file per command family. Each declares its
//! commands ([`declare_command!`](crate::declare_command)): their grammar,
//! which `host`'s grammar parses Redis-style into the typed request
//! ([`request!`](crate::request)), and their handlers: check what the
//! grammar cannot (the ranges in `args`), read through `host`, decide
//! through `logic`, write through `host`. A family listed in [`FAMILIES`] is
//! registered, documented in COMMAND DOCS and counted in INFO.

pub mod args;
pub mod debug;
pub mod delay;
pub mod feed;
pub mod idmp;
pub mod rank;
pub mod rank_merge;
pub mod rate;
pub mod recent;
pub mod reply_types;
pub mod small_layout;
pub mod stats;
pub mod vote;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use smallvec::SmallVec;

use crate::error::ZkitError;
use crate::host::{self, OwnedRStr, ScoreBound, Zset};
use crate::logic::family::{self, Element};

/// A zkit command's declaration; its handler fails with [`ZkitError`].
pub type Command = host::Command<ZkitError>;

/// A list of a command's request, read item by item from the call.
pub type Items<'a, T> = host::Items<'a, host::RStr, T>;

/// A list of single keys or strings of a command's request: the call's
/// own words.
pub type WordList<'a> = host::WordList<'a, host::RStr>;

/// A few elements of a sorted set, as `logic::family` judges them: the
/// lowest `lowest` and, with `highest`, the highest. O(log N) each. An
/// element past the lowest is read only when the lowest could start an IDMP
/// seen-key, the one check that looks past it (`family::is_seen_key_head`):
/// every element read is a new string the key API makes.
struct Sample {
    lowest: SmallVec<[(OwnedRStr, f64); 2]>,
    highest: Option<(OwnedRStr, f64)>,
}

impl Sample {
    fn of(zset: &mut Zset, lowest: usize, highest: bool) -> Sample {
        let mut walk = zset.iter_asc(ScoreBound::MIN, ScoreBound::MAX);
        let mut read: SmallVec<[(OwnedRStr, f64); 2]> = SmallVec::new();
        while read.len() < lowest {
            if read
                .first()
                .is_some_and(|&(_, score)| !family::may_start_seen_key(score))
            {
                break;
            }
            match walk.next() {
                Some(element) => read.push(element),
                None => break,
            }
        }
        drop(walk);
        Sample {
            lowest: read,
            highest: highest
                .then(|| zset.iter_desc(ScoreBound::MIN, ScoreBound::MAX).next())
                .flatten(),
        }
    }

    fn lowest(&self) -> SmallVec<[Element<'_>; 2]> {
        self.lowest
            .iter()
            .map(|(m, s)| (m.as_bytes(), *s))
            .collect()
    }

    fn highest(&self) -> Option<Element<'_>> {
        self.highest.as_ref().map(|(m, s)| (m.as_bytes(), *s))
    }
}

/// Every zkit command, family by family.
pub static FAMILIES: &[&[&Command]] = &[
    rank::COMMANDS,
    feed::COMMANDS,
    delay::COMMANDS,
    rate::COMMANDS,
    recent::COMMANDS,
    vote::COMMANDS,
];

pub fn all() -> impl Iterator<Item = &'static Command> {
    FAMILIES.iter().flat_map(|family| family.iter().copied())
}

/// A numeric module config, `zkit.<name>` (CONFIG SET/GET), that commands
/// read on every call.
pub struct NumericConfig {
    pub name: &'static str,
    pub value: AtomicI64,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

/// Every zkit config.
pub static CONFIGS: &[&NumericConfig] = &[
    &rank::TIEBREAK_EPOCH_MS,
    &rank::TIEBREAK_SPAN_MS,
    &small_layout::SMALL_BOARD_MAX,
    &small_layout::HOT_BOARD_WRITES,
    &small_layout::COLD_BOARD_MS,
    &small_layout::CONVERT_LOADED_BOARDS,
    &idmp::RETAIN_MS,
    &idmp::MAX_IDS,
];

/// A count of events since the module loaded, for INFO zkit: what
/// commandstats (calls, errors per command) does not already say.
pub struct Counter(AtomicU64);

impl Counter {
    pub const fn new() -> Counter {
        Counter(AtomicU64::new(0))
    }

    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}

/// Every counter, by its INFO field name (docs/commands.md, "INFO zkit").
pub static COUNTERS: &[(&str, &Counter)] = &[
    ("delay_tasks_claimed", &delay::TASKS_CLAIMED),
    ("delay_tasks_acked", &delay::TASKS_ACKED),
    ("delay_tasks_dead", &delay::TASKS_DEAD),
    ("delay_tasks_redelivered", &delay::TASKS_REDELIVERED),
    ("rate_hits_refused", &rate::HITS_REFUSED),
    ("feed_items_trimmed", &feed::ITEMS_TRIMMED),
    ("idmp_repeats_refused", &idmp::REPEATS_REFUSED),
    ("idmp_ids_evicted", &idmp::IDS_EVICTED),
    (
        "idmp_other_arguments_refused",
        &idmp::OTHER_ARGUMENTS_REFUSED,
    ),
    ("idmp_ids_evictable", &idmp::IDS_EVICTABLE),
    ("idmp_ids_expiring", &idmp::IDS_EXPIRING),
    (
        "boards_moved_to_skiplist",
        &small_layout::BOARDS_MOVED_TO_SKIPLIST,
    ),
    (
        "boards_back_to_listpack",
        &small_layout::BOARDS_BACK_TO_LISTPACK,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::ambiguity;

    /// Every declaration, the debug commands' too.
    fn every_command() -> impl Iterator<Item = &'static Command> {
        all().chain(debug::COMMANDS.iter().copied())
    }

    /// Every declaration is an unambiguous grammar: no value position can be
    /// taken for a keyword (`host::grammar::ambiguity` says how).
    #[test]
    fn no_grammar_lets_a_value_be_taken_for_a_keyword() {
        for command in every_command() {
            if let Err(why) = ambiguity(command.args) {
                panic!("{}: {why}", command.name);
            }
        }
    }

    /// Every value a declaration declares is read exactly once by its
    /// command's request, and the request reads nothing it does not
    /// declare: declaring `TTL` on RANK.GET without reading it, or reading
    /// an option not declared, fails here.
    #[test]
    fn every_declared_value_is_read_once() {
        let placeholder = std::slice::from_ref(crate::host::RStr::placeholder());
        for command in every_command() {
            let read = std::panic::catch_unwind(|| {
                crate::host::trace_reads(command.args, placeholder, command.read_request)
            });
            match read {
                Ok(Ok(())) => {}
                Ok(Err(why)) => panic!("{}: {why}", command.name),
                Err(_) => panic!(
                    "{}: its request reads what it does not declare",
                    command.name
                ),
            }
        }
    }

    proptest::proptest! {
        /// Each command's plan finds the option a word starts (and the
        /// choice) as the walk over its declaration does, for every group
        /// of options: each declared keyword in any case, cut short or
        /// grown by a byte, and any other bytes.
        #[test]
        fn a_plan_finds_the_options_the_declaration_walk_finds(
            pick in proptest::prelude::any::<usize>(),
            case in proptest::collection::vec(proptest::prelude::any::<bool>(), 12),
            edit in 0u8..4,
            byte in proptest::prelude::any::<u8>(),
            other in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
        ) {
            for command in every_command() {
                let keywords = crate::host::keywords(command.args);
                let mut word: Vec<u8> = match keywords.get(pick % (keywords.len() + 1)) {
                    Some(keyword) => keyword
                        .bytes()
                        .zip(case.iter().cycle())
                        .map(|(b, &lower)| if lower { b.to_ascii_lowercase() } else { b })
                        .collect(),
                    None => other.clone(),
                };
                match edit {
                    1 => { word.pop(); }
                    2 => word.push(byte),
                    3 if !word.is_empty() => word[0] ^= byte,
                    _ => {}
                }
                if let Err(why) = crate::host::plan_finds_as_the_walk(command.args, &command.plan, &word) {
                    panic!("{}: {why}", command.name);
                }
            }
        }
    }

    /// A command that takes IDMP declares it whole: the options, read
    /// apart by `idmp::once` (a command not run by it leaves them unread,
    /// which `every_declared_value_is_read_once` finds), and the flag after
    /// its reply; a reply that promises the flag comes with the options.
    #[test]
    fn every_command_that_takes_idmp_declares_the_options_and_the_flag() {
        use crate::host::ReplyShape;
        let is = |arg: &crate::host::Arg, option: &crate::host::Arg| {
            arg.name == option.name && arg.token == option.token
        };
        let mut takes_idmp = Vec::new();
        for command in every_command() {
            let idmp = command.args.iter().position(|a| is(a, &idmp::IDMP_ARG));
            let flag = matches!(command.reply, ReplyShape::Idmp(_));
            assert_eq!(
                idmp.is_some(),
                flag,
                "{}: IDMP without the flag, or the flag without IDMP",
                command.name
            );
            let Some(at) = idmp else { continue };
            let options = &command.args[at..];
            assert!(
                options.len() >= 2
                    && is(&options[1], &idmp::RETAIN_ARG)
                    && options[..2].iter().all(|a| a.is_read_apart),
                "{}: IDMP is declared as idmp::IDMP_ARG, idmp::RETAIN_ARG",
                command.name
            );
            takes_idmp.push(command.name);
        }
        assert_eq!(
            takes_idmp,
            ["rank.gift", "rank.set", "rank.mgift", "rate.hit"],
            "the commands docs/delivery.md lists as taking IDMP"
        );
    }

    /// Key specs and arity come from every declaration (a key no spec can
    /// describe panics here, not at load), which fits the parse's fixed
    /// room for values.
    #[test]
    fn every_declaration_gives_key_specs_and_arity() {
        for command in every_command() {
            let keys = crate::host::keywords(command.args);
            let nodes = crate::host::grammar_nodes(command.args);
            assert!(
                nodes <= crate::host::MAX_NODES,
                "{}: {nodes} nodes",
                command.name
            );
            assert!(command.arity() != 0, "{}", command.name);
            assert!(
                !command.key_specs().is_empty() || command.args.is_empty(),
                "{} ({keys:?})",
                command.name
            );
        }
    }
}
