#ifndef BUNDLEIDX_LMDB_CALLS_H
#define BUNDLEIDX_LMDB_CALLS_H
// How deep the calling thread is in calls into LMDB, for the crash guard (MappedReadGuard): LMDB
// trusts its pages, and a damaged one can make it follow a pointer anywhere, NULL included (a
// node flagged F_DUPDATA in a database without duplicates: a write through a NULL sub-cursor).
// A fault while the count is not zero is a damaged index, wherever it lands. A thread-local
// count, read and written inline: the lookups call LMDB one to three times each.

extern _Thread_local int bundleidx_lmdb_depth;

static inline void bundleidx_lmdb_enter(void) { bundleidx_lmdb_depth += 1; }
static inline void bundleidx_lmdb_leave(void) { bundleidx_lmdb_depth -= 1; }
/// Read by the signal handler, on the faulting thread.
static inline int bundleidx_lmdb_inside(void) { return bundleidx_lmdb_depth; }

#endif
