//! The file of calls bench/bench.py writes for a load generator: commands
//! in RESP, one after another, as they go on the wire. Each load generator
//! splits it into its commands and hands them to its connections.

use std::fs;

/// Every command of the file, each as its RESP bytes.
pub fn read_commands(path: &str) -> Result<Vec<Vec<u8>>, String> {
    let bytes = fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let mut commands = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let words = number_line(&bytes, &mut at, b'*')?;
        for _ in 0..words {
            let len = number_line(&bytes, &mut at, b'$')?;
            at += len + 2;
            if at > bytes.len() {
                return Err(format!("{path}: a word runs past the end of the file"));
            }
        }
        commands.push(bytes[start..at].to_vec());
    }
    if commands.is_empty() {
        return Err(format!("{path}: no command"));
    }
    Ok(commands)
}

/// The number on the line at `at` that starts with `kind`, moving past it.
fn number_line(bytes: &[u8], at: &mut usize, kind: u8) -> Result<usize, String> {
    let end = bytes[*at..]
        .windows(2)
        .position(|w| w == b"\r\n")
        .map(|p| *at + p)
        .ok_or("a line without its end")?;
    if bytes[*at] != kind {
        return Err(format!("expected '{}' at byte {}", kind as char, *at));
    }
    let number = std::str::from_utf8(&bytes[*at + 1..end])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or(format!("no number at byte {}", *at))?;
    *at = end + 2;
    Ok(number)
}
