//! What a command may ask about the cluster and its own call: whether it
//! runs on a cluster node or inside MULTI/EXEC, and whether the slot of a
//! key is being migrated to or imported from another node right now.

use std::ffi::c_int;

use redis_module::raw;

use super::api;
use super::call::Native;
use super::call::{call_with_args, CallArg, CallArgs, CallReply};
use super::ctx::Ctx;
use super::string::RStr;

impl Ctx {
    /// True on a cluster node.
    pub fn is_cluster(&self) -> bool {
        self.flags() & raw::REDISMODULE_CTX_FLAGS_CLUSTER as c_int != 0
    }

    /// True inside MULTI/EXEC, whose keys the server checked at EXEC,
    /// before the commands queued ahead of this one ran.
    pub fn in_multi(&self) -> bool {
        self.flags() & raw::REDISMODULE_CTX_FLAGS_MULTI as c_int != 0
    }

    /// Whether this node is migrating `key`'s slot to another node or
    /// importing it (`CLUSTER SETSLOT ... MIGRATING|IMPORTING`), as `CLUSTER
    /// NODES` shows it on this node's own line; `None` when the server did
    /// not say (CLUSTER renamed or disabled, or a reply zkit cannot read).
    /// While a slot is in either state the server refuses a command (also
    /// one a module runs through RM_Call) that names several keys of it and
    /// some of them are missing.
    pub fn slot_is_moving(&self, key: &RStr) -> Option<bool> {
        if !Native::Cluster.is_available() {
            return None;
        }
        let args = CallArgs::new(&[CallArg::Bytes(b"NODES")]);
        // SAFETY: valid context; "E": errors as replies, RESP2 (CLUSTER NODES
        // is then a bulk string, not RESP3's verbatim one); strings alive
        // until the call returns.
        let reply = unsafe {
            call_with_args!(
                api!(RedisModule_Call),
                self.as_ptr(),
                Native::Cluster.name().as_ptr(),
                "E",
                args
            )
        };
        let reply = CallReply::adopt(reply)?;
        let nodes = reply.get().bytes()?;
        let nodes = std::str::from_utf8(nodes).ok()?;
        moving_slots_of_myself(nodes).map(|slots| slots.contains(&key_slot(key.as_bytes())))
    }
}

/// The slots this node's line of a `CLUSTER NODES` reply shows as migrating
/// (`[slot->-node]`) or importing (`[slot-<-node]`); `None` if the reply has
/// no line flagged `myself`.
fn moving_slots_of_myself(nodes: &str) -> Option<Vec<u16>> {
    let line = nodes.lines().find(|line| {
        line.split(' ')
            .nth(2)
            .is_some_and(|flags| flags.split(',').any(|flag| flag == "myself"))
    })?;
    Some(
        line.split(' ')
            .skip(8)
            .filter_map(|field| {
                let inner = field.strip_prefix('[')?;
                let end = inner.find("->-").or_else(|| inner.find("-<-"))?;
                inner[..end].parse().ok()
            })
            .collect(),
    )
}

/// The cluster slot of a key: CRC16 (XMODEM) of the key, or of its hash
/// tag (the bytes between the first `{` and the first `}` after it, when
/// not empty), modulo 16384.
fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    crc16(tagged.unwrap_or(key)) & 0x3fff
}

fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                crc << 1 ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_the_servers() {
        // The check value of CRC16/XMODEM, and slots redis-cli's CLUSTER
        // KEYSLOT prints.
        assert_eq!(crc16(b"123456789"), 0x31c3);
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{room42}:week"), key_slot(b"room42"));
        assert_eq!(
            key_slot(b"{user1000}.following"),
            key_slot(b"{user1000}.followers")
        );
        // An empty tag, or no closing brace, hashes the whole key.
        assert_eq!(key_slot(b"{}a"), crc16(b"{}a") & 0x3fff);
        assert_eq!(key_slot(b"a{b"), crc16(b"a{b") & 0x3fff);
        assert_eq!(key_slot(b"a{b}{c}"), key_slot(b"b"));
    }

    #[test]
    fn only_this_nodes_moving_slots_count() {
        let nodes = "\
07c3 127.0.0.1:30004@31004 master - 0 1 4 connected 0-5460 [93->-292f] [77-<-e7d1]
292f 127.0.0.1:30002@31002 myself,master - 0 0 2 connected 5461-10922 [15495->-07c3] [42-<-e7d1]
e7d1 127.0.0.1:30003@31003 master - 0 1 3 connected 10923-16383
";
        assert_eq!(moving_slots_of_myself(nodes), Some(vec![15495, 42]));
        let quiet = "292f 127.0.0.1:30002@31002 myself,master - 0 0 2 connected 0-16383\n";
        assert_eq!(moving_slots_of_myself(quiet), Some(vec![]));
        assert_eq!(moving_slots_of_myself("ERR unknown command"), None);
    }
}
