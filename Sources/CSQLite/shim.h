// SQLite for Swift: the header, plus what Swift cannot import (SQLITE_TRANSIENT
// is a cast macro).
#ifndef OUTBOX_CSQLITE_SHIM_H
#define OUTBOX_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLite 3.31 added the flag that refuses a database reached through a symbolic
// link; with an older library the store's own lstat checks still refuse one.
#ifndef SQLITE_OPEN_NOFOLLOW
#define SQLITE_OPEN_NOFOLLOW 0x01000000
#endif

static inline sqlite3_destructor_type outbox_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
