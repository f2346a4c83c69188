//! Running commands on a connection: as words, as raw bytes, expecting
//! success or an error, or in a thread of their own (blocking commands).

use super::Server;
use redis::Value;

/// Runs a command given as words and returns the raw reply (errors too).
pub fn run(con: &mut impl redis::ConnectionLike, words: &[&str]) -> redis::RedisResult<Value> {
    let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
    command(con, &words).query(con)
}

/// A call as the engine under test takes it: as given, or for a zkit command
/// with `ZKIT_ENGINE=functions`, `FCALL zkit_<family>_<verb> numkeys key...
/// arg...` with the keys the library's `zkit_keys` finds (none for a call
/// it cannot parse, which FCALL then refuses with the same error).
pub fn command(con: &mut impl redis::ConnectionLike, words: &[&[u8]]) -> redis::Cmd {
    let name = String::from_utf8_lossy(words[0]).to_lowercase();
    let is_zkit = ["rank.", "feed.", "delay.", "rate.", "recent.", "vote."]
        .iter()
        .any(|family| name.starts_with(family));
    if !(is_zkit && super::functions_engine()) {
        let mut cmd = redis::cmd(&String::from_utf8_lossy(words[0]));
        for w in &words[1..] {
            cmd.arg(*w);
        }
        return cmd;
    }
    library_command(con, words)
}

/// A zkit call as the Functions library takes it, whatever the engine under
/// test: `FCALL zkit_<family>_<verb> numkeys key... arg...` with the keys the
/// library's `zkit_keys` finds (none for a call it cannot parse).
pub fn library_command(con: &mut impl redis::ConnectionLike, words: &[&[u8]]) -> redis::Cmd {
    let name = String::from_utf8_lossy(words[0]).to_lowercase();
    let mut keys_of = redis::cmd("FCALL_RO");
    keys_of.arg("zkit_keys").arg(0);
    for w in words {
        keys_of.arg(*w);
    }
    let keys: Vec<Vec<u8>> = keys_of.query(con).unwrap_or_default();
    let mut cmd = redis::cmd("FCALL");
    cmd.arg(format!("zkit_{}", name.replace('.', "_")))
        .arg(keys.len());
    for key in &keys {
        cmd.arg(key.as_slice());
    }
    for w in &words[1..] {
        cmd.arg(*w);
    }
    cmd
}

/// The words of a call built as owned strings, for [`run`] and friends.
pub fn words(call: &[String]) -> Vec<&str> {
    call.iter().map(String::as_str).collect()
}

/// Runs a command given as raw byte strings (which may not be UTF-8).
pub fn run_bytes(
    con: &mut impl redis::ConnectionLike,
    args: &[Vec<u8>],
) -> redis::RedisResult<Value> {
    let words: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    command(con, &words).query(con)
}

/// A command line split on spaces, for arguments without spaces:
/// `query(&mut con, &cmdline("ZADD k 1 m"))`.
pub fn cmdline(line: &str) -> Vec<&str> {
    line.split(' ').collect()
}

/// Runs a command that must succeed.
pub fn ok(con: &mut impl redis::ConnectionLike, words: &[&str]) -> Value {
    run(con, words).unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// Runs a command that must fail, and returns its error text (code included).
pub fn err(con: &mut impl redis::ConnectionLike, words: &[&str]) -> String {
    match run(con, words) {
        Ok(v) => panic!("{words:?} should fail, got {v:?}"),
        Err(e) => error_text(&e),
    }
}

/// An error as the server sent it, e.g. "ERR syntax error".
pub fn error_text(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        (Some(code), None) => code.to_string(),
        _ => e.to_string(),
    }
}

/// The error of a call that does not fit its command's grammar: what is
/// wrong, then the command's syntax (`usage`).
pub fn syntax_error(mistake: &str, usage: &str) -> String {
    format!("ERR syntax error: {mistake}; usage: {usage}")
}

/// Runs a command and converts the reply.
pub fn query<T: redis::FromRedisValue>(con: &mut impl redis::ConnectionLike, words: &[&str]) -> T {
    let bytes: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
    command(con, &bytes)
        .query(con)
        .unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// Runs a (blocking) command on a connection of its own in a thread; the
/// thread returns the reply, or the error the server answered.
pub fn spawn_call(
    server: &Server,
    words: &[&str],
) -> std::thread::JoinHandle<redis::RedisResult<Value>> {
    let mut con = server.connect();
    let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    std::thread::spawn(move || run(&mut con, &self::words(&words)))
}
