#ifndef BUNDLEIDX_CLMDB_SHIM_H
#define BUNDLEIDX_CLMDB_SHIM_H
#include <lmdb.h>
#endif
