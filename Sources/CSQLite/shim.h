// SQLite for Swift: the header, plus what Swift cannot import (SQLITE_TRANSIENT
// is a cast macro).
#ifndef OUTBOX_CSQLITE_SHIM_H
#define OUTBOX_CSQLITE_SHIM_H
#include <sqlite3.h>

static inline sqlite3_destructor_type outbox_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
