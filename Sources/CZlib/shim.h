// zlib for `outbox serve`'s request bodies (gzip, deflate). Debian: zlib1g-dev;
// macOS: the SDK's <zlib.h> and libz.
#include <zlib.h>
