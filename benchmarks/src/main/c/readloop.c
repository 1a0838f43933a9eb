/*
 * The floor for perfpin's counter reads: the same kernel group that CounterGroup opens for
 * task-clock, context-switches, page-faults and cpu-migrations (one group, leader disabled until all
 * members are in, read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), read with
 * read(2) in a tight loop, no JVM involved.
 *
 * Read as a JVM can at best: in a process of more than one thread, since a JVM always is, and by the system call
 * itself. With a second thread the kernel takes a reference on the file at each read (fdget), which a process of one
 * thread skips, and glibc's read() turns asynchronous cancellation on and off around the call; on this project's KVM
 * guest that was 434 ns a read with one thread, 493 with glibc's read() and two, 452 by syscall() and two. perfpin's
 * C library reads by syscall() too (native/src/main/c/rawcalls.h).
 *
 * Usage: readloop ITERATIONS SECONDS_EACH WARMUP_SECONDS
 * Prints one line per timed iteration: "ns-per-read X" (mean over that iteration's reads).
 * Exits 1, with the reason on stderr, when the kernel refuses the group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "groupevent.h"

#define EVENTS 4
/* Checked against the clock only every so many reads, so that the clock does not weigh on the figure. */
#define READS_PER_CHECK 1000

static const uint64_t CONFIGS[EVENTS] = {
    PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_PAGE_FAULTS,
    PERF_COUNT_SW_CPU_MIGRATIONS,
};
static const char *NAMES[EVENTS] = {"task-clock", "context-switches", "page-faults", "cpu-migrations"};

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + t.tv_nsec / 1e9;
}

/* Reads until `seconds` have passed; returns the mean ns per read, or -1 when a read fails. */
static double read_for(int leader, uint64_t *buffer, size_t size, double seconds) {
    double start = now_seconds();
    double end = start + seconds;
    long reads = 0;
    double now = start;
    while (now < end) {
        for (int i = 0; i < READS_PER_CHECK; i++) {
            if (syscall(SYS_read, leader, buffer, size) != (ssize_t) size) {
                return -1;
            }
        }
        reads += READS_PER_CHECK;
        now = now_seconds();
    }
    return (now - start) * 1e9 / reads;
}

/* The process's second thread, as a JVM has others: it waits until the process exits. */
static void *waiting(void *unused) {
    (void) unused;
    for (;;) {
        pause();
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: readloop ITERATIONS SECONDS_EACH WARMUP_SECONDS\n");
        return 2;
    }
    pthread_t second;
    if (pthread_create(&second, NULL, waiting, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        return 1;
    }
    int iterations = atoi(argv[1]);
    double seconds = atof(argv[2]);
    double warmup = atof(argv[3]);

    int fds[EVENTS];
    for (int i = 0; i < EVENTS; i++) {
        fds[i] = open_group_event(CONFIGS[i], 0, i == 0 ? -1 : fds[0]);
        if (fds[i] < 0) {
            fprintf(stderr, "perf_event_open(%s): %s\n", NAMES[i], strerror(errno));
            return 1;
        }
    }
    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);

    /* nr, time_enabled, time_running, then a value per member */
    uint64_t buffer[3 + EVENTS];
    if (read_for(fds[0], buffer, sizeof buffer, warmup) < 0) {
        fprintf(stderr, "read: %s\n", strerror(errno));
        return 1;
    }
    for (int it = 0; it < iterations; it++) {
        double ns = read_for(fds[0], buffer, sizeof buffer, seconds);
        if (ns < 0) {
            fprintf(stderr, "read: %s\n", strerror(errno));
            return 1;
        }
        printf("ns-per-read %.2f\n", ns);
        fflush(stdout);
    }
    return 0;
}
