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
    //! - **Huge blocks** (from [`HUGE_BYTES`]) are backed by transparent huge pages where the
    //!   kernel gives them on request: a first traced run faults its trace in 512 times less
    //!   often (stop 54: page faults of `sincro bench --only trace+checker` 76,000 → 8,000,
    //!   the broadcast's first run 2.0 → 2.9 M msg/s, median of six).

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
                let p = unsafe { System.alloc(layout) };
                advise_huge(p, layout.size());
                p
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
                (true, true) => {
                    let p = unsafe { System.realloc(ptr, layout, new_size) };
                    advise_huge(p, new_size);
                    p
                }
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

    /// Blocks of this size or more are backed by transparent huge pages where the kernel
    /// offers them on request (`madvise` mode).
    pub const HUGE_BYTES: usize = 8 << 20;

    /// Asks the kernel to back the block at `p` (`size` bytes) with 2 MiB pages, if it is at
    /// least [`HUGE_BYTES`]: a long run's trace is faulted in 512 times less often. glibc maps
    /// such a block on its own (see [`init`]), its header in the mapping's first page, so the
    /// advised range, the block rounded out to whole 4 KiB pages, is that whole mapping:
    /// advising part of it would split it in two, and `mremap` (how glibc grows the block
    /// without copying) fails on a range over two mappings. The advice is a hint; its failure
    /// changes nothing but speed.
    fn advise_huge(p: *mut u8, size: usize) {
        #[cfg(target_os = "linux")]
        if !p.is_null() && size >= HUGE_BYTES {
            const PAGE: usize = 4096;
            let start = (p as usize) & !(PAGE - 1);
            let end = (p as usize).saturating_add(size).next_multiple_of(PAGE);
            if end > start {
                // SAFETY: the range is the mapping glibc made for this block (its pages and
                // no others), and the advice changes neither its contents nor its mapping,
                // only how it is backed.
                unsafe {
                    libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (p, size);
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
            // across the line both ways, and a block advised to be backed by huge pages
            // grown (glibc remaps it: the advice must not split its mapping) and shrunk
            for (from, to) in [
                (1000, LARGE_BYTES + 8),
                (LARGE_BYTES * 2, 64),
                (HUGE_BYTES + 100, 4 * HUGE_BYTES),
                (4 * HUGE_BYTES, HUGE_BYTES + 8),
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
