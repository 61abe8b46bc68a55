#include "lmdb_calls.h"

_Thread_local int bundleidx_lmdb_depth = 0;
