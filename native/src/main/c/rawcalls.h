#ifndef PERFPIN_RAWCALLS_H
#define PERFPIN_RAWCALLS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * read(2) and close(2) as plain system calls, for the paths that run per counter read or per thread. glibc's own
 * wrappers are cancellation points: in glibc 2.36, this project's, a process of more than one thread, as a JVM always
 * is, has each call turn asynchronous cancellation on and off around the system call, two atomic operations. On a KVM
 * guest that was 41 ns of a 490 ns read(2) of a four-event group. No thread that runs perfpin's code is cancelled with
 * pthread_cancel. Like the wrappers, both return -1 and set errno on failure.
 */
#if !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#error "define _GNU_SOURCE before any system header: syscall() needs it"
#endif
static inline ssize_t perfpin_read(int fd, void *buffer, size_t length) {
    return (ssize_t) syscall(SYS_read, fd, buffer, length);
}

static inline int perfpin_close(int fd) {
    return (int) syscall(SYS_close, fd);
}

/* fstatat(2), for stat and fstat (AT_EMPTY_PATH), whose glibc functions are of a version older glibcs lack
 * (glibcfloor.h). The kernel's struct stat of this system call is glibc's. */
static inline int perfpin_fstatat(int dir, const char *path, struct stat *status, int flags) {
    return (int) syscall(SYS_newfstatat, dir, path, status, flags);
}

#endif
