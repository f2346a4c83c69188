//! Grammars of today's commands and the 0.2 ones they replaced, and the
//! helpers the grammar's unit tests parse and read them with.

use super::{parse, Arg, GrammarError, Mistake, Request};

pub const RW: u32 = 1;
pub const RO: u32 = 2;

// Today's grammars and the 0.2 ones they replaced.
pub static RECENT_ADD: &[Arg] = &[
    Arg::key("key", RW),
    Arg::integer("cap").token("CAP").optional(),
    Arg::integer("seconds").token("TTL").optional(),
    Arg::string("member").token("ITEMS").multiple(),
];
pub static RECENT_ADD_0_2: &[Arg] = &[
    Arg::key("key", RW),
    Arg::string("member").multiple(),
    Arg::integer("cap").token("CAP").optional(),
    Arg::integer("seconds").token("TTL").optional(),
];
pub static MGET_0_2: &[Arg] = &[
    Arg::key("key", RO),
    Arg::string("member").multiple(),
    Arg::pure_token("shared", "SHARED").optional(),
];
pub static MGET_OPTION_FIRST: &[Arg] = &[
    Arg::key("key", RO),
    Arg::pure_token("shared", "SHARED").optional(),
    Arg::string("member").multiple(),
];
pub static FEED_ADD: &[Arg] = &[
    Arg::key("key", RW),
    Arg::integer("n").token("CAP").optional(),
    Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
];
pub static FEED_ADD_WITH_INF: &[Arg] = &[
    Arg::key("key", RW),
    Arg::integer("n").token("INF").optional(),
    Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
];
pub static MERGE: &[Arg] = &[
    Arg::key("destkey", RW),
    Arg::count("numkeys"),
    Arg::key("key", RO).counted_by("numkeys"),
    Arg::integer("weight")
        .token("WEIGHTS")
        .optional()
        .counted_by("numkeys"),
];
pub static MGIFT: &[Arg] = &[
    Arg::count("numkeys"),
    Arg::key("key", RW).counted_by("numkeys"),
    Arg::string("member"),
    Arg::integer("amount"),
    Arg::unix_time("unix-ms").token("AT").optional(),
];
pub static POLL: &[Arg] = &[
    Arg::key("key", RW),
    Arg::integer("count").token("COUNT").optional(),
    Arg::block("lease", &[Arg::key("inflight", RW), Arg::integer("ms")])
        .token("LEASE")
        .optional(),
    Arg::one_of(
        "order",
        &[Arg::pure_token("gt", "GT"), Arg::pure_token("lt", "LT")],
    )
    .optional(),
];

pub fn words(text: &str) -> Vec<Vec<u8>> {
    text.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

pub fn parse_text(args: &'static [Arg], text: &str) -> Result<(), GrammarError> {
    let argv = words(text);
    parse("cmd", args, &argv, &mut |_, _| {}, |_| ())
}

/// Parses `text` by `args` and reads it with `read`, which must read
/// every declared argument.
pub fn read<T>(
    args: &'static [Arg],
    text: &str,
    read: impl for<'r> FnOnce(&mut Request<'r, Vec<u8>>) -> T,
) -> T {
    let argv = words(text);
    parse("cmd", args, &argv, &mut |_, _| {}, |mut request| {
        let value = read(&mut request);
        assert!(request.is_read(), "{text}: not every argument was read");
        value
    })
    .unwrap()
}

pub fn string(request: &mut Request<'_, Vec<u8>>) -> String {
    String::from_utf8(request.string().clone()).unwrap()
}

pub fn key(request: &mut Request<'_, Vec<u8>>) -> String {
    String::from_utf8(request.key().clone()).unwrap()
}

pub fn mistake(args: &'static [Arg], text: &str) -> Mistake {
    match parse_text(args, text) {
        Err(GrammarError::Syntax { mistake, .. }) => mistake,
        other => panic!("{text}: {other:?}"),
    }
}
