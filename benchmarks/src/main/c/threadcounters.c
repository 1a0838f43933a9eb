/*
 * The kernel's floor for counting short-lived threads: what opening and closing a thread's counters costs with no
 * JVM involved. It churns threads as ThreadChurner does (start THREADS threads that do nothing, at most AT_ONCE
 * alive, joining the oldest before starting another), in rounds that alternate between plain threads and counted
 * ones. A counted thread opens the group CounterGroup opens for it (leader disabled until all members are in,
 * read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, then enabled), on itself before its work, reads it
 * once at its end and closes it. As perfpin's registry does, the run holds one disabled event of each kind open
 * throughout, so the kernel's code for them stays switched on (KeptSwitchedOn).
 *
 * A third kind of round measures the other way to count a thread from its first instruction: it hands its TID to
 * an opener thread, which opens the same group by TID (perf_event_open works from any thread), and waits until the
 * group is enabled. That is what moving the opening off the starting thread costs; the thread still closes its own.
 *
 * Usage: threadcounters THREADS AT_ONCE ROUNDS EVENT...   (EVENT: a software event name, as perf names it)
 * Prints one line per round: "plain-us-per-thread X", "counted-us-per-thread X" or "handed-us-per-thread X".
 * Exits 1, with the reason on stderr, when the kernel refuses an event.
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

#define MAX_EVENTS 16
#define MAX_AT_ONCE 64

static const struct {
    const char *name;
    uint64_t config;
} SOFTWARE[] = {
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
};

static uint64_t configs[MAX_EVENTS];
static int events;
static volatile int failed_errno;

/* Opens and enables thread tid's group into fds; returns 0, or -1 with failed_errno set and nothing left open. */
static int open_group(pid_t tid, int *fds) {
    for (int i = 0; i < events; i++) {
        fds[i] = open_group_event(configs[i], tid, i == 0 ? -1 : fds[0]);
        if (fds[i] < 0) {
            failed_errno = errno;
            for (int j = 0; j < i; j++) {
                close(fds[j]);
            }
            return -1;
        }
    }
    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    return 0;
}

/* Reads the group once, as a final count, and closes it. */
static void *read_and_close(int *fds) {
    uint64_t values[3 + MAX_EVENTS];
    if (read(fds[0], values, sizeof values) < 0) {
        failed_errno = errno;
    }
    for (int i = events - 1; i >= 0; i--) {
        close(fds[i]);
    }
    return NULL;
}

static void *counted(void *unused) {
    (void) unused;
    int fds[MAX_EVENTS];
    return open_group((pid_t) syscall(SYS_gettid), fds) == 0 ? read_and_close(fds) : NULL;
}

/* The opener's queue: the TIDs waiting for their groups, each request answered in place. */
struct request {
    pid_t tid;
    int fds[MAX_EVENTS];
    int done;
    int rc;
    struct request *next;
};
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t answered = PTHREAD_COND_INITIALIZER;
static struct request *queue;
static int opener_stops;

static void *opener(void *unused) {
    (void) unused;
    pthread_mutex_lock(&queue_lock);
    while (!opener_stops) {
        while (queue != NULL) {
            struct request *r = queue;
            queue = r->next;
            pthread_mutex_unlock(&queue_lock);
            r->rc = open_group(r->tid, r->fds);
            pthread_mutex_lock(&queue_lock);
            r->done = 1;
            pthread_cond_broadcast(&answered);
        }
        pthread_cond_wait(&queued, &queue_lock);
    }
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

static void *handed(void *unused) {
    (void) unused;
    struct request r = {.tid = (pid_t) syscall(SYS_gettid)};
    pthread_mutex_lock(&queue_lock);
    r.next = queue;
    queue = &r;
    pthread_cond_signal(&queued);
    while (!r.done) {
        pthread_cond_wait(&answered, &queue_lock);
    }
    pthread_mutex_unlock(&queue_lock);
    return r.rc == 0 ? read_and_close(r.fds) : NULL;
}

static void *plain(void *unused) {
    return unused;
}

static double now_micros(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Microseconds per thread started and joined, as ThreadChurner times it; -1 when a thread could not start. */
static double churn(int threads, int at_once, void *(*work)(void *)) {
    pthread_t crew[MAX_AT_ONCE];
    int unjoined = 0;
    int oldest = 0;
    double start = now_micros();
    for (int i = 0; i < threads; i++) {
        if (unjoined == at_once) {
            pthread_join(crew[oldest], NULL);
            oldest = (oldest + 1) % at_once;
            unjoined--;
        }
        if (pthread_create(&crew[(oldest + unjoined) % at_once], NULL, work, NULL) != 0) {
            return -1;
        }
        unjoined++;
    }
    while (unjoined > 0) {
        pthread_join(crew[oldest], NULL);
        oldest = (oldest + 1) % at_once;
        unjoined--;
    }
    return (now_micros() - start) / threads;
}

static int config_of(const char *name, uint64_t *config) {
    for (size_t i = 0; i < sizeof SOFTWARE / sizeof SOFTWARE[0]; i++) {
        if (strcmp(SOFTWARE[i].name, name) == 0) {
            *config = SOFTWARE[i].config;
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 5 || argc - 4 > MAX_EVENTS) {
        fprintf(stderr, "usage: threadcounters THREADS AT_ONCE ROUNDS EVENT... (at most %d events)\n", MAX_EVENTS);
        return 2;
    }
    int threads = atoi(argv[1]);
    int at_once = atoi(argv[2]);
    int rounds = atoi(argv[3]);
    if (threads < 1 || at_once < 1 || at_once > MAX_AT_ONCE || rounds < 1) {
        fprintf(stderr, "threadcounters: THREADS and ROUNDS must be positive, AT_ONCE 1 to %d\n", MAX_AT_ONCE);
        return 2;
    }
    events = argc - 4;
    int held[MAX_EVENTS];
    for (int i = 0; i < events; i++) {
        if (config_of(argv[4 + i], &configs[i]) != 0) {
            fprintf(stderr, "threadcounters: '%s' is not a software event this program knows\n", argv[4 + i]);
            return 2;
        }
        held[i] = open_group_event(configs[i], 0, -1);
        if (held[i] < 0) {
            fprintf(stderr, "perf_event_open(%s): %s\n", argv[4 + i], strerror(errno));
            return 1;
        }
    }
    pthread_t opener_thread;
    if (pthread_create(&opener_thread, NULL, opener, NULL) != 0) {
        fprintf(stderr, "threadcounters: cannot start the opener thread\n");
        return 1;
    }
    void *(*kinds[])(void *) = {plain, counted, handed};
    const char *names[] = {"plain", "counted", "handed"};
    /* One untimed round of each warms the allocator's thread stacks and the page cache. */
    for (int k = 0; k < 3; k++) {
        churn(threads, at_once, kinds[k]);
    }
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < 3; k++) {
            int kind = round % 2 == 0 ? k : 2 - k; /* ABC CBA ...: a drift falls on all three alike */
            double us = churn(threads, at_once, kinds[kind]);
            if (us < 0 || failed_errno != 0) {
                fprintf(stderr, "threadcounters: %s\n", us < 0 ? "pthread_create failed" : strerror(failed_errno));
                return 1;
            }
            printf("%s-us-per-thread %.2f\n", names[kind], us);
            fflush(stdout);
        }
    }
    pthread_mutex_lock(&queue_lock);
    opener_stops = 1;
    pthread_cond_signal(&queued);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(opener_thread, NULL);
    for (int i = 0; i < events; i++) {
        close(held[i]);
    }
    return 0;
}
