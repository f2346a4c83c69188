//! The command layer: one file per command family. Each declares its
//! commands ([`declare_command!`](crate::declare_command)): their grammar,
//! which `host`'s grammar parses Redis-style into the typed request
//! ([`request!`](crate::request)), and their handlers: check what the
//! grammar cannot (the ranges in `args`), read through `host`, decide
//! through `logic`, write through `host`.
//!
//! This file is the registry: a family listed in [`FAMILIES`] is
//! registered, documented in COMMAND DOCS and counted in INFO, with its
//! configs in [`CONFIGS`] and its counters in [`COUNTERS`]. What the
//! families share lives in files of its own (`declaration`, `config`,
//! `counter`, `sample`, `tiebreak`, `idmp`, `stats`), so no family imports
//! the registry.

pub mod args;
pub mod config;
pub mod counter;
pub mod debug;
pub mod declaration;
pub mod delay;
pub mod delay_lease;
pub mod delay_rate;
pub mod delay_reply;
pub mod delay_stats;
pub mod feed;
pub mod groups;
pub mod idmp;
pub mod jobs;
pub mod layout;
pub mod rank;
pub mod rank_board;
pub mod rank_columns;
pub mod rank_data;
pub mod rank_dense;
pub mod rank_merge;
pub mod rank_page;
pub mod rank_range;
pub mod rank_season;
pub mod rank_stats;
pub mod rate;
pub mod recent;
pub mod reply_types;
pub mod sample;
pub mod schedules;
pub mod stats;
pub mod tiebreak;
pub mod vote;

use config::NumericConfig;
use counter::Counter;
use declaration::Command;

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

/// Every zkit config.
pub static CONFIGS: &[&NumericConfig] = &[
    &tiebreak::TIEBREAK_EPOCH_MS,
    &tiebreak::TIEBREAK_SPAN_MS,
    &layout::SMALL_SET_MAX,
    &layout::HOT_SET_WRITES,
    &layout::COLD_SET_MS,
    &layout::CONVERT_LOADED_BOARDS,
    &idmp::RETAIN_MS,
    &idmp::MAX_IDS,
    &jobs::PAYLOAD_MAX_BYTES,
    &rank_data::MEMBER_DATA_MAX_BYTES,
    &jobs::DEAD_LETTERS_MAX,
    &jobs::DEAD_LETTERS_MAX_AGE_MS,
];

/// Every counter, by its INFO field name (docs/commands.md, "INFO zkit").
pub static COUNTERS: &[(&str, &Counter)] = &[
    ("delay_tasks_claimed", &delay::TASKS_CLAIMED),
    ("delay_tasks_acked", &delay_lease::TASKS_ACKED),
    ("delay_tasks_dead", &delay::TASKS_DEAD),
    ("delay_tasks_expired", &delay::TASKS_EXPIRED),
    ("delay_tasks_trimmed", &delay::TASKS_TRIMMED),
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
        &layout::BOARDS_MOVED_TO_SKIPLIST,
    ),
    ("boards_back_to_listpack", &layout::BOARDS_BACK_TO_LISTPACK),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::grammar::ambiguity;

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
        let placeholder = std::slice::from_ref(crate::host::string::RStr::placeholder());
        for command in every_command() {
            let read = std::panic::catch_unwind(|| {
                crate::host::grammar::trace_reads(command.args, placeholder, command.read_request)
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

    /// A call of `args`, drawn by `draw`: each option given or not, each
    /// choice taken, each list one to three items long, now and then up to
    /// twelve (or as long as its count), keys and strings drawn from `words` (keywords among them),
    /// numbers of every shape.
    fn sample_call(
        args: &[crate::host::grammar::Arg],
        draw: &mut impl FnMut(u64) -> u64,
        words: &[&[u8]],
        counts: &mut Vec<(&'static str, u64)>,
        out: &mut Vec<Vec<u8>>,
    ) {
        use crate::host::grammar::ArgKind;
        for arg in args {
            if arg.optional && draw(2) == 0 {
                continue;
            }
            if let Some(token) = arg.token {
                out.push(token.as_bytes().to_vec());
            }
            let items = match (arg.multiple, arg.counted_by) {
                (false, _) => 1,
                (true, Some(counter)) => counts
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == counter)
                    .map_or(1, |&(_, n)| n),
                // Now and then long enough to outgrow the room the parse
                // keeps numbers in.
                (true, None) => {
                    let most = if draw(4) == 0 { 12 } else { 3 };
                    1 + draw(most)
                }
            };
            for _ in 0..items {
                match arg.kind {
                    ArgKind::Key(_) | ArgKind::String => {
                        out.push(words[draw(words.len() as u64) as usize].to_vec())
                    }
                    ArgKind::Integer | ArgKind::UnixTime if arg.is_count => {
                        let most = if draw(4) == 0 { 12 } else { 3 };
                        let n = 1 + draw(most);
                        counts.push((arg.name, n));
                        out.push(n.to_string().into_bytes());
                    }
                    ArgKind::Integer | ArgKind::UnixTime => out.push(
                        [
                            "0",
                            "7",
                            "-3",
                            "1700000000000",
                            "9223372036854775807",
                            "01",
                            "x",
                        ][draw(7) as usize]
                            .into(),
                    ),
                    ArgKind::Double => out.push(
                        ["1.5", "-0", "inf", "-inf", "1e3", "nan", "2"][draw(7) as usize].into(),
                    ),
                    ArgKind::PureToken => {}
                    ArgKind::OneOf(choices) => {
                        let choice = &choices[draw(choices.len() as u64) as usize];
                        sample_call(std::slice::from_ref(choice), draw, words, counts, out);
                    }
                    ArgKind::Block(parts) => sample_call(parts, draw, words, counts, out),
                }
            }
        }
    }

    /// Every command has examples: calls of it that its grammar parses,
    /// which together give every keyword it declares (the every-option and
    /// GETKEYS checks and the clients' every-command tests run them).
    #[test]
    fn every_command_has_examples_that_give_every_keyword() {
        use crate::host::command::example_words;
        for command in all() {
            assert!(
                !command.examples.is_empty(),
                "{}: no examples",
                command.name
            );
            let mut given = std::collections::BTreeSet::new();
            for line in command.examples {
                let words = example_words(line);
                // A native command that sets up the next example.
                if !words[0].eq_ignore_ascii_case(command.name) {
                    continue;
                }
                let argv: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
                assert!(
                    (command.generated_parse)(&argv).is_some(),
                    "{}: its grammar refuses the example {line:?}",
                    command.name
                );
                given.extend(words.iter().map(|w| w.to_ascii_uppercase()));
            }
            for keyword in crate::host::grammar::keywords(command.args) {
                assert!(
                    given.contains(keyword),
                    "{}: no example gives {keyword}",
                    command.name
                );
            }
        }
    }

    proptest::proptest! {
        /// Each command's generated parse fills what the walk over its
        /// declaration fills, and refuses the calls the walk refuses: calls
        /// drawn from the declaration (options given or not, keywords as
        /// values, numbers of every shape), then changed at random (a word
        /// dropped, doubled, moved, put in lower case, cut short, grown, or
        /// replaced by a keyword), and random words alone.
        #[test]
        fn the_generated_parse_fills_what_the_walk_fills(
            seed in proptest::prelude::any::<u64>(),
            edits in proptest::collection::vec(proptest::prelude::any::<(u8, u16, u16, u8)>(), 0..3),
        ) {
            for command in every_command() {
                let keywords = crate::host::grammar::keywords(command.args);
                let mut words: Vec<&[u8]> = keywords.iter().map(|k| k.as_bytes()).collect();
                words.extend([&b"k"[..], b"member", b"3", b"-1.5", b"inf", b""]);
                let mut state = seed ^ command.name.len() as u64;
                let mut draw = |n: u64| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state % n.max(1)
                };
                let mut argv = vec![command.name.as_bytes().to_vec()];
                if seed % 8 == 0 {
                    for _ in 0..draw(8) {
                        argv.push(words[draw(words.len() as u64) as usize].to_vec());
                    }
                } else {
                    sample_call(command.args, &mut draw, &words, &mut Vec::new(), &mut argv);
                }
                for &(edit, at, to, byte) in &edits {
                    let len = argv.len() - 1;
                    let (at, to) = (1 + usize::from(at) % len.max(1), 1 + usize::from(to) % len.max(1));
                    match edit % 7 {
                        _ if len == 0 => argv.push(words[usize::from(byte) % words.len()].to_vec()),
                        0 => { argv.remove(at); }
                        1 => argv.insert(to, argv[at].clone()),
                        2 => argv.swap(at, to),
                        3 => argv[at].make_ascii_lowercase(),
                        4 => { argv[at].pop(); }
                        5 => argv[at].push(byte),
                        _ => argv[at] = words[usize::from(byte) % words.len()].to_vec(),
                    }
                }
                let generated = (command.generated_parse)(&argv);
                let walked = crate::host::grammar::walked_parse(command.name, command.args, &argv).ok();
                let shown: Vec<String> = argv.iter().map(|w| w.escape_ascii().to_string()).collect();
                proptest::prop_assert_eq!(generated, walked, "{}: {:?}", command.name, shown);
            }
        }
    }

    /// A command that takes IDMP declares it whole: the options, read
    /// by their wrapper, `idmp::once` (a command not run by it leaves them unread,
    /// which `every_declared_value_is_read_once` finds), and the flag after
    /// its reply; a reply that promises the flag comes with the options.
    #[test]
    fn every_command_that_takes_idmp_declares_the_options_and_the_flag() {
        use crate::host::reply_shape::ReplyShape;
        let is = |arg: &crate::host::grammar::Arg, option: &crate::host::grammar::Arg| {
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
                    && options[..2].iter().all(|a| a.is_read_by_wrapper),
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

    fn declares_a_key(args: &[crate::host::grammar::Arg]) -> bool {
        use crate::host::grammar::ArgKind;
        args.iter().any(|arg| match arg.kind {
            ArgKind::Key(_) => true,
            ArgKind::Block(parts) | ArgKind::OneOf(parts) => declares_a_key(parts),
            _ => false,
        })
    }

    /// Key specs and arity come from every declaration (a key no spec can
    /// describe panics here, not at load), which fits the parse's fixed
    /// room for values.
    #[test]
    fn every_declaration_gives_key_specs_and_arity() {
        for command in every_command() {
            let keys = crate::host::grammar::keywords(command.args);
            let nodes = crate::host::grammar::nodes(command.args);
            assert!(
                nodes <= crate::host::grammar::MAX_NODES,
                "{}: {nodes} nodes",
                command.name
            );
            assert!(command.arity() != 0, "{}", command.name);
            assert!(
                !command.key_specs().is_empty() || !declares_a_key(command.args),
                "{} ({keys:?})",
                command.name
            );
        }
    }
}
