// Debian's liblmdb-dev; the benchmark reads the index directly for the raw mdb_get floor.
#include <lmdb.h>
