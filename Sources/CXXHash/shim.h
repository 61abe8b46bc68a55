#ifndef BUNDLEIDX_CXXHASH_SHIM_H
#define BUNDLEIDX_CXXHASH_SHIM_H
// Included plainly: with XXH_INLINE_ALL the functions become macros that Swift cannot import.
#include <xxhash.h>
#endif
