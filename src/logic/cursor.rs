//! Feed positions: the display order of a feed and the cursor that names a
//! position in it.
//!
//! A feed is shown newest first: score descending, and among equal scores
//! member descending, the exact reverse of the sorted set's own order. So a
//! position `(score, member)` splits the feed exactly, whatever is inserted
//! or removed around it, and whether or not its own member still exists.
//!
//! A cursor carries that position as printable ASCII a client can put in a
//! URL or JSON as it is: `f1:<16 hex digits: the bits of the score>:<the
//! member's bytes in hex>`, all lowercase. The score travels as its bits, so
//! it comes back identical (-0.0, infinities and subnormals included), and the
//! member as hex, so any bytes survive. Each position has exactly one cursor
//! text; anything else is refused, never guessed at.

use std::cmp::Ordering;

use super::hex;

/// The version tag every cursor starts with; a future format takes another.
const PREFIX: &[u8] = b"f1:";
/// Hex digits of the score's 64 bits.
const SCORE_DIGITS: usize = 16;
/// Bytes before the member: prefix, score, separator.
const HEADER_LEN: usize = PREFIX.len() + SCORE_DIGITS + 1;
const HEX: &[u8; 16] = b"0123456789abcdef";

/// A position in a feed: where an item with this score and member sits, or
/// would sit.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub score: f64,
    pub member: Vec<u8>,
}

/// The smallest `proto-max-bulk-len` a server accepts (1 MiB): shorter
/// cursors always fit, so only longer ones need the server's setting.
pub const SMALLEST_BULK_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorError {
    /// A cursor that is not one [`encode_into`] wrote.
    Malformed,
    /// The cursor of a member this long could not be sent back: it is longer
    /// than the server's `proto-max-bulk-len`.
    TooLong {
        member_len: usize,
        cursor_len: usize,
        limit: usize,
    },
}

/// The length of the cursor of a member of `member_len` bytes.
pub fn encoded_len(member_len: usize) -> usize {
    HEADER_LEN.saturating_add(member_len.saturating_mul(2))
}

/// Refuses a cursor of `cursor_len` bytes naming a member of `member_len`
/// bytes (this module's cursor, [`encoded_len`], or one that wraps it) that
/// a client could not send back as one argument of at most `limit` bytes
/// (the server's `proto-max-bulk-len`).
pub fn check_fits(member_len: usize, cursor_len: usize, limit: usize) -> Result<(), CursorError> {
    if cursor_len <= limit {
        Ok(())
    } else {
        Err(CursorError::TooLong {
            member_len,
            cursor_len,
            limit,
        })
    }
}

/// Appends the cursor text of the position `(score, member)` to `out` (a
/// buffer on the stack, when the member is short).
pub fn encode_into(score: f64, member: &[u8], out: &mut impl Extend<u8>) {
    out.extend(PREFIX.iter().copied());
    let bits = score.to_bits();
    out.extend(
        (0..SCORE_DIGITS)
            .rev()
            .map(|i| HEX[(bits >> (4 * i)) as usize & 0xf]),
    );
    out.extend([b':']);
    out.extend(
        member
            .iter()
            .flat_map(|byte| [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]]),
    );
}

impl Position {
    /// Reads a cursor back. A NaN score cannot name a position (sorted sets
    /// hold none), so it is malformed too.
    pub fn decode(cursor: &[u8]) -> Result<Position, CursorError> {
        let rest = cursor.strip_prefix(PREFIX).ok_or(CursorError::Malformed)?;
        if rest.len() < SCORE_DIGITS + 1 || rest[SCORE_DIGITS] != b':' {
            return Err(CursorError::Malformed);
        }
        let (score_hex, member_hex) = (&rest[..SCORE_DIGITS], &rest[SCORE_DIGITS + 1..]);
        let bits = score_hex
            .iter()
            .try_fold(0u64, |bits, &digit| {
                Some(bits << 4 | u64::from(hex::digit(digit)?))
            })
            .ok_or(CursorError::Malformed)?;
        let score = f64::from_bits(bits);
        if score.is_nan() || member_hex.len() % 2 != 0 {
            return Err(CursorError::Malformed);
        }
        let member = member_hex
            .chunks_exact(2)
            .map(|pair| hex::byte([pair[0], pair[1]]))
            .collect::<Option<Vec<u8>>>()
            .ok_or(CursorError::Malformed)?;
        Ok(Position { score, member })
    }

    /// Where `(score, member)` is shown relative to this position: `Less` is
    /// above it (newer), `Greater` below it (older).
    pub fn locate(&self, score: f64, member: &[u8]) -> Ordering {
        display_order((score, member), (self.score, &self.member))
    }
}

/// The display order of two feed items: newest (highest score) first, and
/// among equal scores the higher member first, the reverse of ZRANGE. Scores
/// compare as numbers (-0.0 equals 0.0, as in a sorted set).
pub fn display_order(a: (f64, &[u8]), b: (f64, &[u8])) -> Ordering {
    let by_score = if a.0 > b.0 {
        Ordering::Less
    } else if a.0 < b.0 {
        Ordering::Greater
    } else {
        Ordering::Equal
    };
    by_score.then_with(|| b.1.cmp(a.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The cursor text of the position `(score, member)`.
    fn encode(score: f64, member: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(encoded_len(member.len()));
        encode_into(score, member, &mut out);
        out
    }

    #[test]
    fn cursor_text_is_versioned_lowercase_hex() {
        assert_eq!(
            encode(100.0, b"item:1"),
            b"f1:4059000000000000:6974656d3a31"
        );
        assert_eq!(encode(-0.0, b""), b"f1:8000000000000000:");
        assert_eq!(
            Position::decode(b"f1:fff0000000000000:ff00"),
            Ok(Position {
                score: f64::NEG_INFINITY,
                member: vec![0xff, 0x00]
            })
        );
    }

    #[test]
    fn refuses_anything_it_did_not_write() {
        for bad in [
            &b""[..],
            b"f1:",
            b"f1:4059000000000000",
            b"f2:4059000000000000:",
            b"F1:4059000000000000:",
            b"f1:4059000000000000:6",
            b"f1:4059000000000000:6g",
            b"f1:4059000000000000:6A",
            b"f1:405900000000000:61",
            b"f1:40590000000000000:61",
            b"f1:405900000000000g:61",
            b"f1:4059000000000000;61",
            b"f1:+059000000000000:61",
            b"f1:7ff8000000000000:61",
            b"f1:fff0000000000001:61",
            b"100",
            b"(100",
        ] {
            assert_eq!(
                Position::decode(bad),
                Err(CursorError::Malformed),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_cursor_must_fit_in_one_request_argument() {
        assert_eq!(encoded_len(0), HEADER_LEN);
        assert_eq!(encode(1.0, b"abc").len(), encoded_len(3));
        assert_eq!(check_fits(10, encoded_len(10), SMALLEST_BULK_LIMIT), Ok(()));
        let member_len = (SMALLEST_BULK_LIMIT - HEADER_LEN) / 2;
        assert_eq!(
            check_fits(member_len, encoded_len(member_len), SMALLEST_BULK_LIMIT),
            Ok(())
        );
        assert_eq!(
            check_fits(
                member_len + 1,
                encoded_len(member_len + 1),
                SMALLEST_BULK_LIMIT
            ),
            Err(CursorError::TooLong {
                member_len: member_len + 1,
                cursor_len: encoded_len(member_len + 1),
                limit: SMALLEST_BULK_LIMIT
            })
        );
        // Lengths saturate rather than wrap.
        assert!(check_fits(
            usize::MAX / 2 + 1,
            encoded_len(usize::MAX / 2 + 1),
            usize::MAX - 1
        )
        .is_err());
    }

    #[test]
    fn display_order_is_newest_first_then_member_descending() {
        let mut items = [
            (1.0, &b"b"[..]),
            (2.0, b"a"),
            (1.0, b"c"),
            (f64::INFINITY, b"a"),
            (1.0, b"ba"),
            (-0.0, b"z"),
            (0.0, b"y"),
        ];
        items.sort_by(|a, b| display_order(*a, *b));
        let members: Vec<&[u8]> = items.iter().map(|(_, m)| *m).collect();
        assert_eq!(members, [&b"a"[..], b"a", b"c", b"ba", b"b", b"z", b"y"]);
        let at = Position {
            score: 1.0,
            member: b"b".to_vec(),
        };
        assert_eq!(at.locate(1.0, b"ba"), Ordering::Less);
        assert_eq!(at.locate(1.0, b"b"), Ordering::Equal);
        assert_eq!(at.locate(1.0, b"a"), Ordering::Greater);
        assert_eq!(at.locate(0.5, b"zzz"), Ordering::Greater);
    }

    fn any_score() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("sorted sets hold no NaN", |s| !s.is_nan()),
            Just(0.0),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::MIN_POSITIVE),
            Just(f64::from_bits(1)),
            Just(-f64::from_bits(0x000f_ffff_ffff_ffff)),
            (-5i32..5).prop_map(f64::from),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_position_round_trips(score in any_score(), member in proptest::collection::vec(any::<u8>(), 0..80)) {
            let cursor = encode(score, &member);
            prop_assert!(cursor.iter().all(|b| b.is_ascii_graphic()));
            let back = Position::decode(&cursor).unwrap();
            prop_assert_eq!(back.score.to_bits(), score.to_bits());
            prop_assert_eq!(back.member, member);
        }

        #[test]
        fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..60)) {
            if let Ok(position) = Position::decode(&bytes) {
                // Whatever it accepts is canonical: it re-encodes to the same text.
                prop_assert_eq!(encode(position.score, &position.member), bytes);
            }
        }

        #[test]
        fn decoding_mangled_cursors_never_panics(
            score in any_score(),
            member in proptest::collection::vec(any::<u8>(), 0..20),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let mut cursor = encode(score, &member);
            let i = at.index(cursor.len());
            cursor[i] = byte;
            if let Ok(position) = Position::decode(&cursor) {
                prop_assert_eq!(encode(position.score, &position.member), cursor);
            }
        }

        #[test]
        fn display_order_reverses_the_sorted_set_order(
            mut items in proptest::collection::vec((any_score(), proptest::collection::vec(0u8..4, 0..3)), 0..30),
        ) {
            // A sorted set orders by score (as numbers), then by member bytes.
            let mut zset_order = items.clone();
            zset_order.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then_with(|| a.1.cmp(&b.1)));
            items.sort_by(|a, b| display_order((a.0, &a.1), (b.0, &b.1)));
            zset_order.reverse();
            let key = |v: &[(f64, Vec<u8>)]| v.iter().map(|(s, m)| (if *s == 0.0 { 0.0 } else { *s }, m.clone())).collect::<Vec<_>>();
            prop_assert_eq!(key(&items), key(&zset_order));
        }

        #[test]
        fn locate_agrees_with_the_display_order(a in any_score(), b in any_score(), ma in proptest::collection::vec(0u8..3, 0..3), mb in proptest::collection::vec(0u8..3, 0..3)) {
            let at = Position { score: b, member: mb.clone() };
            let order = at.locate(a, &ma);
            prop_assert_eq!(order, display_order((a, &ma), (b, &mb)));
            prop_assert_eq!(order.reverse(), display_order((b, &mb), (a, &ma)));
            prop_assert_eq!(order == Ordering::Equal, a == b && ma == mb);
        }
    }
}
