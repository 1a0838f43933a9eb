/*
 * A software event opened as CounterGroup opens it: read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, a
 * leader disabled until its members are in (the caller enables the group), close-on-exec. Shared by the benchmarks'
 * C programs, so that each measures the group perfpin reads.
 */
#ifndef PERFPIN_BENCH_GROUPEVENT_H
#define PERFPIN_BENCH_GROUPEVENT_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Opens a software event for thread tid (0: the caller) in group_fd's group (-1: as a leader); returns -1 and errno. */
static int open_group_event(uint64_t config, pid_t tid, int group_fd) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = config;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = group_fd == -1;
    return (int) syscall(SYS_perf_event_open, &attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

#endif
