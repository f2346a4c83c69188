//! What the RANK tests share: the default tie-break clock's start, reached-at
//! times as `AT` takes them, and a page's rows as the client reads them.

/// 2024-01-01T00:00:00Z, the default tie-break epoch.
pub const EPOCH: i64 = 1_704_067_200_000;

/// `AT`'s unix ms, `offset_ms` after the epoch.
pub fn at(offset_ms: i64) -> String {
    (EPOCH + offset_ms).to_string()
}

/// A page's row: rank, member, total.
pub type Row = (i64, String, i64);

pub fn row(rank: i64, member: &str, total: i64) -> Row {
    (rank, member.to_string(), total)
}
