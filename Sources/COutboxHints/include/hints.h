#ifndef OUTBOX_HINTS_H
#define OUTBOX_HINTS_H

// A hint to the processor: the memory at `p` will be read and written soon.
// Clang and GCC on every platform the project builds for; a hint, never a read,
// so any address is safe (docs/performance.md, "Fleets").
static inline void outbox_prefetch(const void *p) { __builtin_prefetch(p, 1, 3); }

#endif
