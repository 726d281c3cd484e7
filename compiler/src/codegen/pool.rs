//! The thread pool that compiles a program's functions in parallel.
//!
//! clift owns this pool instead of using rayon's global one: rayon builds its global pool
//! once, and if that first attempt cannot start threads (a process near its thread or
//! memory limit) every later use in the process fails, so every later build would fail
//! even after resources come back. Here a failed creation is retried on the next build,
//! and a build that finds no pool compiles on the calling thread, so it still succeeds.

use std::sync::{Arc, Mutex, PoisonError};

use rayon::{ThreadPool, ThreadPoolBuildError};

/// A pool created on first use by `make`, and again on a later use while creation fails.
pub(crate) struct LazyPool<F> {
    make: F,
    pool: Mutex<Option<Arc<ThreadPool>>>,
}

impl<F: Fn() -> Result<ThreadPool, ThreadPoolBuildError>> LazyPool<F> {
    pub(crate) const fn new(make: F) -> LazyPool<F> {
        LazyPool {
            make,
            pool: Mutex::new(None),
        }
    }

    /// The pool, creating it if no earlier call could; `None` while it cannot be created.
    pub(crate) fn get(&self) -> Option<Arc<ThreadPool>> {
        // A panic elsewhere while the lock was held leaves the slot valid (it is written in
        // one assignment), so a poisoned lock is still usable.
        let mut slot = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = (self.make)().ok().map(Arc::new);
        }
        slot.clone()
    }
}

type MakePool = fn() -> Result<ThreadPool, ThreadPoolBuildError>;

static BUILD_POOL: LazyPool<MakePool> = LazyPool::new(make_build_pool);

/// One thread per core (rayon's default count), named so they show up in a debugger.
fn make_build_pool() -> Result<ThreadPool, ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("clift-build-{i}"))
        .build()
}

/// The build pool, or `None` where threads cannot be started now (build sequentially).
pub(crate) fn build_pool() -> Option<Arc<ThreadPool>> {
    BUILD_POOL.get()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_failed_creation_is_retried_on_the_next_use_and_then_kept() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        // Fails the first two attempts the way rayon does when no thread can start.
        fn flaky() -> Result<ThreadPool, ThreadPoolBuildError> {
            let call = CALLS.fetch_add(1, Ordering::SeqCst);
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .spawn_handler(move |thread| {
                    if call < 2 {
                        Err(std::io::Error::other("no threads now"))
                    } else {
                        std::thread::Builder::new().spawn(|| thread.run())?;
                        Ok(())
                    }
                })
                .build()
        }
        let pool = LazyPool::new(flaky as MakePool);
        assert!(pool.get().is_none());
        assert!(pool.get().is_none());
        let first = pool.get().expect("the third attempt creates the pool");
        assert_eq!(first.current_num_threads(), 1);
        assert_eq!(first.install(|| 6 * 7), 42);
        let again = pool.get().expect("the pool is kept");
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn the_build_pool_runs_work() {
        let pool = build_pool().expect("threads can start in tests");
        assert_eq!(pool.install(|| (1..=10).sum::<i32>()), 55);
    }
}

#[cfg(test)]
mod compile_tests {
    use super::super::{Deferred, compile_queue};
    use cranelift_codegen::ir::{Function, InstBuilder, Signature, UserFuncName};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// Queued functions that return nothing, ready for `compile_queue`.
    fn queue(n: u32, isa: &dyn cranelift_codegen::isa::TargetIsa) -> Vec<Deferred> {
        (0..n)
            .map(|i| {
                let mut func = Function::with_name_signature(
                    UserFuncName::default(),
                    Signature::new(CallConv::SystemV),
                );
                let mut fctx = FunctionBuilderContext::new();
                let mut b = FunctionBuilder::new(&mut func, &mut fctx);
                let block = b.create_block();
                b.switch_to_block(block);
                b.ins().return_(&[]);
                b.seal_all_blocks();
                b.finalize(isa.frontend_config());
                Deferred {
                    id: cranelift_module::FuncId::from_u32(i),
                    what: format!("f{i}"),
                    ctx: cranelift_codegen::Context::for_function(func),
                    max_object_size: 0,
                }
            })
            .collect()
    }

    #[test]
    fn without_a_pool_functions_compile_on_the_calling_thread() {
        let isa = crate::jit::host_isa().unwrap();
        let lowering = crate::jit::lowering_isa().unwrap();
        let mut q = queue(3, &*isa);
        compile_queue(&mut q, (&*isa, &*lowering), true, None).unwrap();
        assert!(q.iter().all(|d| d.ctx.compiled_code().is_some()));
        let pool = super::build_pool().unwrap();
        let mut q = queue(3, &*isa);
        compile_queue(&mut q, (&*isa, &*lowering), true, Some(&pool)).unwrap();
        assert!(q.iter().all(|d| d.ctx.compiled_code().is_some()));
    }
}
