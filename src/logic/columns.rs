//! A board ranked by several integer columns (kills, then assists, then the
//! lowest time), packed into the one integer total every board has, so a
//! column board is a plain board: first-come ties, SHARED and DENSE ranks,
//! pages and the module-less replica's ZRANGE all hold as they are.
//!
//! Each column is declared by the value that ranks best and the one that
//! ranks worst (`kills 1000 0`: more kills rank higher; `time 0 3600000`:
//! less time does). A value's digit is its distance from the worst value,
//! in `[0, radix)` with `radix = |best - worst| + 1`, and the total is the
//! mixed-radix number of the digits, the first column most significant:
//! `total = d1 * r2 * ... * rn + ... + d(n-1) * rn + dn`. A higher total is
//! then exactly a better tuple, compared column by column. All the radixes
//! multiplied must stay at or below 2^52, so every total is below 2^52 and
//! the tie-break keeps its fraction bits (`logic::rank`); the fewer the
//! combinations, the finer the tie-break.
//!
//! The columns are kept in a plain hash (`commands::rank_columns`): field
//! `columns` holds their count, field `i` (1-based) `best worst name`, the
//! name last so that it may be any bytes.

use super::rank::TOTAL_LIMIT;

/// The most columns a board has: PlayFab's boards take up to 5; 16 leaves
/// room and keeps a call's values on the stack.
pub const MAX_COLUMNS: usize = 16;

/// One value per column, in the columns' order. A plain vector: a call
/// without columns carries only its empty `Option`, one word.
pub type ColumnValues = Vec<i64>;

#[derive(Debug, Clone, PartialEq)]
pub enum ColumnsError {
    /// More than [`MAX_COLUMNS`] columns declared.
    TooMany,
    /// A best or worst value with `|value| >= 2^52`.
    BoundOutOfRange,
    /// The ranges multiply to more than 2^52 combinations.
    TooWide,
    /// RANK.COLUMNS on a key that holds other columns.
    OtherColumns,
    /// A call names a columns key that does not exist.
    NoColumns,
    /// The columns key is a hash, but not one RANK.COLUMNS wrote.
    NotColumns,
    /// A call gives another number of values than the board has columns.
    ValueCount { columns: usize, given: usize },
    /// A value (given, or a gift's result) outside its column's range.
    ValueOutOfRange { column: usize, low: i64, high: i64 },
    /// A member's total that is no packed tuple of these columns (written
    /// without COLUMNS, or with other columns).
    NotColumnsTotal(i64),
    /// `THEN` without `COLUMNS`.
    ThenWithoutColumns,
    /// `ASC` with `COLUMNS`: the columns set the order.
    AscWithColumns,
    /// The columns key is the board, its totals index or its data hash.
    KeyShared,
}

/// One column: its name (any bytes: the clients' and the console's label)
/// and the values that rank best and worst.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: Vec<u8>,
    pub best: i64,
    pub worst: i64,
}

impl Column {
    /// How many values the column holds: `|best - worst| + 1`.
    fn radix(&self) -> u64 {
        self.best.abs_diff(self.worst) + 1
    }

    /// The value's distance from the worst value, or `None` outside the
    /// range.
    fn digit(&self, value: i64) -> Option<u64> {
        let (low, high) = self.range();
        (low..=high)
            .contains(&value)
            .then(|| value.abs_diff(self.worst))
    }

    /// The value `digit` steps from the worst one towards the best.
    fn value(&self, digit: u64) -> i64 {
        let digit = digit as i64;
        if self.best >= self.worst {
            self.worst + digit
        } else {
            self.worst - digit
        }
    }

    /// `[low, high]`: the range, lowest value first.
    pub fn range(&self) -> (i64, i64) {
        (self.best.min(self.worst), self.best.max(self.worst))
    }
}

/// A board's columns, checked: at most [`MAX_COLUMNS`], bounds below 2^52,
/// and at most 2^52 combinations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    columns: Vec<Column>,
    /// How many tuples there are: every radix multiplied (at most 2^52).
    combinations: u64,
}

impl Columns {
    pub fn new(columns: Vec<Column>) -> Result<Columns, ColumnsError> {
        if columns.len() > MAX_COLUMNS {
            return Err(ColumnsError::TooMany);
        }
        let bound = TOTAL_LIMIT.unsigned_abs();
        let in_range = |value: i64| value.unsigned_abs() < bound;
        if !columns
            .iter()
            .all(|c| in_range(c.best) && in_range(c.worst))
        {
            return Err(ColumnsError::BoundOutOfRange);
        }
        let mut combinations: u64 = 1;
        for column in &columns {
            combinations = combinations
                .checked_mul(column.radix())
                .filter(|&n| n <= bound)
                .ok_or(ColumnsError::TooWide)?;
        }
        Ok(Columns {
            columns,
            combinations,
        })
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The highest total a tuple packs to: every column at its best.
    pub fn highest_total(&self) -> i64 {
        self.combinations as i64 - 1
    }

    /// The total of a tuple (one value per column, in order).
    pub fn pack(&self, values: &[i64]) -> Result<i64, ColumnsError> {
        self.check_count(values.len())?;
        let mut total: u64 = 0;
        for (i, (column, &value)) in self.columns.iter().zip(values).enumerate() {
            let digit = column.digit(value).ok_or_else(|| {
                let (low, high) = column.range();
                ColumnsError::ValueOutOfRange {
                    column: i + 1,
                    low,
                    high,
                }
            })?;
            // Below `combinations` at every step, so no overflow.
            total = total * column.radix() + digit;
        }
        Ok(total as i64)
    }

    /// The tuple a total packs.
    pub fn unpack(&self, total: i64) -> Result<ColumnValues, ColumnsError> {
        if !(0..self.combinations as i64).contains(&total) {
            return Err(ColumnsError::NotColumnsTotal(total));
        }
        let mut rest = total as u64;
        let mut values: ColumnValues = self.columns.iter().map(|_| 0).collect();
        for (slot, column) in values.iter_mut().zip(&self.columns).rev() {
            let radix = column.radix();
            *slot = column.value(rest % radix);
            rest /= radix;
        }
        Ok(values)
    }

    /// The total after adding `amounts` column by column to the tuple of
    /// `previous` (`None`: a member not on the board, at 0 in every
    /// column). Refused when a result leaves its column's range: a column
    /// never carries into the one before it.
    pub fn add(&self, previous: Option<i64>, amounts: &[i64]) -> Result<i64, ColumnsError> {
        self.check_count(amounts.len())?;
        let start = match previous {
            Some(total) => self.unpack(total)?,
            None => self.columns.iter().map(|_| 0).collect(),
        };
        let mut sums = ColumnValues::new();
        for (i, (column, (&value, &amount))) in self
            .columns
            .iter()
            .zip(start.iter().zip(amounts))
            .enumerate()
        {
            let (low, high) = column.range();
            let sum = value
                .checked_add(amount)
                .filter(|sum| (low..=high).contains(sum))
                .ok_or(ColumnsError::ValueOutOfRange {
                    column: i + 1,
                    low,
                    high,
                })?;
            sums.push(sum);
        }
        self.pack(&sums)
    }

    /// Refuses another number of values than there are columns.
    pub fn check_count(&self, given: usize) -> Result<(), ColumnsError> {
        if given != self.columns.len() {
            return Err(ColumnsError::ValueCount {
                columns: self.columns.len(),
                given,
            });
        }
        Ok(())
    }

    /// The hash fields that keep the columns: `columns` and its count, then
    /// field `i` holding `best worst name`.
    pub fn stored_fields(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut fields = vec![(
            COUNT_FIELD.to_vec(),
            self.columns.len().to_string().into_bytes(),
        )];
        for (i, column) in self.columns.iter().enumerate() {
            let mut value = format!("{} {} ", column.best, column.worst).into_bytes();
            value.extend_from_slice(&column.name);
            fields.push(((i + 1).to_string().into_bytes(), value));
        }
        fields
    }

    /// The columns a hash keeps, read field by field with `field` (`None`:
    /// no such field; any bytes-like value, so a caller hands over the
    /// server's string without a copy). A hash with no `columns` field, or
    /// fields that do not parse, is not a board's columns.
    pub fn from_stored<T: AsRef<[u8]>>(
        field: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<Columns, ColumnsError> {
        let count = field(COUNT_FIELD)
            .and_then(|count| decimal(count.as_ref()))
            .filter(|&count| (1..=MAX_COLUMNS as i64).contains(&count))
            .ok_or(ColumnsError::NotColumns)?;
        let mut columns = Vec::with_capacity(count as usize);
        for name in &COLUMN_FIELDS[..count as usize] {
            let stored = field(name).ok_or(ColumnsError::NotColumns)?;
            columns.push(parse_column(stored.as_ref()).ok_or(ColumnsError::NotColumns)?);
        }
        Columns::new(columns).map_err(|_| ColumnsError::NotColumns)
    }
}

/// The fields of the columns, `1` to `16`, named once.
const COLUMN_FIELDS: [&[u8]; MAX_COLUMNS] = [
    b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"10", b"11", b"12", b"13", b"14", b"15",
    b"16",
];

/// The field that holds how many columns there are.
pub const COUNT_FIELD: &[u8] = b"columns";

/// `best worst name` as a column field holds it.
fn parse_column(stored: &[u8]) -> Option<Column> {
    let mut parts = stored.splitn(3, |&b| b == b' ');
    let best = decimal(parts.next()?)?;
    let worst = decimal(parts.next()?)?;
    let name = parts.next()?.to_vec();
    Some(Column { name, best, worst })
}

/// A decimal integer as zkit writes one: an optional `-`, digits, no
/// leading zero and no `-0` (so a stored field has one spelling), within
/// i64.
fn decimal(text: &[u8]) -> Option<i64> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let canonical = match digits {
        [b'0'] => digits.len() == text.len(),
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !canonical {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn column(best: i64, worst: i64) -> Column {
        Column {
            name: b"c".to_vec(),
            best,
            worst,
        }
    }

    /// Kills (more is better), then the time (less is better).
    fn kills_then_time() -> Columns {
        Columns::new(vec![column(100, 0), column(0, 999)]).unwrap()
    }

    #[test]
    fn a_higher_total_is_a_better_tuple() {
        let c = kills_then_time();
        let (a, b, d) = (
            c.pack(&[5, 300]).unwrap(),
            c.pack(&[5, 200]).unwrap(),
            c.pack(&[6, 999]).unwrap(),
        );
        assert!(b > a, "less time ranks higher");
        assert!(d > b, "more kills rank higher whatever the time");
        assert_eq!(c.pack(&[0, 999]).unwrap(), 0);
        assert_eq!(c.pack(&[100, 0]).unwrap(), c.highest_total());
        assert_eq!(c.highest_total(), 101 * 1000 - 1);
        assert_eq!(c.unpack(a).unwrap().as_slice(), &[5, 300]);
    }

    #[test]
    fn values_outside_a_range_and_wrong_counts_are_refused() {
        let c = kills_then_time();
        assert_eq!(
            c.pack(&[101, 0]),
            Err(ColumnsError::ValueOutOfRange {
                column: 1,
                low: 0,
                high: 100
            })
        );
        assert_eq!(
            c.pack(&[1]),
            Err(ColumnsError::ValueCount {
                columns: 2,
                given: 1
            })
        );
        assert_eq!(c.unpack(-1), Err(ColumnsError::NotColumnsTotal(-1)));
        assert_eq!(
            c.unpack(101 * 1000),
            Err(ColumnsError::NotColumnsTotal(101_000))
        );
    }

    #[test]
    fn a_gift_adds_column_by_column_and_never_carries() {
        let c = kills_then_time();
        // A new member starts at 0 in every column: 0 is the best time.
        let first = c.add(None, &[1, 0]).unwrap();
        assert_eq!(c.unpack(first).unwrap().as_slice(), &[1, 0]);
        let second = c.add(Some(first), &[2, 40]).unwrap();
        assert_eq!(c.unpack(second).unwrap().as_slice(), &[3, 40]);
        assert_eq!(
            c.add(Some(second), &[0, 960]),
            Err(ColumnsError::ValueOutOfRange {
                column: 2,
                low: 0,
                high: 999
            })
        );
        assert!(c.add(Some(second), &[0, i64::MAX]).is_err());
    }

    #[test]
    fn declarations_are_checked() {
        let limit = TOTAL_LIMIT;
        assert_eq!(
            Columns::new(vec![column(limit, 0)]),
            Err(ColumnsError::BoundOutOfRange)
        );
        assert!(Columns::new(vec![column(limit - 1, 0)]).is_ok());
        assert_eq!(
            Columns::new(vec![column(limit - 1, 0), column(1, 0)]),
            Err(ColumnsError::TooWide)
        );
        assert!(Columns::new(vec![column((1 << 26) - 1, 0), column((1 << 26) - 1, 0)]).is_ok());
        assert_eq!(
            Columns::new(vec![column(1, 0); MAX_COLUMNS + 1]),
            Err(ColumnsError::TooMany)
        );
        // Lower wins over the widest range a score holds.
        let c = Columns::new(vec![column(0, limit - 1)]).unwrap();
        assert_eq!(c.pack(&[limit - 1]).unwrap(), 0);
        assert_eq!(c.pack(&[0]).unwrap(), limit - 1);
        assert_eq!(c.highest_total(), limit - 1);
        assert_eq!(
            Columns::new(vec![column(-1, limit - 1)]),
            Err(ColumnsError::TooWide)
        );
    }

    #[test]
    fn stored_fields_read_back_and_anything_else_is_refused() {
        let c = Columns::new(vec![
            Column {
                name: b"kills 1 2".to_vec(),
                best: 100,
                worst: 0,
            },
            Column {
                name: b"".to_vec(),
                best: -5,
                worst: 7,
            },
        ])
        .unwrap();
        let fields = c.stored_fields();
        assert_eq!(fields[1].1, b"100 0 kills 1 2");
        let read = |fields: &[(Vec<u8>, Vec<u8>)]| {
            Columns::from_stored(|name| {
                fields
                    .iter()
                    .find(|(f, _)| f == name)
                    .map(|(_, v)| v.clone())
            })
        };
        assert_eq!(read(&fields), Ok(c));
        for broken in [
            vec![],
            vec![(b"columns".to_vec(), b"2".to_vec())],
            vec![
                (b"columns".to_vec(), b"01".to_vec()),
                (b"1".to_vec(), b"1 0 a".to_vec()),
            ],
            vec![
                (b"columns".to_vec(), b"1".to_vec()),
                (b"1".to_vec(), b"1 0".to_vec()),
            ],
            vec![
                (b"columns".to_vec(), b"1".to_vec()),
                (b"1".to_vec(), b"+1 0 a".to_vec()),
            ],
            vec![(b"columns".to_vec(), b"0".to_vec())],
            vec![
                (b"columns".to_vec(), b"1".to_vec()),
                (b"1".to_vec(), b"-0 0 a".to_vec()),
            ],
            vec![
                (b"columns".to_vec(), b"1".to_vec()),
                (b"1".to_vec(), b"1 99999999999999999999 a".to_vec()),
            ],
        ] {
            assert_eq!(read(&broken), Err(ColumnsError::NotColumns), "{broken:?}");
        }
    }

    fn any_columns() -> impl Strategy<Value = Columns> {
        prop::collection::vec((-50i64..50, 0i64..40, any::<bool>()), 1..5).prop_map(|spec| {
            let columns = spec
                .into_iter()
                .map(|(low, width, best_high)| {
                    let high = low + width;
                    if best_high {
                        column(high, low)
                    } else {
                        column(low, high)
                    }
                })
                .collect();
            Columns::new(columns).unwrap()
        })
    }

    fn tuple_in(columns: &Columns) -> impl Strategy<Value = Vec<i64>> {
        columns
            .columns()
            .iter()
            .map(|c| {
                let (low, high) = c.range();
                low..=high
            })
            .collect::<Vec<_>>()
    }

    /// How a brute-force model ranks two tuples: column by column, each
    /// by its own direction.
    fn better(columns: &Columns, a: &[i64], b: &[i64]) -> std::cmp::Ordering {
        for (c, (x, y)) in columns.columns().iter().zip(a.iter().zip(b)) {
            let by_column = if c.best >= c.worst {
                x.cmp(y)
            } else {
                y.cmp(x)
            };
            if by_column.is_ne() {
                return by_column;
            }
        }
        std::cmp::Ordering::Equal
    }

    proptest! {
        #[test]
        fn totals_order_as_tuples_do_and_round_trip(
            (columns, a, b) in any_columns().prop_flat_map(|c| {
                let (ta, tb) = (tuple_in(&c), tuple_in(&c));
                (Just(c), ta, tb)
            })
        ) {
            let (pa, pb) = (columns.pack(&a).unwrap(), columns.pack(&b).unwrap());
            prop_assert_eq!(pa.cmp(&pb), better(&columns, &a, &b));
            prop_assert!((0..=columns.highest_total()).contains(&pa));
            prop_assert_eq!(columns.unpack(pa).unwrap().to_vec(), a);
        }

        #[test]
        fn a_gift_is_the_sum_of_each_column_or_a_refusal(
            (columns, a, amounts) in any_columns().prop_flat_map(|c| {
                let n = c.columns().len();
                let ta = tuple_in(&c);
                (Just(c), ta, prop::collection::vec(-60i64..60, n))
            })
        ) {
            let total = columns.pack(&a).unwrap();
            let sums: Vec<i64> = a.iter().zip(&amounts).map(|(x, y)| x + y).collect();
            match columns.add(Some(total), &amounts) {
                Ok(after) => prop_assert_eq!(columns.unpack(after).unwrap().to_vec(), sums),
                Err(ColumnsError::ValueOutOfRange { column, .. }) => {
                    let (low, high) = columns.columns()[column - 1].range();
                    prop_assert!(!(low..=high).contains(&sums[column - 1]));
                    // The first column out of range is the one named.
                    for (c, sum) in columns.columns().iter().zip(&sums).take(column - 1) {
                        let (low, high) = c.range();
                        prop_assert!((low..=high).contains(sum));
                    }
                }
                Err(e) => prop_assert!(false, "{e:?}"),
            }
        }
    }
}
