//! Where a command's keys are, as the server is told: key specs (COMMAND
//! INFO, COMMAND GETKEYS, ACL key patterns, Cluster routing), derived from
//! the declared grammar.

use super::grammar::{Arg, ArgKind};

/// Key-spec flags, as Redis defines them (see "key specs" in the Redis docs).
pub mod key_flags {
    use redis_module::raw;
    /// Read-only access to the value.
    pub const RO: u32 = raw::REDISMODULE_CMD_KEY_RO;
    /// Read-write: the command reads and modifies the value.
    pub const RW: u32 = raw::REDISMODULE_CMD_KEY_RW;
    /// Overwrite: the value is replaced without being read.
    pub const OW: u32 = raw::REDISMODULE_CMD_KEY_OW;
    /// The key may be deleted.
    pub const RM: u32 = raw::REDISMODULE_CMD_KEY_RM;
    /// User data of the value is returned or copied.
    pub const ACCESS: u32 = raw::REDISMODULE_CMD_KEY_ACCESS;
    /// Data is updated, the new value may depend on the old one.
    pub const UPDATE: u32 = raw::REDISMODULE_CMD_KEY_UPDATE;
    /// Data is only added.
    pub const INSERT: u32 = raw::REDISMODULE_CMD_KEY_INSERT;
    /// Data is explicitly removed.
    pub const DELETE: u32 = raw::REDISMODULE_CMD_KEY_DELETE;
    /// The spec may not find every key (or may find a value): the server
    /// asks the module for the keys instead.
    pub const INCOMPLETE: u32 = raw::REDISMODULE_CMD_KEY_INCOMPLETE;
}

/// Where Redis finds a command's keys (COMMAND GETKEYS, cluster routing, ACL
/// key patterns).
pub struct KeySpec {
    pub flags: u32,
    pub begin: BeginSearch,
    pub find: FindKeys,
}

pub enum BeginSearch {
    /// The first key is at this argv index.
    Index(i32),
    /// The first key follows this keyword, searched from argv index `start`
    /// (negative: from the end, backwards).
    Keyword { keyword: &'static str, start: i32 },
}

pub enum FindKeys {
    /// Keys from the begin index up to `last` (relative; -1 = the last
    /// argument), every `step` arguments.
    Range { last: i32, step: i32, limit: i32 },
    /// The argument at `count_index` (relative) says how many keys follow,
    /// starting at `first` (relative), every `step` arguments.
    KeyNum {
        count_index: i32,
        first: i32,
        step: i32,
    },
}

impl KeySpec {
    /// One key at a fixed argv index.
    pub const fn at(index: i32, flags: u32) -> KeySpec {
        KeySpec {
            flags,
            begin: BeginSearch::Index(index),
            find: FindKeys::Range {
                last: 0,
                step: 1,
                limit: 0,
            },
        }
    }

    /// One key right after `keyword`, searched from argv index `start`
    /// (`LEASE inflight ms`, `WINDOW times seconds`).
    pub const fn after_keyword(keyword: &'static str, start: i32, flags: u32) -> KeySpec {
        KeySpec {
            flags,
            begin: BeginSearch::Keyword { keyword, start },
            find: FindKeys::Range {
                last: 0,
                step: 1,
                limit: 0,
            },
        }
    }
}

/// Whether Redis Cluster can find every key of these specs on its own.
///
/// Cluster routing (CROSSSLOT, MOVED) reads a command's keys from the legacy
/// first/last/step range, not from key specs, and RedisModule_SetCommandInfo
/// can only fold plain index ranges into it: a `numkeys` or keyword spec
/// would be invisible there, and a call whose other keys live in another slot
/// would run on the wrong node. Such commands are registered with the
/// `getkeys-api` flag and report the grammar's key positions when asked.
pub fn needs_getkeys_api(specs: &[KeySpec]) -> bool {
    specs.iter().any(|spec| {
        !matches!(
            (&spec.begin, &spec.find),
            (BeginSearch::Index(_), FindKeys::Range { .. })
        )
    })
}

/// The key specs the server is told, one per declared key, in declaration
/// order. A key at a fixed index, or counted by an integer at a fixed index,
/// is exact. A key inside an option is found after its keyword, which a
/// value spelled like the keyword could precede: such a spec is marked
/// INCOMPLETE, so the server asks the module (which parses the call with
/// this grammar) for the keys instead of searching for the keyword.
pub fn key_specs(args: &[Arg], incomplete: u32) -> Vec<KeySpec> {
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
            (_, Some(token)) => keyword_specs(arg, token, incomplete, &mut specs),
            // A one-of's keys are its choices' (`[SHARED | DENSE totals-key]`).
            (ArgKind::OneOf(choices), None) => {
                for choice in *choices {
                    if let Some(token) = choice.token {
                        keyword_specs(choice, token, incomplete, &mut specs);
                    }
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

/// The specs of the keys in `arg`, an option after its keyword `token`:
/// each is searched for after the keyword, INCOMPLETE (see [`key_specs`]).
fn keyword_specs(arg: &Arg, token: &'static str, incomplete: u32, specs: &mut Vec<KeySpec>) {
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
        let mut spec = KeySpec::after_keyword(token, 1, flags | incomplete);
        if arg.multiple {
            // A list after its keyword runs to the end of the call.
            spec.find = FindKeys::Range {
                last: -1,
                step: 1,
                limit: 0,
            };
        }
        specs.push(spec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_index_specs_go_without_the_getkeys_api() {
        const KEYNUM: KeySpec = KeySpec {
            flags: key_flags::RO,
            begin: BeginSearch::Index(2),
            find: FindKeys::KeyNum {
                count_index: 0,
                first: 1,
                step: 1,
            },
        };
        const DEST: KeySpec = KeySpec::at(1, key_flags::OW);
        assert!(needs_getkeys_api(&[DEST, KEYNUM]));
        assert!(!needs_getkeys_api(&[DEST]));
    }

    #[test]
    fn key_specs_come_from_the_declaration() {
        use crate::host::grammar::examples::{MERGE, POLL, RW};
        let specs = key_specs(MERGE, 0);
        assert!(matches!(specs[0].begin, BeginSearch::Index(1)));
        assert!(matches!(specs[1].begin, BeginSearch::Index(2)));
        assert!(matches!(specs[1].find, FindKeys::KeyNum { .. }));
        let specs = key_specs(POLL, 512);
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].flags, RW | 512);
        assert!(matches!(
            specs[1].begin,
            BeginSearch::Keyword {
                keyword: "LEASE",
                ..
            }
        ));
    }

    #[test]
    fn a_key_among_the_choices_of_a_one_of_is_found_after_its_keyword() {
        use crate::host::grammar::Arg;
        const RO: u32 = key_flags::RO;
        const ARGS: &[Arg] = &[
            Arg::key("key", RO),
            Arg::one_of(
                "ranks",
                &[
                    Arg::pure_token("shared", "SHARED"),
                    Arg::key("totals-key", RO).token("DENSE"),
                ],
            )
            .optional(),
        ];
        let specs = key_specs(ARGS, 512);
        assert_eq!(specs.len(), 2);
        assert!(matches!(specs[0].begin, BeginSearch::Index(1)));
        assert_eq!(specs[1].flags, RO | 512);
        assert!(matches!(
            specs[1].begin,
            BeginSearch::Keyword {
                keyword: "DENSE",
                ..
            }
        ));
    }
}
