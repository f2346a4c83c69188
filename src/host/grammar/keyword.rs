//! Keywords: a word matched against a declared keyword in any case, and
//! the option of a group that a word starts.

use super::arg::{Arg, ArgKind};

/// A word of at most 8 bytes as a little-endian integer with each byte's
/// case bit cleared, which equals a keyword packed as [`Arg::token`] packs
/// it exactly when [`is_keyword`] says the word is that keyword (the
/// lengths equal, which the caller checks); `None` for a longer word.
#[inline(always)]
pub(super) fn packed(word: &[u8]) -> Option<u64> {
    let n = word.len();
    let value = match n {
        4..=8 => {
            // Two 4-byte reads that overlap when n < 8: the bytes read twice
            // are the same, so or-ing them changes nothing.
            let low = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let high = u32::from_le_bytes([word[n - 4], word[n - 3], word[n - 2], word[n - 1]]);
            u64::from(low) | u64::from(high) << (8 * (n - 4))
        }
        0..=3 => word
            .iter()
            .enumerate()
            .fold(0, |packed, (i, &b)| packed | u64::from(b) << (8 * i)),
        _ => return None,
    };
    Some(value & !0x2020_2020_2020_2020)
}

/// Whether `word` is `keyword` in any case; `keyword` is upper-case
/// letters ([`Arg::token`] checks it when the declaration is built), so a
/// byte matches when it is the letter with its case bit (0x20) cleared (no
/// other byte is), and a word of another length costs one comparison.
#[inline(always)]
pub(super) fn is_keyword(word: &[u8], keyword: &str) -> bool {
    word.len() == keyword.len()
        && word
            .iter()
            .zip(keyword.as_bytes())
            .all(|(w, k)| w & !0x20 == *k)
}

#[inline(always)]
pub(super) fn is_token(arg: &Arg, word: &[u8]) -> bool {
    arg.token.is_some_and(|token| is_keyword(word, token))
}

/// The option of `group` (a run of options) that `word` starts, and for a
/// one-of, which choice.
pub(super) fn find_option(group: &'static [Arg], word: &[u8]) -> Option<(usize, Option<usize>)> {
    for (i, arg) in group.iter().enumerate() {
        if let Some(token) = arg.token {
            if is_keyword(word, token) {
                return Some((i, None));
            }
        } else if let ArgKind::OneOf(choices) = arg.kind {
            if let Some(c) = choices.iter().position(|choice| is_token(choice, word)) {
                return Some((i, Some(c)));
            }
        }
    }
    None
}
