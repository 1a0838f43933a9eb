/*
 * Runs a command and says what it cost: wall time from just before fork to its exit, and the CPU time the kernel
 * charged it and its children (wait4's rusage), so that a benchmark sees the CPU a child JVM used on all its threads,
 * the JIT compiler's and the garbage collector's included, after it exited.
 *
 * Usage: runtimed REPORT COMMAND [ARG...]
 * Writes "wall-ns W user-us U system-us S" to REPORT once COMMAND has exited, and exits as it did (128 + signal
 * when a signal ended it); 127 when it could not be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long micros(struct timeval t) {
    return (long long) t.tv_sec * 1000000LL + t.tv_usec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: runtimed REPORT COMMAND [ARG...]\n");
        return 2;
    }
    long long start = now_ns();
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "runtimed: fork: %s\n", strerror(errno));
        return 127;
    }
    if (child == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "runtimed: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "runtimed: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    long long wall = now_ns() - start;
    /* never through a link, and private: the report lies in the benchmarks' scratch directory */
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *report = fd < 0 ? NULL : fdopen(fd, "w");
    if (report == NULL) {
        fprintf(stderr, "runtimed: %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    fprintf(report, "wall-ns %lld user-us %lld system-us %lld\n", wall, micros(usage.ru_utime),
            micros(usage.ru_stime));
    fclose(report);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
