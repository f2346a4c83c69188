//! Redis Cluster key slots, computed on the client so each call goes to the
//! primary that owns it on the first try.

use redis::{ErrorKind, RedisError, RedisResult};

const SLOTS: u16 = 16384;

/// The cluster slot of `key`: CRC16 (XMODEM) of its hash tag (the part
/// between the first `{` and the next `}`, when not empty) or of the whole
/// key, modulo 16384, as Redis computes it.
pub fn key_slot(key: &[u8]) -> u16 {
    crc16::State::<crc16::XMODEM>::calculate(hash_tag(key)) % SLOTS
}

fn hash_tag(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        if let Some(length) = key[open + 1..].iter().position(|&b| b == b'}') {
            if length > 0 {
                return &key[open + 1..open + 1 + length];
            }
        }
    }
    key
}

/// The one slot of all `keys`; a client error naming the keys and their
/// slots when they differ (the server would refuse the call with CROSSSLOT).
pub(crate) fn slot_of(command: &str, keys: &[&str]) -> RedisResult<Option<u16>> {
    let slots: Vec<u16> = keys.iter().map(|key| key_slot(key.as_bytes())).collect();
    match slots.split_first() {
        Some((first, rest)) if rest.iter().all(|slot| slot == first) => Ok(Some(*first)),
        Some(_) => {
            let listed: Vec<String> = keys
                .iter()
                .zip(&slots)
                .map(|(key, slot)| format!("{key:?} (slot {slot})"))
                .collect();
            let detail = format!(
                "{command}: keys must share a hash slot, but {} do not; give them one hash tag, e.g. {{tag}}:a and {{tag}}:b",
                listed.join(", ")
            );
            Err(RedisError::from((
                ErrorKind::Client,
                "keys in different slots",
                detail,
            )))
        }
        // A command that reads no key (RANK.SEASON) runs on any node.
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::key_slot;

    // Slots as CLUSTER KEYSLOT reports them (Redis's cluster spec gives
    // 12739 for "123456789"); the integration tests also compare with the server.
    #[test]
    fn slots_follow_hash_tags() {
        assert_eq!(key_slot(b"123456789"), 12739);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        assert_ne!(key_slot(b"foo{}{bar}"), key_slot(b"bar"));
        assert_eq!(key_slot(b"foo{{bar}}zap"), key_slot(b"{bar"));
        assert_eq!(key_slot(b"foo{bar}{zap}"), key_slot(b"bar"));
    }
}
