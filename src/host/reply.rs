//! A command's reply as a value: handlers build it whole and return it, and
//! the dispatcher writes it only after the handler succeeded, so an error can
//! never follow half a reply.

use std::ffi::CStr;

use super::Ctx;

/// A reply, as RESP shapes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Int(i64),
    /// A double: a bulk string in RESP2 (as ZSCORE gives), a double in RESP3.
    Double(f64),
    Bulk(Vec<u8>),
    Null,
    /// The null array blocking commands reply on timeout (`*-1` in RESP2).
    NullArray,
    Array(Vec<Reply>),
    Simple(&'static CStr),
    /// The client was blocked: its reply comes when it is served or times
    /// out, not now.
    Blocked,
}

impl Reply {
    /// An array of integers, such as `[total, rank]`.
    pub fn ints(values: &[i64]) -> Reply {
        Reply::Array(values.iter().copied().map(Reply::Int).collect())
    }
}

impl Ctx {
    /// Writes a whole reply.
    pub fn reply(&self, reply: &Reply) {
        match reply {
            Reply::Int(n) => self.reply_i64(*n),
            Reply::Double(x) => self.reply_f64(*x),
            Reply::Bulk(bytes) => self.reply_bulk(bytes),
            Reply::Null => self.reply_null(),
            Reply::NullArray => self.reply_null_array(),
            Reply::Array(items) => {
                self.reply_array(items.len());
                for item in items {
                    self.reply(item);
                }
            }
            Reply::Simple(text) => self.reply_simple(text),
            Reply::Blocked => {}
        }
    }
}
