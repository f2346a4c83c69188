//! Lowercase hex, as cursors and merge run ids spell their bytes.

/// The value of one lowercase hex digit.
pub fn digit(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

/// The byte a pair of lowercase hex digits spells.
pub fn byte(pair: [u8; 2]) -> Option<u8> {
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_digits_only() {
        assert_eq!(byte(*b"0f"), Some(0x0f));
        assert_eq!(byte(*b"a9"), Some(0xa9));
        assert_eq!(byte(*b"A9"), None);
        assert_eq!(digit(b'g'), None);
    }
}
