#ifndef BUNDLEIDX_CLINUXDIRENTS_SHIM_H
#define BUNDLEIDX_CLINUXDIRENTS_SHIM_H
// Linux's getdents64(2), which Swift's Glibc module does not export (glibc declares its wrapper
// only under _GNU_SOURCE): DirectoryReader lists folders with it into a buffer of its own.
#include <sys/syscall.h>
#include <unistd.h>

static inline long bundleidx_getdents64(int fd, void *buffer, unsigned long length) {
    return syscall(SYS_getdents64, fd, buffer, length);
}
#endif
