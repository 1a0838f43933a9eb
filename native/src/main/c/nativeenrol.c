/*
 * Enrolment without Java on the starting thread. The JVM's ThreadStart event (threadevents.c) asks this file
 * first: the thread's name, its numeric suffix stripped, finds the rules' decision in a fixed table that Java
 * filled once per stripped name; a thread to count opens its group here, on itself (pid 0), from attributes
 * encoded once, and is counted from its first instruction. No Java runs, nothing is allocated but the JNI global
 * reference that hands the Thread to the sampler. Everything else (the registry's entry, the stats file's slot,
 * notices, the thread's CPUs) is the sampler's, which adopts new slots on its next tick. ThreadEnd reads the group
 * one last time into the slot and closes it, so descriptors never wait for a tick.
 *
 * A slot's state and generation share one atomic word: a thread that ends after the sampler let go of its slot
 * (a detach) finds another generation there and leaves the slot alone, whoever holds it now.
 *
 * A stop waits for the starts in flight, but not for ever: one that is still opening its group past the deadline
 * would hand it to a sampler that took in its last threads already. Once enrolment is stopped, the sampler's
 * adoption closes the list of new slots behind it (CLOSED), and a start that then finds it closed lets its own slot
 * go, its group closed, as if it had come after the stop: a detach gives back every descriptor in the end. Until it
 * is done, enrolment does not start again: that start reads the attributes, the budget and the decisions that a new
 * start would write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jnilookups.h"
#include "nativeenrol.h"
#include "rawcalls.h"

#define MAX_EVENTS 16
#define ATTR_SIZE 128
#define NAME_CHARS 96
#define DECISIONS 1024
#define PROBES 8
/* How long a stop waits for ThreadStart callbacks in flight: each takes microseconds. */
#define IN_FLIGHT_NANOS 10000000000LL /* NativeEnrolment.STOP_WAIT_SECONDS */
/* How long a start after a stop waits for them: one that found enrolment stopped leaves within nanoseconds, and one
 * still in flight then is one that the stop left past its deadline. */
#define START_WAIT_NANOS 10000000LL
/* The list of new slots once a stopped enrolment's sampler took in its last: no slot joins it any more. */
#define CLOSED -2

/* The Java rules' answers: as io.perfpin.nativeio.NativeEnrolment names them. */
enum { DECIDE_SKIP = 0, DECIDE_NATIVE = 1, DECIDE_JAVA = 2, DECIDE_CACHEABLE = 4 };
/* A slot's states, as NativeEnrolment names those Java sees. */
enum { FREE = 0, OPENING = 1, LIVE = 2, READING = 3, ENDING = 4, ENDED = 5, NOT_COUNTED = 6, FAILED = 7 };

struct slot {
    _Atomic uint64_t word; /* generation << 8 | state */
    int tid;
    int error;     /* NOT_COUNTED: 0 for perfpin's budget, else the kernel's errno; FAILED: the errno */
    int failed;    /* FAILED: the index of the event the kernel refused */
    int next_new;  /* the next slot in the list of new slots, -1 at its end */
    int64_t opened; /* CLOCK_MONOTONIC (System.nanoTime) before the group opened */
    jobject thread;
    int members;   /* LIVE: how many events its group opened, closed by whoever closes it */
    int fds[MAX_EVENTS];
    uint64_t final[3 + MAX_EVENTS];
};

struct decision {
    _Atomic int state; /* 0 empty, 1 being written, 2 ready */
    int length;
    int suffixed;
    int decision;
    jchar name[NAME_CHARS];
};

static _Atomic int enabled;
static _Atomic int in_flight;
static _Atomic int end_calls;
static int events;
static unsigned char attrs[MAX_EVENTS][ATTR_SIZE];
static _Atomic int64_t *budget_held;
static int64_t budget_limit;
static jmethodID decide_method;
static jfieldID name_field;
static cpu_set_t process_cpus;
static struct slot *slots;
static int slot_count;
static _Atomic unsigned cursor;
static _Atomic int new_head = -1;

/*
 * The descriptor table's mark (io.perfpin.counter.DescriptorTable): the first group whose last descriptor is numbered
 * table_mark or more wakes the sampler (LockSupport.unpark), once, saying which descriptor that was, and the sampler
 * grows the table before a starting thread meets it full, which would make that thread wait while the kernel grows
 * it. The sampler sets the mark again after each look. Its thread is held for the enrolment's life, under table_lock,
 * against a stop that lets it go.
 */
static _Atomic int table_mark = INT_MAX;
/* The descriptor that reached the mark, which the sampler takes: the lowest free one says less where some closed. */
static _Atomic int table_reached = -1;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(jobject) table_sampler;
/* An earlier enrolment's sampler, after a stop that timed out: a start still in flight may wake it. */
static jobject table_retired;
static jclass lock_support;
static jmethodID unpark_method;
/* The rest of a list that adopt took and had no room for, taken first by its next call: the sampler's alone. */
static int left_over = -1;
static struct decision decisions[DECISIONS];

/* The calling thread's slot while its group is open here; the slot it was enrolled in, whatever its state. */
static __thread int my_slot = -1;
static __thread int my_enrolment = -1;
static __thread uint64_t my_generation;
/* Whether this file dealt with the thread's start, so Java's hooks did not hear of it: 0 for a thread whose start it
 * never saw (one that ran before the agent), whose end Java's hooks must hear of as before. */
static __thread int my_start_in_c;

static uint64_t word_of(uint64_t generation, int state) {
    return generation << 8 | (uint64_t) state;
}

static int state_of(uint64_t word) {
    return (int) (word & 0xff);
}

static int budget_take(int n) {
    int64_t now = atomic_load(budget_held);
    do {
        if (now + n > budget_limit) {
            return 0;
        }
    } while (!atomic_compare_exchange_weak(budget_held, &now, now + n));
    return 1;
}

static void budget_give_back(int n) {
    atomic_fetch_sub(budget_held, n);
}

static void close_group(struct slot *s) {
    for (int i = s->members - 1; i >= 0; i--) {
        perfpin_close(s->fds[i]);
    }
    budget_give_back(s->members);
}

/* Adds a slot to the list of new slots for the sampler to adopt; 0 when the list is CLOSED: nobody adopts it. */
static int push_new(int index) {
    int head = atomic_load(&new_head);
    do {
        if (head == CLOSED) {
            return 0;
        }
        slots[index].next_new = head;
    } while (!atomic_compare_exchange_weak(&new_head, &head, index));
    return 1;
}

/* A free slot, now OPENING, with its generation; -1 when all are taken. */
static int claim_slot(uint64_t *generation) {
    for (int tries = 0; tries < slot_count; tries++) {
        int i = (int) (atomic_fetch_add(&cursor, 1) % (unsigned) slot_count);
        uint64_t word = atomic_load(&slots[i].word);
        if (state_of(word) == FREE
                && atomic_compare_exchange_strong(&slots[i].word, &word, word_of(word >> 8, OPENING))) {
            *generation = word >> 8;
            return i;
        }
    }
    return -1;
}

/* Opens the group on the calling thread into s: LIVE, NOT_COUNTED or FAILED, as the kernel and the budget say. */
static int open_group(struct slot *s) {
    s->failed = 0;
    if (!budget_take(events)) {
        s->error = 0;
        return NOT_COUNTED;
    }
    for (int i = 0; i < events; i++) {
        long fd = syscall(SYS_perf_event_open, (struct perf_event_attr *) attrs[i], 0, -1,
                          i == 0 ? -1 : s->fds[0], PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int error = errno;
            for (int k = i - 1; k >= 0; k--) {
                perfpin_close(s->fds[k]);
            }
            budget_give_back(events);
            s->error = error;
            s->failed = i;
            return error == EMFILE || error == ENFILE ? NOT_COUNTED : FAILED;
        }
        s->fds[i] = (int) fd;
    }
    s->members = events;
    ioctl(s->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    return LIVE;
}

/* Wakes the sampler, once for each mark it sets, when fd reaches the mark. */
static void table_check(JNIEnv *env, int fd) {
    int mark = atomic_load(&table_mark);
    if (fd >= mark && atomic_compare_exchange_strong(&table_mark, &mark, INT_MAX)) {
        atomic_store(&table_reached, fd);
        /* set before the mark, and let go of only once no start is in flight: still there */
        (*env)->CallStaticVoidMethod(env, lock_support, unpark_method, atomic_load(&table_sampler));
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
        }
    }
}

/* The thread's name without its numeric suffix, into key; its length, or -1 when too long to cache. */
static int stripped_name(JNIEnv *env, jobject thread, jchar *key, int *suffixed) {
    jstring name = (jstring) (*env)->GetObjectField(env, thread, name_field);
    if (name == NULL) {
        return -1;
    }
    jsize length = (*env)->GetStringLength(env, name);
    if (length > NAME_CHARS) {
        (*env)->DeleteLocalRef(env, name);
        return -1;
    }
    (*env)->GetStringRegion(env, name, 0, length, key);
    (*env)->DeleteLocalRef(env, name);
    int n = (int) length;
    while (n > 0 && key[n - 1] >= '0' && key[n - 1] <= '9') {
        n--;
    }
    *suffixed = n < (int) length;
    return n;
}

static unsigned hash_of(const jchar *key, int length, int suffixed) {
    unsigned h = 2166136261u ^ (unsigned) suffixed;
    for (int i = 0; i < length; i++) {
        h = (h ^ key[i]) * 16777619u;
    }
    return h;
}

static int cached(const jchar *key, int length, int suffixed, unsigned h) {
    for (int p = 0; p < PROBES; p++) {
        struct decision *d = &decisions[(h + (unsigned) p) & (DECISIONS - 1)];
        int state = atomic_load_explicit(&d->state, memory_order_acquire);
        if (state == 0) {
            return -1;
        }
        if (state == 2 && d->length == length && d->suffixed == suffixed
                && memcmp(d->name, key, (size_t) length * sizeof(jchar)) == 0) {
            return d->decision;
        }
    }
    return -1;
}

/* Keeps a decision; one that finds no empty entry among its probes is asked of Java again next time. */
static void cache(const jchar *key, int length, int suffixed, unsigned h, int decision) {
    for (int p = 0; p < PROBES; p++) {
        struct decision *d = &decisions[(h + (unsigned) p) & (DECISIONS - 1)];
        int empty = 0;
        if (atomic_compare_exchange_strong(&d->state, &empty, 1)) {
            d->length = length;
            d->suffixed = suffixed;
            d->decision = decision;
            memcpy(d->name, key, (size_t) length * sizeof(jchar));
            atomic_store_explicit(&d->state, 2, memory_order_release);
            return;
        }
    }
}

static int decide(JNIEnv *env, jclass hooks, jobject thread) {
    jchar key[NAME_CHARS];
    int suffixed = 0;
    int length = stripped_name(env, thread, key, &suffixed);
    unsigned h = length < 0 ? 0 : hash_of(key, length, suffixed);
    if (length >= 0) {
        int decision = cached(key, length, suffixed, h);
        if (decision >= 0) {
            return decision;
        }
    }
    jint answer = (*env)->CallStaticIntMethod(env, hooks, decide_method, thread);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return DECIDE_JAVA;
    }
    if (length >= 0 && (answer & DECIDE_CACHEABLE)) {
        cache(key, length, suffixed, h, answer & ~DECIDE_CACHEABLE);
    }
    return answer & ~DECIDE_CACHEABLE;
}

/*
 * A thread that starts with CPUs other than the process's inherited them from the thread that started it, which
 * perfpin (or the application) pinned: what it keeps or gets back is the Java rules' to say, as before.
 */
static int inherits_cpus(void) {
    cpu_set_t mine;
    return sched_getaffinity(0, sizeof(mine), &mine) != 0 || !CPU_EQUAL(&mine, &process_cpus);
}

int perfpin_enrol_starting(JNIEnv *env, jclass hooks, jobject thread) {
    my_slot = -1;
    my_enrolment = -1;
    my_start_in_c = 0;
    if (!atomic_load(&enabled)) {
        return 0;
    }
    atomic_fetch_add(&in_flight, 1);
    int handled = 0;
    if (atomic_load(&enabled) && !inherits_cpus()) {
        int decision = decide(env, hooks, thread);
        if (decision == DECIDE_SKIP) {
            my_start_in_c = 1;
            handled = 1;
        } else if (decision == DECIDE_NATIVE) {
            uint64_t generation;
            int i = claim_slot(&generation);
            if (i >= 0) {
                struct slot *s = &slots[i];
                s->thread = (*env)->NewGlobalRef(env, thread);
                if (s->thread == NULL) {
                    atomic_store(&s->word, word_of(generation + 1, FREE)); /* the Java path enrols it */
                } else {
                    struct timespec now;
                    clock_gettime(CLOCK_MONOTONIC, &now);
                    s->opened = (int64_t) now.tv_sec * 1000000000LL + now.tv_nsec;
                    s->tid = (int) syscall(SYS_gettid);
                    int state = open_group(s);
                    atomic_store(&s->word, word_of(generation, state));
                    if (state == LIVE) {
                        table_check(env, s->fds[events - 1]);
                    }
                    if (push_new(i)) {
                        my_enrolment = i;
                        my_generation = generation;
                        if (state == LIVE) {
                            my_slot = i;
                        }
                        my_start_in_c = 1;
                        handled = 1;
                    } else {
                        /* enrolment stopped, and its last adoption is over: nobody reads or releases this slot */
                        if (state == LIVE) {
                            close_group(s);
                        }
                        (*env)->DeleteGlobalRef(env, s->thread);
                        s->thread = NULL;
                        atomic_store(&s->word, word_of(generation + 1, FREE));
                    }
                }
            }
        }
    }
    atomic_fetch_sub(&in_flight, 1);
    return handled;
}

int perfpin_enrol_ended(void) {
    int slot = my_slot;
    int java = !my_start_in_c || atomic_load(&end_calls);
    my_slot = -1;
    my_enrolment = -1;
    if (slot >= 0) {
        struct slot *s = &slots[slot];
        uint64_t live = word_of(my_generation, LIVE);
        for (;;) {
            uint64_t word = live;
            if (atomic_compare_exchange_strong(&s->word, &word, word_of(my_generation, ENDING))) {
                s->final[0] = 0;
                if (perfpin_read(s->fds[0], s->final, sizeof(uint64_t) * (size_t) (3 + events)) < 0) {
                    s->final[0] = 0;
                }
                close_group(s);
                atomic_store(&s->word, word_of(my_generation, ENDED));
                break;
            }
            if (word != word_of(my_generation, READING)) {
                break; /* let go of by the sampler: another generation's now */
            }
            sched_yield(); /* the sampler reads it: one read(2) */
        }
    }
    return java;
}

/* Whether the calling thread was enrolled here and its slot is not let go of yet: adopted or about to be. */
jboolean JNICALL perfpin_enrol_enrolled(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    int slot = my_enrolment;
    if (slot < 0) {
        return JNI_FALSE;
    }
    uint64_t word = atomic_load(&slots[slot].word);
    return (word >> 8) == my_generation && state_of(word) != FREE ? JNI_TRUE : JNI_FALSE;
}

/* How many ThreadStart callbacks are in flight once they are all done, or at most nanos later. */
static int await_in_flight(int64_t nanos) {
    struct timespec start, now, pause = {0, 100000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    int left;
    while ((left = atomic_load(&in_flight)) > 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) > nanos) {
            break;
        }
        nanosleep(&pause, NULL);
    }
    return left;
}

jint JNICALL perfpin_enrol_start(JNIEnv *env, jclass cls, jclass hooks, jlongArray attr_addresses,
                                 jobject budget, jlong limit, jint capacity) {
    (void) cls;
    jsize n = (*env)->GetArrayLength(env, attr_addresses);
    _Atomic int64_t *held = (_Atomic int64_t *) (*env)->GetDirectBufferAddress(env, budget);
    if (n < 1 || n > MAX_EVENTS || held == NULL || ((uintptr_t) held & 7) != 0 || capacity < 1) {
        return -EINVAL;
    }
    if (!atomic_load(&enabled) && await_in_flight(START_WAIT_NANOS) > 0) {
        return -EBUSY; /* a start of the last enrolment, still in flight past its stop's deadline */
    }
    jmethodID method = perfpin_static_method(env, hooks, "decide", "(Ljava/lang/Thread;)I");
    jclass thread_class = method == NULL ? NULL : (*env)->FindClass(env, "java/lang/Thread");
    jfieldID field = thread_class == NULL ? NULL
            : (*env)->GetFieldID(env, thread_class, "name", "Ljava/lang/String;");
    if (method == NULL || field == NULL) {
        (*env)->ExceptionClear(env);
        return -ENOSYS;
    }
    /* Kept for good, as the hooks class is: a callback of a stopped enrolment may still be using it. */
    if ((*env)->NewGlobalRef(env, budget) == NULL) {
        return -ENOMEM;
    }
    if (slots == NULL) {
        slots = calloc((size_t) capacity, sizeof(struct slot));
        if (slots == NULL) {
            return -ENOMEM;
        }
        slot_count = capacity;
    }
    if (sched_getaffinity(0, sizeof(process_cpus), &process_cpus) != 0) {
        return -errno;
    }
    jlong addresses[MAX_EVENTS];
    (*env)->GetLongArrayRegion(env, attr_addresses, 0, n, addresses);
    for (int i = 0; i < n; i++) {
        memcpy(attrs[i], (const void *) (intptr_t) addresses[i], ATTR_SIZE);
    }
    /* the decisions of another attach's rules are not this one's */
    for (int i = 0; i < DECISIONS; i++) {
        atomic_store(&decisions[i].state, 0);
    }
    events = (int) n;
    budget_held = held;
    budget_limit = limit;
    decide_method = method;
    name_field = field;
    atomic_store(&end_calls, 0);
    atomic_store(&table_reached, -1); /* a stopped enrolment's, not this one's */
    /* the list a stopped enrolment's last adoption closed opens again */
    int closed = CLOSED;
    atomic_compare_exchange_strong(&new_head, &closed, -1);
    atomic_store(&enabled, 1);
    return 0;
}

/*
 * 0 once the ThreadStart callbacks in flight are done; else, at the deadline, how many are still in flight: each lets
 * go of what it opens itself, since the sampler's adoptions from now on close the list of new slots behind them.
 */
jint JNICALL perfpin_enrol_stop(JNIEnv *env, jclass cls) {
    (void) cls;
    pthread_mutex_lock(&table_lock);
    atomic_store(&enabled, 0);
    atomic_store(&table_mark, INT_MAX);
    pthread_mutex_unlock(&table_lock);
    int left = await_in_flight(IN_FLIGHT_NANOS);
    if (left > 0) {
        return left; /* the sampler's thread stays held: a start in flight may still wake it */
    }
    pthread_mutex_lock(&table_lock);
    jobject sampler = atomic_exchange(&table_sampler, NULL);
    if (sampler != NULL) {
        (*env)->DeleteGlobalRef(env, sampler);
    }
    if (table_retired != NULL) {
        (*env)->DeleteGlobalRef(env, table_retired);
        table_retired = NULL;
    }
    pthread_mutex_unlock(&table_lock);
    return 0;
}

/* The descriptor that reached the mark since the last call, or -1. */
jint JNICALL perfpin_enrol_table_reached(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    return atomic_exchange(&table_reached, -1);
}

/*
 * Sets the descriptor table's mark, and the sampler that it wakes: the first mark of an enrolment holds its thread.
 * Nothing once enrolment is stopped. 0, or -errno.
 */
jint JNICALL perfpin_enrol_table_mark(JNIEnv *env, jclass cls, jint mark, jobject sampler) {
    (void) cls;
    jint result = 0;
    pthread_mutex_lock(&table_lock);
    if (atomic_load(&enabled)) {
        if (lock_support == NULL) {
            jclass found = (*env)->FindClass(env, "java/util/concurrent/locks/LockSupport");
            jmethodID unpark = found == NULL ? NULL
                    : perfpin_static_method(env, found, "unpark", "(Ljava/lang/Thread;)V");
            jclass kept = unpark == NULL ? NULL : (jclass) (*env)->NewGlobalRef(env, found);
            (*env)->ExceptionClear(env); /* what a failed lookup threw: the calls below must not meet it */
            if (kept != NULL) {
                unpark_method = unpark;
                lock_support = kept;
            }
        }
        jobject held = atomic_load(&table_sampler);
        if (lock_support != NULL && (held == NULL || !(*env)->IsSameObject(env, held, sampler))) {
            /* another enrolment's, kept by a stop that timed out: set aside for the next stop that drains (one; a
             * second such stop before that leaves its sampler's reference behind) */
            if (held != NULL && table_retired == NULL) {
                table_retired = held;
            }
            atomic_store(&table_sampler, (*env)->NewGlobalRef(env, sampler));
        }
        if (atomic_load(&table_sampler) != NULL) {
            atomic_store(&table_mark, mark);
        } else {
            (*env)->ExceptionClear(env);
            result = -ENOSYS;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return result;
}

void JNICALL perfpin_enrol_end_calls(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    atomic_store(&end_calls, 1);
}

/*
 * Hands the new slots to the sampler: threads[k] the Thread (its global reference let go of), info[8k..8k+7] the
 * slot, TID, state, error (errno << 8 | the failed event's index), when its group opened (System.nanoTime), high
 * and low 32 bits, and the slot's generation, high and low 32 bits, which read and release take back. Those that
 * do not fit wait for the next call. Once enrolment is stopped, the list is closed as it is taken.
 */
jint JNICALL perfpin_enrol_adopt(JNIEnv *env, jclass cls, jobjectArray threads, jintArray info) {
    (void) cls;
    jsize room = (*env)->GetArrayLength(env, threads);
    if (slots == NULL || (*env)->GetArrayLength(env, info) < 8 * room) {
        return slots == NULL ? 0 : -EINVAL;
    }
    int taken = left_over;
    int took_list = 0;
    left_over = -1;
    jint row[8];
    int k = 0;
    for (;;) {
        if (taken < 0) {
            if (took_list) {
                break;
            }
            taken = atomic_exchange(&new_head, atomic_load(&enabled) ? -1 : CLOSED);
            took_list = 1;
            continue;
        }
        struct slot *s = &slots[taken];
        int next = s->next_new;
        if (k == room) {
            left_over = taken;
            break;
        }
        uint64_t word = atomic_load(&s->word);
        uint64_t generation = word >> 8;
        row[0] = taken;
        row[1] = s->tid;
        row[2] = state_of(word);
        row[3] = (s->error << 8) | (s->failed & 0xff);
        row[4] = (jint) (s->opened >> 32);
        row[5] = (jint) (uint32_t) s->opened;
        row[6] = (jint) (generation >> 32);
        row[7] = (jint) (uint32_t) generation;
        (*env)->SetObjectArrayElement(env, threads, k, s->thread);
        (*env)->SetIntArrayRegion(env, info, 8 * k, 8, row);
        (*env)->DeleteGlobalRef(env, s->thread);
        s->thread = NULL;
        k++;
        taken = next;
    }
    return k;
}

/*
 * Reads a slot's group into out: live from the kernel, or as its thread left it. Bytes read, or -errno: -EBADF for a
 * slot that is no longer of this generation, whose group is another thread's or none.
 */
jlong JNICALL perfpin_enrol_read(JNIEnv *env, jclass cls, jint slot, jlong generation, jlong out, jint bytes) {
    (void) env; (void) cls;
    struct slot *s = &slots[slot];
    size_t length = (size_t) bytes < sizeof(s->final) ? (size_t) bytes : sizeof(s->final);
    for (;;) {
        uint64_t word = atomic_load(&s->word);
        int state = state_of(word);
        if ((word >> 8) != (uint64_t) generation) {
            return -EBADF;
        }
        if (state == LIVE) {
            if (!atomic_compare_exchange_strong(&s->word, &word, word_of(word >> 8, READING))) {
                continue;
            }
            ssize_t n = perfpin_read(s->fds[0], (void *) (intptr_t) out, length);
            int error = errno;
            /* release, not a full fence: a thread that ends takes the slot back by compare-and-swap, which sees the
             * read done; a sequentially consistent store is an atomic exchange on x86, some 20 ns a read */
            atomic_store_explicit(&s->word, word, memory_order_release);
            return n < 0 ? -(jlong) error : (jlong) n;
        }
        if (state == ENDED) {
            memcpy((void *) (intptr_t) out, s->final, length);
            return s->final[0] == 0 ? -EIO : (jlong) length;
        }
        if (state != ENDING) {
            return -EBADF;
        }
        sched_yield(); /* its thread reads it a last time and closes it */
    }
}

/*
 * The sampler lets go of the slot it adopted as generation: its group closes if its thread still runs, and the slot
 * is free again. A slot of another generation is left alone: let go of already, it may be another thread's now,
 * whose group is not this caller's to close.
 */
void JNICALL perfpin_enrol_release(JNIEnv *env, jclass cls, jint slot, jlong generation) {
    (void) env; (void) cls;
    struct slot *s = &slots[slot];
    for (;;) {
        uint64_t word = atomic_load(&s->word);
        int state = state_of(word);
        if ((word >> 8) != (uint64_t) generation || state == FREE) {
            return;
        }
        if (state == LIVE) {
            if (!atomic_compare_exchange_strong(&s->word, &word, word_of(word >> 8, ENDING))) {
                continue;
            }
            close_group(s);
        } else if (state == ENDING || state == READING) {
            sched_yield(); /* its thread closes it, or another read(2) of it ends */
            continue;
        }
        atomic_store(&s->word, word_of((word >> 8) + 1, FREE));
        return;
    }
}
