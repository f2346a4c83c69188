//! Replies as values: a handler returns its reply, and the dispatcher writes
//! it only after the handler succeeded, so an error can never follow half a
//! reply. A reply is anything that writes itself ([`WriteReply`]): numbers,
//! strings borrowed from the call or a key, `Option` (nil), tuples (arrays
//! of fixed length), slices, or a command's own struct. It is written
//! straight into the client's buffer from where it stands (the handler's
//! stack, the call's arguments): nothing is copied into a tree first.

use std::ffi::CStr;

use super::ctx::Ctx;

use super::string::OwnedRStr;

use super::string::RStr;

/// A reply a handler returns, written by the dispatcher once the handler
/// succeeded.
pub trait WriteReply {
    fn write(&self, ctx: &Ctx);
}

/// An array reply that can be written with more elements after its own:
/// its header counts `trailing` more, which the caller writes right after
/// it (IDMP's flag, the last element of a write's reply), so nothing is
/// built to append them.
pub trait WriteArray {
    fn write_array(&self, ctx: &Ctx, trailing: usize);
}

/// A reply built as a tree, for commands whose replies are not yet values
/// of their own.
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

impl WriteReply for Reply {
    fn write(&self, ctx: &Ctx) {
        match self {
            Reply::Int(n) => ctx.reply_i64(*n),
            Reply::Double(x) => ctx.reply_f64(*x),
            Reply::Bulk(bytes) => ctx.reply_bulk(bytes),
            Reply::Null => ctx.reply_null(),
            Reply::NullArray => ctx.reply_null_array(),
            Reply::Array(items) => {
                ctx.reply_array(items.len());
                for item in items {
                    item.write(ctx);
                }
            }
            Reply::Simple(text) => ctx.reply_simple(text),
            Reply::Blocked => {}
        }
    }
}

impl Ctx {
    /// Writes a whole reply.
    pub fn reply(&self, reply: &impl WriteReply) {
        reply.write(self);
    }
}

impl WriteReply for i64 {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_i64(*self);
    }
}

/// 1 or 0, as Redis replies a yes or no.
impl WriteReply for bool {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_i64(i64::from(*self));
    }
}

/// Nil when absent.
impl<T: WriteReply> WriteReply for Option<T> {
    fn write(&self, ctx: &Ctx) {
        match self {
            Some(value) => value.write(ctx),
            None => ctx.reply_null(),
        }
    }
}

impl WriteReply for RStr {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_str(self);
    }
}

impl WriteReply for OwnedRStr {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_str(self);
    }
}

impl<T: WriteReply + ?Sized> WriteReply for &T {
    fn write(&self, ctx: &Ctx) {
        (**self).write(ctx);
    }
}

/// An array of every element.
impl<T: WriteReply> WriteReply for [T] {
    fn write(&self, ctx: &Ctx) {
        self.write_array(ctx, 0);
    }
}

impl<T: WriteReply> WriteArray for [T] {
    fn write_array(&self, ctx: &Ctx, trailing: usize) {
        ctx.reply_array(self.len() + trailing);
        for item in self {
            item.write(ctx);
        }
    }
}

/// An array of every element, held inline up to `A`'s size.
impl<A: smallvec::Array> WriteReply for smallvec::SmallVec<A>
where
    A::Item: WriteReply,
{
    fn write(&self, ctx: &Ctx) {
        self.as_slice().write(ctx);
    }
}

impl<A: smallvec::Array> WriteArray for smallvec::SmallVec<A>
where
    A::Item: WriteReply,
{
    fn write_array(&self, ctx: &Ctx, trailing: usize) {
        self.as_slice().write_array(ctx, trailing);
    }
}

/// A double: a bulk string in RESP2 (as ZSCORE gives), a double in RESP3.
impl WriteReply for f64 {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_f64(*self);
    }
}

/// Arrays of fixed length, element by element.
macro_rules! tuple_replies {
    ($(($($name:ident),+))+) => {$(
        impl<$($name: WriteReply),+> WriteReply for ($($name,)+) {
            fn write(&self, ctx: &Ctx) {
                self.write_array(ctx, 0);
            }
        }

        impl<$($name: WriteReply),+> WriteArray for ($($name,)+) {
            #[allow(non_snake_case)]
            fn write_array(&self, ctx: &Ctx, trailing: usize) {
                let ($($name,)+) = self;
                ctx.reply_array([$(stringify!($name)),+].len() + trailing);
                $($name.write(ctx);)+
            }
        }
    )+};
}

tuple_replies! {
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
}
