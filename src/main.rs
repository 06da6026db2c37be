//! The `sincro` command (see `sincro --help`): the command line of [`sincro::cli`] over the
//! built-in algorithms.

#[cfg(feature = "fast-alloc")]
mod alloc {
    //! The `sincro` binary's allocator (feature `fast-alloc`, on by default). Nothing a run
    //! computes depends on it: every run, trace and verdict is the same with the system's.
    //!
    //! - **Small blocks** (events' texts, scenarios, checker state), allocated and freed by
    //!   the million in a campaign, go to mimalloc: about half the instructions of glibc's
    //!   malloc for them (README, "Measured").
    //! - **Large blocks** (from [`LARGE_BYTES`]: a long run's trace, its queue) go to the
    //!   system allocator, which maps them on their own and grows them by remapping their
    //!   pages (`mremap`), where mimalloc copies a growing trace into fresh memory at every
    //!   doubling: twice the memory to fault in and clear, and the copy. Stop 35: the first
    //!   traced run of `sincro bench`'s token ring, 0.47–1.18e6 msg/s (median 0.60e6) with
    //!   mimalloc for every block, 0.90–1.35e6 (median 0.96e6) with glibc for every block.
    //! - No block asks for transparent huge pages. Stop 54 advised them for blocks from 8 MiB
    //!   (`MADV_HUGEPAGE`), when a long trace was hundreds of megabytes of 104-byte events; with
    //!   traces packed (stop 79) a first traced run faults in about 12,000 pages without the
    //!   advice and 7,000 with it, and under the kernel's usual `defrag = madvise` the advice
    //!   makes a fault wait while the kernel compacts memory for a huge page. Stop 82, six
    //!   alternating runs of `sincro bench --only trace+checker`: the token ring's first traced
    //!   run 3.4–5.1 M msg/s (0.004–0.060 s in the kernel) with the advice, 4.5–5.0 M
    //!   (0.004–0.016 s) without.

    use std::alloc::{GlobalAlloc, Layout, System};

    /// Blocks of this size or more go to the system allocator.
    pub const LARGE_BYTES: usize = 1 << 20;

    /// mimalloc below [`LARGE_BYTES`], the system allocator from it. A block's size (in its
    /// layout, at every call) says which allocator holds it; a `realloc` across the line moves
    /// the block from one to the other.
    pub struct Hybrid;

    fn large(size: usize) -> bool {
        size >= LARGE_BYTES
    }

    // SAFETY: each call is forwarded to the allocator that holds (or will hold) the block,
    // chosen by the block's size alone, so a block is always freed or grown by the allocator
    // that made it; a move across the line copies the smaller of both sizes and frees the old
    // block only once the new one exists.
    unsafe impl GlobalAlloc for Hybrid {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if large(layout.size()) {
                unsafe { System.alloc(layout) }
            } else {
                unsafe { mimalloc::MiMalloc.alloc(layout) }
            }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if large(layout.size()) {
                unsafe { System.alloc_zeroed(layout) }
            } else {
                unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
            }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            if large(layout.size()) {
                unsafe { System.dealloc(ptr, layout) }
            } else {
                unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
            }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            match (large(layout.size()), large(new_size)) {
                (true, true) => unsafe { System.realloc(ptr, layout, new_size) },
                (false, false) => unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) },
                _ => {
                    // SAFETY: the caller guarantees `new_size`, rounded up to the alignment,
                    // does not overflow `isize` (GlobalAlloc::realloc's contract).
                    let new_layout =
                        unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                    let new = unsafe { self.alloc(new_layout) };
                    if !new.is_null() {
                        let n = layout.size().min(new_size);
                        unsafe {
                            std::ptr::copy_nonoverlapping(ptr, new, n);
                            self.dealloc(ptr, layout);
                        }
                    }
                    new
                }
            }
        }
    }

    /// Makes glibc map every large block on its own (its threshold would otherwise rise to
    /// 32 MiB after the first large free, and a block below it would be copied as it grows).
    pub fn init() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only sets a tuning parameter of glibc's malloc; it is called once,
        // before any thread starts.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BYTES as libc::c_int);
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn blocks_keep_their_bytes_across_the_line_both_ways() {
            let h = Hybrid;
            // across the line both ways, and a large block grown (glibc remaps it) and shrunk
            for (from, to) in [
                (1000, LARGE_BYTES + 8),
                (LARGE_BYTES * 2, 64),
                (8 * LARGE_BYTES + 100, 32 * LARGE_BYTES),
                (32 * LARGE_BYTES, 8 * LARGE_BYTES + 8),
            ] {
                let layout = Layout::from_size_align(from, 16).unwrap();
                unsafe {
                    let p = h.alloc(layout);
                    assert!(!p.is_null());
                    for i in 0..from {
                        *p.add(i) = (i % 251) as u8;
                    }
                    let q = h.realloc(p, layout, to);
                    assert!(!q.is_null());
                    assert_eq!(q as usize % 16, 0, "the alignment is kept");
                    for i in 0..from.min(to) {
                        assert_eq!(*q.add(i), (i % 251) as u8, "byte {i} of {from} -> {to}");
                    }
                    h.dealloc(q, Layout::from_size_align(to, 16).unwrap());
                }
            }
        }
    }
}

#[cfg(feature = "fast-alloc")]
#[global_allocator]
static ALLOCATOR: alloc::Hybrid = alloc::Hybrid;

fn main() -> std::process::ExitCode {
    #[cfg(feature = "fast-alloc")]
    alloc::init();
    sincro::cli::main()
}
