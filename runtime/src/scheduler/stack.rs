//! How much stack the current thread has left: a thread that waits for a kernel may run it
//! itself only if the kernel's private memory fits its stack, as it fits a worker's.

use std::cell::Cell;

/// Stack kept free beyond what the kernel declares (its calls into builtins and the runtime's
/// own frames; the workers keep 7 MiB, but the kernel needs far less).
pub const INLINE_MARGIN: usize = 1 << 20;

thread_local! {
    /// The lowest address of this thread's stack; 0 until looked up, 1 if unknown.
    static LOW: Cell<usize> = const { Cell::new(0) };
}

/// Bytes between the current frame and the end of this thread's stack, if known.
pub fn left() -> Option<usize> {
    let low = LOW.with(|low| {
        if low.get() == 0 {
            low.set(lowest_address().unwrap_or(1));
        }
        low.get()
    });
    let here = &low as *const usize as usize;
    (low > 1).then(|| here.saturating_sub(low))
}

/// The lowest usable address of the current thread's stack (above its guard page).
fn lowest_address() -> Option<usize> {
    let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
    // SAFETY: `pthread_getattr_np` initializes `attr` for the calling thread when it returns
    // 0; it is read and destroyed only then.
    unsafe {
        if libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0;
        let mut guard = 0;
        let got = libc::pthread_attr_getstack(attr.as_ptr(), &mut addr, &mut size) == 0
            && libc::pthread_attr_getguardsize(attr.as_ptr(), &mut guard) == 0;
        libc::pthread_attr_destroy(attr.as_mut_ptr());
        got.then(|| addr as usize + guard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_knows_its_stack() {
        let size = 4 << 20;
        let left = std::thread::Builder::new()
            .stack_size(size)
            .spawn(left)
            .unwrap()
            .join()
            .unwrap()
            .expect("the stack of a thread is known");
        // Most of the stack is left at the start of the thread; never more than all of it.
        assert!(left > size / 2 && left <= size, "{left} of {size}");
    }

    #[test]
    fn deeper_frames_have_less_left() {
        fn deeper(depth: usize) -> usize {
            let pad = [0u8; 4096];
            std::hint::black_box(&pad);
            if depth == 0 {
                left().unwrap()
            } else {
                deeper(depth - 1)
            }
        }
        let top = left().unwrap();
        assert!(deeper(8) + 8 * 4096 <= top);
    }
}
