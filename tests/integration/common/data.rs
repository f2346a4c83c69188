//! What a server holds, in forms that compare equal across servers holding
//! the same data: for replication, persistence and "errors change nothing"
//! checks.

use super::client::{err, query, run_bytes};
use redis::Connection;

/// A whole sorted set as (member, exact score text) pairs, lowest first.
pub fn zset_dump(con: &mut impl redis::ConnectionLike, key: &str) -> Vec<(String, String)> {
    query(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"])
}

/// A key's value in a form that compares equal across servers holding the
/// same data.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyContents {
    /// The DUMP payload, compared byte for byte.
    Dump(Vec<u8>),
    /// A sorted set: its members and exact scores (17 digits), in order. Not
    /// its DUMP: that depends on the layout (listpack or skiplist), and a
    /// server with zkit keeps busy small boards as skiplists where its
    /// replicas keep the same data as listpacks.
    SortedSet(Vec<(Vec<u8>, Vec<u8>)>),
    /// A set or hash in a hash table, whose DUMP lists elements in bucket
    /// order, which depends on each server's random hash seed: its type and
    /// its elements (hash fields as `field\0value`), sorted.
    HashTable {
        kind: String,
        elements: Vec<Vec<u8>>,
    },
}

/// Every key of a database with its [`KeyContents`], sorted by key.
pub type DbContents = Vec<(String, KeyContents)>;

/// Every key with its contents, sorted: a byte-for-byte snapshot of a
/// database for comparing servers (strings, lists and compact sets and
/// hashes by DUMP bytes; sorted sets, hash-table sets and hashes by
/// elements).
pub fn db_snapshot(con: &mut impl redis::ConnectionLike) -> DbContents {
    all_keys(con)
        .into_iter()
        .map(|k| {
            let kind: String = on_key(con, &["TYPE"], &k);
            let encoding: String = on_key(con, &["OBJECT", "ENCODING"], &k);
            let contents = match (kind.as_str(), encoding.as_str()) {
                ("zset", _) => {
                    let args = [&b"ZRANGE"[..], &k, b"0", b"-1", b"WITHSCORES"].map(<[u8]>::to_vec);
                    let reply = run_bytes(con, &args).expect("ZRANGE of a snapshot");
                    KeyContents::SortedSet(redis::from_redis_value(reply).expect("ZRANGE pairs"))
                }
                ("set", "hashtable") => {
                    let mut elements: Vec<Vec<u8>> = on_key(con, &["SMEMBERS"], &k);
                    elements.sort();
                    KeyContents::HashTable { kind, elements }
                }
                ("hash", "hashtable") => {
                    let pairs: Vec<(Vec<u8>, Vec<u8>)> = on_key(con, &["HGETALL"], &k);
                    let mut elements: Vec<Vec<u8>> = pairs
                        .into_iter()
                        .map(|(mut field, value)| {
                            field.push(0);
                            field.extend(value);
                            field
                        })
                        .collect();
                    elements.sort();
                    KeyContents::HashTable { kind, elements }
                }
                _ => KeyContents::Dump(on_key(con, &["DUMP"], &k)),
            };
            (key_name(k), contents)
        })
        .collect()
}

/// Every key with its absolute expiry in unix ms (`PEXPIRETIME`, -1 for none),
/// sorted. DUMP payloads leave expiry out, so replication tests of commands
/// that set TTLs compare this beside [`db_snapshot`].
pub fn expiry_snapshot(con: &mut Connection) -> Vec<(String, i64)> {
    all_keys(con)
        .into_iter()
        .map(|k| {
            let at: i64 = on_key(con, &["PEXPIRETIME"], &k);
            (key_name(k), at)
        })
        .collect()
}

/// Every key name, sorted, as bytes: random argument vectors make names
/// that are not UTF-8.
fn all_keys(con: &mut impl redis::ConnectionLike) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = query(con, &["KEYS", "*"]);
    keys.sort();
    keys
}

/// Runs `words` followed by the key name `key` (through [`run_bytes`]).
fn on_key<T: redis::FromRedisValue>(
    con: &mut impl redis::ConnectionLike,
    words: &[&str],
    key: &[u8],
) -> T {
    let args: Vec<Vec<u8>> = words
        .iter()
        .map(|word| word.as_bytes().to_vec())
        .chain([key.to_vec()])
        .collect();
    let reply = run_bytes(con, &args).unwrap_or_else(|e| panic!("{words:?} {key:?} failed: {e}"));
    redis::from_redis_value(reply)
        .unwrap_or_else(|e| panic!("{words:?} {key:?}: unexpected reply: {e}"))
}

/// A key name as snapshots show it: its text, or its bytes when it is not
/// UTF-8.
fn key_name(key: Vec<u8>) -> String {
    String::from_utf8(key).unwrap_or_else(|e| format!("{:?}", e.into_bytes()))
}

/// The server's clock in unix ms (`TIME`).
pub fn server_time_ms(con: &mut Connection) -> i64 {
    let (secs, micros): (i64, i64) = query(con, &["TIME"]);
    secs * 1000 + micros / 1000
}

/// Polls until the server's clock reaches `at_ms`: for checks that something
/// has *not* happened by a due time, however slowly this machine runs.
pub fn wait_until_server_time(con: &mut Connection, at_ms: i64) {
    super::wait_for(std::time::Duration::from_secs(60), || {
        server_time_ms(con) >= at_ms
    });
}

/// Runs each command, which must fail with an error starting with its
/// expected text and leave every key and TTL as it was.
pub fn assert_errors_change_nothing(con: &mut Connection, cases: &[(&[&str], &str)]) {
    let snapshot = db_snapshot(con);
    let expiry = expiry_snapshot(con);
    for (words, expected) in cases {
        let e = err(con, words);
        assert!(
            e.starts_with(expected),
            "{words:?}: got {e:?}, want {expected:?}"
        );
        assert_eq!(db_snapshot(con), snapshot, "{words:?} changed data");
        assert_eq!(expiry_snapshot(con), expiry, "{words:?} changed a TTL");
    }
}
