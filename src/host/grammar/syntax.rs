//! What a declaration says of its syntax besides the parse: the usage line
//! of a syntax error, the arity the server is told, and the proof that no
//! value can be taken for a keyword.

use std::fmt::Write as _;

use super::arg::{Arg, ArgKind};
use super::number::{parse_f64, parse_i64};

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
    fn width(arg: &Arg) -> usize {
        match (&arg.kind, arg.optional) {
            (ArgKind::OneOf(choices), false) => choices.iter().map(width).min().unwrap_or(0),
            _ if arg.token.is_some() && arg.multiple && !arg.optional => 1,
            _ => arg.min_width(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::grammar::examples::*;

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
    fn usage_and_arity_come_from_the_declaration() {
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
    }
}
