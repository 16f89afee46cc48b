// SwiftPM builds a C target from at least one source file; the hint itself is a
// static inline function in include/hints.h.
#include "hints.h"
