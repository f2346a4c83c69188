//! The module's global allocator: the server's, so `INFO memory` and
//! `maxmemory` count what zkit allocates, with every block aligned to 16
//! bytes.
//!
//! Rust allocates a panic's unwind exception with alignment 8, and the LLVM
//! libunwind that release builds link (cargo-zigbuild) writes it with 16-byte
//! SSE stores. Servers whose jemalloc has an 8-byte quantum (Redis 7.4's own
//! build) hand out 8-aligned blocks, so a caught panic crashed the server
//! there. `RedisAlloc` aligns a block by rounding its size up to a multiple
//! of the alignment asked for, so asking for 16 is enough.

use std::alloc::{GlobalAlloc, Layout};

use redis_module::alloc::RedisAlloc;

pub struct ServerAllocator;

// SAFETY: delegates to the server's allocator, with at least the alignment
// asked for.
unsafe impl GlobalAlloc for ServerAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match layout.align_to(16) {
            Ok(aligned) => RedisAlloc.alloc(aligned),
            Err(_) => std::ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        RedisAlloc.dealloc(ptr, layout)
    }
}
