// SwiftPM builds a C target from at least one source file; everything the
// terminal layer needs is a static inline function in include/shim.h, and the
// library to link is named per platform in Package.swift.
#include "shim.h"
