/*
 * Counts of virtual threads (JDK 21 and later): the kernel sees only the carrier threads a virtual thread runs
 * on, so each carrier holds a counter group of its own, opened here on its first mount, and the group is read
 * (one read(2) of its leader, PERF_FORMAT_GROUP) when a selected virtual thread mounts and unmounts; the
 * difference goes to that virtual thread's totals and the carrier's counts stay as they are. The mount and
 * unmount are HotSpot's JVMTI extension events com.sun.hotspot.events.VirtualThreadMount and ...Unmount, the
 * first mount is VirtualThreadStart and the last unmount VirtualThreadEnd; all need can_support_virtual_threads,
 * which HotSpot lets a JVMTI environment add in the live phase, so a dynamically attached agent has it too.
 *
 * Java runs only once per virtual thread at its first mount (hooks.virtualSelected(Thread): is it counted, and in
 * which group?) and once at its end (hooks.virtualEnded(...): its final record); the answer is kept in the virtual
 * thread's JVMTI thread-local storage, so an unselected one costs one lookup per mount. While they run, the sampler
 * sums the totals of those of each group (perfpin_virtual_running), as of their last unmount. A mount on a carrier
 * without a group (beyond the budget's) adds its time to the events' enabled time only, as the kernel does for a group
 * the PMU had no room for: the record's coverage says what share of its time was counted (see mounted). The headers of JDK 17,
 * against which the library may be built, know none of this: the event numbers and the capability's bit are written
 * here.
 *
 * Stopping: each carrier is BUSY while a callback uses it or the state of the virtual thread on it; stop waits
 * for each carrier to be idle, closes its descriptors and frees every virtual thread's state, then gives the
 * JVMTI environment back, which drops the thread-local storage that pointed at them. It waits STOP_WAIT_NANOS in
 * all: a callback may run for long (the hook matches the name with the user's regular expression, which can take
 * seconds), and a detach must not hang on it. A carrier still BUSY then is left: its callback closes its group as it
 * gives it back (give_carrier), and since that callback may still use a virtual thread's state and the JVMTI
 * environment, stop frees no state and keeps the environment (its events off) rather than give them back under
 * it: a small leak, where the alternative is a crash. A virtual thread that ends while stop runs finds no carrier
 * to take: its state is marked ended instead (end_without_carrier), and stop makes its record, so that it has one, as
 * every counted virtual thread that ends, once.
 *
 * A carrier thread that exits (the scheduler lets an idle one go after its keep-alive) closes its group as it goes,
 * through a pthread key's destructor: a group of a thread that no longer runs counts nothing, and kept open it
 * would hold its descriptors and its place among the groups the budget allows until stop, so that the carriers
 * started after it went uncounted. Its struct is EXITED then, and the next new carrier takes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jvmti.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "glibcfloor.h"
#include "jnilookups.h"
#include "rawcalls.h"
#include "vthreads.h"

#define EVENT_VIRTUAL_THREAD_START 87
#define EVENT_VIRTUAL_THREAD_END 88
#define FIRST_EVENT 50 /* JVMTI_MIN_EVENT_TYPE_VAL: the callbacks are a table of pointers in event order */
/* can_support_virtual_threads: the bit after can_generate_sampled_object_alloc_events (JDK 21's jvmti.h) */
#define VIRTUAL_THREADS_CAPABILITY_BIT 44
#define MAX_EVENTS 16
#define MAX_CARRIERS 16
#define ATTR_STRIDE 128 /* PerfEventAttr.SIZE */
#define STOP_WAIT_NANOS 2000000000LL
#define MAX_LEFT 16 /* the TIDs of the carriers stop left that it tells */
#define MAX_RUNNING_GROUPS 16 /* the groups whose running members the walk sums: the stats file's */
#define WALK_CHUNK 1024       /* the states the walk sums under the lock at a time: some 30 us */

enum carrier_state { CARRIER_CLOSED, CARRIER_IDLE, CARRIER_BUSY, CARRIER_EXITED };

struct carrier {
    struct carrier *next;
    _Atomic int state;
    _Atomic int left;           /* stop gave up waiting for its callback, which closes the group as it returns */
    pid_t tid;
    int fds[MAX_EVENTS];
    int opened;                 /* how many of fds are open; fds[0] is the leader */
    int event_of[MAX_EVENTS];   /* the event index of each member, in the group's read order */
};

/*
 * Sized for the events counted, not for MAX_EVENTS: one is kept for every counted virtual thread alive, and there may
 * be a hundred thousand of them (with task-clock alone under 200 bytes each, not 640).
 */
struct vthread {
    struct vthread *prev, *next;
    struct carrier *mounted_on; /* null while unmounted */
    int counting;               /* at_mount holds this mount's read; else its carrier had no group to read */
    uint64_t uncounted_from;    /* when not counting: the carrier's CPU time at the mount */
    uint64_t *totals;           /* per event: raw, enabled, running; 3 * events, after at_mount */
    uint32_t opened;            /* the events some carrier counted for it */
    int recorded;               /* selected by name: its totals go to Java at its end */
    int group;                  /* when recorded: the group whose running members it is summed in (see the walk) */
    jweak thread;               /* when recorded: its Thread, for the record of one still running at stop */
    jobject ended;              /* under the lock: its Thread (a global reference) once it ended while stopping */
    int listed;                 /* under the lock: in the list, where stop takes it; else its end or stop has it */
    int events;                 /* event_count when it was made */
    jint mounts;
    jint carrier_count;
    jint carriers[MAX_CARRIERS];
    uint64_t at_mount[];        /* 3 + events: nr, time_enabled, time_running, values; then totals */
};

/* The storage of a virtual thread that is not counted: never freed, never written. */
static char unselected;
/* Where the walk of the running ones goes on after letting the lock go (perfpin_virtual_running); never recorded. */
static struct vthread walk_marker;
static _Atomic int walking;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the two lists, start and stop */
static struct carrier *carriers;
static struct vthread *vthreads;
static __thread struct carrier *this_carrier;
/* Holds each carrier thread's struct, so that its exit closes the carrier's group (carrier_exited). */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_made;

static jvmtiEnv *volatile jvmti;
static _Atomic int running;
static jclass hooks_class;
static jmethodID selected_method;
static jmethodID ended_method;
static struct perf_event_attr attrs[MAX_EVENTS];
static int event_count;
/* The groups the descriptor budget holds room for, those open, and the carriers left uncounted beyond them */
static int max_groups;
static _Atomic int groups_open;
static _Atomic int carriers_refused;
/* The states a start allows alive at once (Java's budget), those alive, and the virtual threads refused one since the
 * last ask: one is kept per counted virtual thread alive, and a million parked ones would take hundreds of MB. */
static int max_states;
static _Atomic int states_live;
static _Atomic int threads_refused;
/* The ends under way without a carrier (end_without_carrier), and whether stop frees the states: see stop_events */
static _Atomic int enders;
static _Atomic int freeing;

static void clear_exception(JNIEnv *env) {
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
    }
}

/*
 * Opens the calling thread's group; the events the kernel refuses are left out of it. The leader is opened disabled
 * and the whole group enabled once its members are in, as CounterGroup does: a member added to a group already
 * counting on the running thread was seen to miss the thread's page faults until it was next scheduled in.
 */
static void open_group(struct carrier *c) {
    c->opened = 0;
    if (__atomic_add_fetch(&groups_open, 1, __ATOMIC_ACQ_REL) > max_groups) {
        __atomic_sub_fetch(&groups_open, 1, __ATOMIC_ACQ_REL);
        __atomic_add_fetch(&carriers_refused, 1, __ATOMIC_ACQ_REL);
        return;
    }
    for (int i = 0; i < event_count; i++) {
        struct perf_event_attr attr = attrs[i];
        attr.disabled = c->opened == 0;
        int leader = c->opened == 0 ? -1 : c->fds[0];
        int fd = (int) syscall(SYS_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            c->fds[c->opened] = fd;
            c->event_of[c->opened] = i;
            c->opened++;
        }
    }
    if (c->opened > 0 && ioctl(c->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        for (int i = 0; i < c->opened; i++) {
            perfpin_close(c->fds[i]);
        }
        c->opened = 0;
    }
    if (c->opened == 0) {
        __atomic_sub_fetch(&groups_open, 1, __ATOMIC_ACQ_REL);
    }
}

/* Closes c's group, which its holder has BUSY; the group's place among those max_groups allows is free again. */
static void close_group(struct carrier *c) {
    for (int i = 0; i < c->opened; i++) {
        perfpin_close(c->fds[i]);
    }
    if (c->opened > 0) {
        __atomic_sub_fetch(&groups_open, 1, __ATOMIC_ACQ_REL);
    }
    c->opened = 0;
}

static void fold_mounted(struct carrier *c);

/*
 * IDLE again; or, once counting stopped, CLOSED: then it closes its group itself, since stop may have gone by it
 * while it was BUSY (left it after its wait), and a carrier stop left closes it even when a new start came since.
 * Sequentially consistent with stop's store of running, as take_carrier is: either stop finds it IDLE and closes it,
 * or this sees running off and does.
 */
static void give_carrier(struct carrier *c) {
    if (__atomic_load_n(&running, __ATOMIC_SEQ_CST) && !__atomic_load_n(&c->left, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&c->state, CARRIER_IDLE, __ATOMIC_SEQ_CST);
        return;
    }
    if (c->opened > 0) {
        fold_mounted(c);
    }
    close_group(c);
    __atomic_store_n(&c->left, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&c->state, CARRIER_CLOSED, __ATOMIC_SEQ_CST);
}

/* On a carrier thread as it exits: its group closes, and its struct waits, EXITED, for the next new carrier. */
static void carrier_exited(void *data) {
    struct carrier *c = data;
    for (;;) {
        int state = __atomic_load_n(&c->state, __ATOMIC_SEQ_CST);
        if (state != CARRIER_BUSY
                && __atomic_compare_exchange_n(&c->state, &state, CARRIER_BUSY, 0, __ATOMIC_SEQ_CST,
                                               __ATOMIC_SEQ_CST)) {
            break;
        }
        sched_yield(); /* stop closes it: a few close(2) */
    }
    close_group(c);
    __atomic_store_n(&c->left, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&c->state, CARRIER_EXITED, __ATOMIC_RELEASE);
}

static void make_exit_key(void) {
    exit_key_made = pthread_key_create(&exit_key, carrier_exited) == 0;
}

/* The struct of a carrier thread that exited, CLOSED now, for the calling thread; null when none is free. */
static struct carrier *exited_carrier(void) {
    pthread_mutex_lock(&lock);
    struct carrier *c = carriers;
    for (; c != NULL; c = c->next) {
        int exited = CARRIER_EXITED;
        if (__atomic_compare_exchange_n(&c->state, &exited, CARRIER_CLOSED, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return c;
}

/* The calling carrier, BUSY, with its group open; null when stopped or when it cannot be had. */
static struct carrier *take_carrier(void) {
    struct carrier *c = this_carrier;
    if (c == NULL) {
        pthread_once(&exit_key_once, make_exit_key);
        c = exited_carrier();
        if (c == NULL) {
            c = calloc(1, sizeof(*c));
            if (c == NULL) {
                return NULL;
            }
            pthread_mutex_lock(&lock);
            c->next = carriers;
            carriers = c;
            pthread_mutex_unlock(&lock);
        }
        c->tid = (pid_t) syscall(SYS_gettid);
        this_carrier = c;
        if (exit_key_made) {
            pthread_setspecific(exit_key, c);
        }
    }
    /* Sequentially consistent, as stop's store of running and its loads of each state: either stop sees this
     * carrier BUSY and waits, or this sees running off, never both miss (a group opened and left open). */
    int idle = CARRIER_IDLE;
    if (!__atomic_compare_exchange_n(&c->state, &idle, CARRIER_BUSY, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        int closed = CARRIER_CLOSED;
        if (!__atomic_compare_exchange_n(&c->state, &closed, CARRIER_BUSY, 0, __ATOMIC_SEQ_CST,
                                         __ATOMIC_SEQ_CST)) {
            return NULL;
        }
        if (__atomic_load_n(&running, __ATOMIC_SEQ_CST)) {
            open_group(c);
        }
    }
    if (!__atomic_load_n(&running, __ATOMIC_SEQ_CST)) {
        give_carrier(c);
        return NULL;
    }
    return c;
}

/* out = {nr, time_enabled, time_running, values...}; 0, or -1 when the group cannot be read. */
static int read_group(struct carrier *c, uint64_t *out) {
    if (c->opened == 0) {
        return -1;
    }
    ssize_t want = (ssize_t) ((3 + c->opened) * sizeof(uint64_t));
    return perfpin_read(c->fds[0], out, (size_t) want) == want ? 0 : -1;
}

static struct vthread *state_of(jvmtiEnv *env_jvmti, jthread thread) {
    void *data = NULL;
    if ((*env_jvmti)->GetThreadLocalStorage(env_jvmti, thread, &data) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    return data;
}

/* A state's memory back, and its place among the states a start allows. */
static void free_memory(struct vthread *v) {
    __atomic_sub_fetch(&states_live, 1, __ATOMIC_SEQ_CST);
    free(v);
}

/*
 * A state linked in the list that stop frees; null without memory, or once stopped: a callback that stop left (see
 * stop_events) would link one into a list that stop took already, or into the next start's.
 */
static struct vthread *new_state(void) {
    if (__atomic_add_fetch(&states_live, 1, __ATOMIC_SEQ_CST) > max_states) {
        __atomic_sub_fetch(&states_live, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&threads_refused, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    struct vthread *v = calloc(1, sizeof(*v) + (size_t) (3 + 4 * event_count) * sizeof(uint64_t));
    if (v == NULL) {
        __atomic_sub_fetch(&states_live, 1, __ATOMIC_SEQ_CST);
    } else {
        v->events = event_count;
        v->totals = v->at_mount + 3 + event_count;
        pthread_mutex_lock(&lock);
        if (!__atomic_load_n(&running, __ATOMIC_SEQ_CST)) {
            pthread_mutex_unlock(&lock);
            free_memory(v);
            return NULL;
        }
        v->listed = 1;
        v->next = vthreads;
        if (vthreads != NULL) {
            vthreads->prev = v;
        }
        vthreads = v;
        pthread_mutex_unlock(&lock);
    }
    return v;
}

/* Decides once whether the virtual thread is counted, and in which group, with the Java hook; null when it is not. */
static struct vthread *select_thread(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    jint group = (*env)->CallStaticIntMethod(env, hooks_class, selected_method, thread);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        group = -1;
    }
    int counted = group >= 0;
    /* the environment checked too: a callback that a stop left, still running after the next start, is its own */
    struct vthread *v = counted && env_jvmti == jvmti ? new_state() : NULL;
    if (v != NULL) {
        /* weak: a virtual thread that ends unseen (its end posted after stop) is still collected */
        v->thread = (*env)->NewWeakGlobalRef(env, thread);
        v->recorded = v->thread != NULL;
        v->group = group;
        clear_exception(env);
    }
    (*env_jvmti)->SetThreadLocalStorage(env_jvmti, thread, v != NULL ? (void *) v : (void *) &unselected);
    return v;
}

/* The CPU time of carrier thread c so far, read from any thread (its clock id, as pthread_getcpuclockid makes one). */
static uint64_t carrier_cpu_nanos(const struct carrier *c) {
    struct timespec t;
    clockid_t clock = (clockid_t) ((~(unsigned int) c->tid << 3) | 6); /* CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK */
    if (clock_gettime(clock, &t) != 0) {
        return 0;
    }
    return (uint64_t) t.tv_sec * 1000000000ULL + (uint64_t) t.tv_nsec;
}

/*
 * A mount: HotSpot posts VirtualThreadStart and then VirtualThreadMount for a virtual thread's first, so a mount on
 * the carrier it is mounted on already is that one. On a carrier without a group (beyond the groups the budget
 * allows) the mount is not counted: unmounted adds its time to the events' enabled time alone, as the kernel's
 * time_enabled, not time_running, grows for a group rotated off the PMU, so that the record's coverage says it.
 */
static void mounted(struct vthread *v, struct carrier *c) {
    if (v->mounted_on == c) {
        return;
    }
    v->mounted_on = c;
    v->mounts++;
    v->counting = read_group(c, v->at_mount) == 0;
    if (!v->counting) {
        v->uncounted_from = carrier_cpu_nanos(c);
    }
    for (int i = 0; i < v->carrier_count; i++) {
        if (v->carriers[i] == c->tid) {
            return;
        }
    }
    if (v->carrier_count < MAX_CARRIERS) {
        v->carriers[v->carrier_count++] = c->tid;
    }
}

/* Adds d to *total; relaxed atomics: the sampler's walk reads a running thread's totals while its callbacks write. */
static void add_total(uint64_t *total, uint64_t d) {
    __atomic_store_n(total, __atomic_load_n(total, __ATOMIC_RELAXED) + d, __ATOMIC_RELAXED);
}

/* Adds what c counted since v was mounted on it (now read from its group) to totals. */
static void add_since_mount(const struct vthread *v, const struct carrier *c, const uint64_t *now, uint64_t *totals,
                            uint32_t *opened) {
    for (int i = 0; i < c->opened; i++) {
        int event = c->event_of[i];
        __atomic_store_n(opened, *opened | 1u << event, __ATOMIC_RELAXED);
        add_total(&totals[3 * event], now[3 + i] - v->at_mount[3 + i]);
        add_total(&totals[3 * event + 1], now[1] - v->at_mount[1]);
        add_total(&totals[3 * event + 2], now[2] - v->at_mount[2]);
    }
}

/* The time of a mount that was not counted, at least 1 ns, added to each event's enabled time and not its running. */
static void add_uncounted(struct vthread *v, const struct carrier *c) {
    uint64_t now = carrier_cpu_nanos(c);
    uint64_t d = now > v->uncounted_from ? now - v->uncounted_from : 1;
    for (int event = 0; event < v->events; event++) {
        add_total(&v->totals[3 * event + 1], d);
    }
}

static void unmounted(struct vthread *v, struct carrier *c) {
    uint64_t now[3 + MAX_EVENTS];
    if (v->mounted_on != c) {
        v->mounted_on = NULL;
        return;
    }
    v->mounted_on = NULL;
    if (!v->counting) {
        add_uncounted(v, c);
    } else if (read_group(c, now) == 0 && now[0] == v->at_mount[0]) {
        add_since_mount(v, c, now, v->totals, &v->opened);
    }
}

static void on_mount_or_start(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    struct carrier *c = take_carrier();
    if (c == NULL) {
        return;
    }
    void *data = state_of(env_jvmti, thread);
    struct vthread *v = data == NULL ? select_thread(env_jvmti, env, thread)
            : data == &unselected ? NULL : data;
    if (v != NULL) {
        mounted(v, c);
    }
    give_carrier(c);
}

static void JNICALL on_start(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    on_mount_or_start(env_jvmti, env, thread);
}

static void JNICALL on_mount(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    on_mount_or_start(env_jvmti, env, thread);
}

static void JNICALL on_unmount(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    (void) env;
    struct carrier *c = take_carrier();
    if (c == NULL) {
        return;
    }
    void *data = state_of(env_jvmti, thread);
    if (data != NULL && data != &unselected) {
        unmounted(data, c);
    }
    give_carrier(c);
}

/* Takes v out of the list, the caller's then to free; false when stop took it first, whose it is then. */
static int unlink_thread(struct vthread *v) {
    pthread_mutex_lock(&lock);
    int listed = v->listed;
    if (listed) {
        if (v->prev != NULL) {
            v->prev->next = v->next;
        } else {
            vthreads = v->next;
        }
        if (v->next != NULL) {
            v->next->prev = v->prev;
        }
        v->prev = v->next = NULL;
        v->listed = 0;
    }
    pthread_mutex_unlock(&lock);
    return listed;
}

/* The first state of the list, taken out of it (stop's then); null when it is empty. */
static struct vthread *take_first(void) {
    pthread_mutex_lock(&lock);
    struct vthread *v = vthreads;
    if (v != NULL) {
        vthreads = v->next;
        if (vthreads != NULL) {
            vthreads->prev = NULL;
        }
        v->prev = v->next = NULL;
        v->listed = 0;
    }
    pthread_mutex_unlock(&lock);
    return v;
}

/*
 * v's totals to hooks.virtualEnded(Thread, long[] totals, int mounts, int[] carriers, boolean stillRunning): at its
 * end, or at stop for one still running then.
 */
static void report_totals(JNIEnv *env, jobject thread, const struct vthread *v, jboolean still_running) {
    jlongArray totals = (*env)->NewLongArray(env, 3 * event_count + 1);
    jintArray tids = (*env)->NewIntArray(env, v->carrier_count);
    if (totals != NULL && tids != NULL) {
        jlong values[3 * MAX_EVENTS + 1];
        for (int i = 0; i < 3 * event_count; i++) {
            values[i] = (jlong) v->totals[i];
        }
        values[3 * event_count] = (jlong) v->opened;
        (*env)->SetLongArrayRegion(env, totals, 0, 3 * event_count + 1, values);
        (*env)->SetIntArrayRegion(env, tids, 0, v->carrier_count, v->carriers);
        (*env)->CallStaticVoidMethod(env, hooks_class, ended_method, thread, totals, v->mounts, tids, still_running);
    }
    clear_exception(env);
    if (totals != NULL) {
        (*env)->DeleteLocalRef(env, totals);
    }
    if (tids != NULL) {
        (*env)->DeleteLocalRef(env, tids);
    }
}

static void free_state(JNIEnv *env, struct vthread *v) {
    if (v->thread != NULL) {
        (*env)->DeleteWeakGlobalRef(env, v->thread);
    }
    if (v->ended != NULL) {
        (*env)->DeleteGlobalRef(env, v->ended);
    }
    free_memory(v);
}

/*
 * The end of a virtual thread whose carrier cannot be had: stop has it or closed it. Its state is marked ended, with
 * a strong reference to its Thread (the weak one may be cleared before stop comes to it), and stop makes its record,
 * as an ended one's. Stop frees the states only once no such end is under way (enders), and one that comes after
 * that (freeing) leaves them alone: whether stop took the state already or not, its memory is still there.
 */
static void end_without_carrier(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    __atomic_add_fetch(&enders, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&freeing, __ATOMIC_SEQ_CST)) {
        void *data = state_of(env_jvmti, thread);
        struct vthread *v = data == &unselected ? NULL : data;
        jobject strong = v != NULL && v->recorded ? (*env)->NewGlobalRef(env, thread) : NULL;
        clear_exception(env);
        if (strong != NULL) {
            pthread_mutex_lock(&lock);
            if (v->ended == NULL) {
                v->ended = strong;
                strong = NULL;
            }
            pthread_mutex_unlock(&lock);
        }
        if (strong != NULL) {
            (*env)->DeleteGlobalRef(env, strong);
        }
    }
    __atomic_sub_fetch(&enders, 1, __ATOMIC_SEQ_CST);
}

/*
 * The last unmount: the totals go to Java, as report_totals says, while the carrier is held, so that stop, which
 * waits for it, returns only once the record is made: after that, the hooks drop what comes.
 */
static void JNICALL on_end(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    struct carrier *c = take_carrier();
    if (c == NULL) {
        end_without_carrier(env_jvmti, env, thread);
        return;
    }
    void *data = state_of(env_jvmti, thread);
    if (data == NULL || data == &unselected) {
        give_carrier(c);
        return;
    }
    struct vthread *v = data;
    unmounted(v, c);
    (*env_jvmti)->SetThreadLocalStorage(env_jvmti, thread, NULL);
    if (unlink_thread(v)) {
        /* Not recorded: followed for its @Counted methods only; other events: made before a stop and a start. */
        if (v->recorded && v->events == event_count) {
            report_totals(env, thread, v, JNI_FALSE);
        }
        free_state(env, v);
    }
    give_carrier(c);
}

/* The index of the extension event named id, or -1 when this JVM has none. */
static jint extension_index(jvmtiEnv *env_jvmti, const char *id) {
    jint count = 0;
    jvmtiExtensionEventInfo *events = NULL;
    if ((*env_jvmti)->GetExtensionEvents(env_jvmti, &count, &events) != JVMTI_ERROR_NONE) {
        return -1;
    }
    jint found = -1;
    for (jint i = 0; i < count; i++) {
        if (strcmp(events[i].id, id) == 0) {
            found = events[i].extension_event_index;
        }
    }
    /* the table only: its strings and parameter lists are small, allocated once per call, left to the JVM */
    (*env_jvmti)->Deallocate(env_jvmti, (unsigned char *) events);
    return found;
}

/* Sets (or clears, with null callbacks) both extension events; -ENOSYS when this JVM has not got them. */
static jint set_extensions(jvmtiEnv *env_jvmti, jboolean on) {
    jint mount = extension_index(env_jvmti, "com.sun.hotspot.events.VirtualThreadMount");
    jint unmount = extension_index(env_jvmti, "com.sun.hotspot.events.VirtualThreadUnmount");
    if (mount < 0 || unmount < 0) {
        return -ENOSYS;
    }
    jvmtiExtensionEvent mount_callback = on ? (jvmtiExtensionEvent) (void (*)(void)) on_mount : NULL;
    jvmtiExtensionEvent unmount_callback = on ? (jvmtiExtensionEvent) (void (*)(void)) on_unmount : NULL;
    if ((*env_jvmti)->SetExtensionEventCallback(env_jvmti, mount, mount_callback) != JVMTI_ERROR_NONE
            || (*env_jvmti)->SetExtensionEventCallback(env_jvmti, unmount, unmount_callback) != JVMTI_ERROR_NONE) {
        return -EIO;
    }
    /* A callback alone posts nothing: HotSpot posts an extension event only once it is enabled too, as its own
     * tests of these events do, with the extension's index as the event number. */
    jvmtiEventMode mode = on ? JVMTI_ENABLE : JVMTI_DISABLE;
    if ((*env_jvmti)->SetEventNotificationMode(env_jvmti, mode, (jvmtiEvent) mount, NULL) != JVMTI_ERROR_NONE
            || (*env_jvmti)->SetEventNotificationMode(env_jvmti, mode, (jvmtiEvent) unmount, NULL)
                    != JVMTI_ERROR_NONE) {
        return -EIO;
    }
    return 0;
}

/* A JVMTI environment of our own with the capability and the four events; -errno when this JVM cannot. */
static jint start_events(JNIEnv *env) {
    JavaVM *vm;
    jvmtiEnv *taken;
    if ((*env)->GetJavaVM(env, &vm) != JNI_OK || (*vm)->GetEnv(vm, (void **) &taken, JVMTI_VERSION_1_2) != JNI_OK) {
        return -ENOSYS;
    }
    jvmtiCapabilities capabilities;
    memset(&capabilities, 0, sizeof(capabilities));
    ((unsigned char *) &capabilities)[VIRTUAL_THREADS_CAPABILITY_BIT / 8] |= 1u << (VIRTUAL_THREADS_CAPABILITY_BIT % 8);
    if ((*taken)->AddCapabilities(taken, &capabilities) != JVMTI_ERROR_NONE) {
        (*taken)->DisposeEnvironment(taken);
        return -EOPNOTSUPP; /* JDK 17, or a JVM that does not let it be added now */
    }
    void *callbacks[EVENT_VIRTUAL_THREAD_END - FIRST_EVENT + 1] = {0};
    callbacks[EVENT_VIRTUAL_THREAD_START - FIRST_EVENT] = (void *) on_start;
    callbacks[EVENT_VIRTUAL_THREAD_END - FIRST_EVENT] = (void *) on_end;
    jint rc = 0;
    if ((*taken)->SetEventCallbacks(taken, (jvmtiEventCallbacks *) callbacks, (jint) sizeof(callbacks))
            != JVMTI_ERROR_NONE) {
        rc = -EIO;
    }
    if (rc == 0) {
        rc = set_extensions(taken, JNI_TRUE);
    }
    if (rc == 0 && ((*taken)->SetEventNotificationMode(taken, JVMTI_ENABLE, EVENT_VIRTUAL_THREAD_START, NULL)
                    != JVMTI_ERROR_NONE
            || (*taken)->SetEventNotificationMode(taken, JVMTI_ENABLE, EVENT_VIRTUAL_THREAD_END, NULL)
                    != JVMTI_ERROR_NONE)) {
        rc = -EIO;
    }
    if (rc != 0) {
        (*taken)->DisposeEnvironment(taken); /* its events and callbacks go with it */
        return rc;
    }
    jvmti = taken;
    return 0;
}

/* What the carrier counted for the virtual thread mounted on it now, if any, added to its totals: c is held. */
static void fold_mounted(struct carrier *c) {
    pthread_mutex_lock(&lock);
    for (struct vthread *v = vthreads; v != NULL; v = v->next) {
        if (v->mounted_on == c) {
            unmounted(v, c);
        }
    }
    pthread_mutex_unlock(&lock);
}

static int64_t now_nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t) t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * Stops the events, waits for each carrier's callback to finish (STOP_WAIT_NANOS in all), then closes and frees
 * everything. The virtual threads still running then get their record as those that end do, marked still running:
 * once every carrier is closed, no callback changes their totals any more. left gets the TIDs of the carriers whose
 * callback was still under way at the deadline (as many as it holds); *left_count how many there were.
 */
static jint stop_events(JNIEnv *env, jint *left, jint left_size, jint *left_count) {
    int64_t deadline = now_nanos() + STOP_WAIT_NANOS;
    *left_count = 0;
    __atomic_store_n(&running, 0, __ATOMIC_SEQ_CST);
    jvmtiEnv *env_jvmti = jvmti;
    /* VirtualThreadEnd stays on until every state is taken: a counted virtual thread that ends before is seen ending
     * (end_without_carrier), where unseen it would be neither alive nor marked, and without a record. */
    if (env_jvmti != NULL) {
        (*env_jvmti)->SetEventNotificationMode(env_jvmti, JVMTI_DISABLE, EVENT_VIRTUAL_THREAD_START, NULL);
        set_extensions(env_jvmti, JNI_FALSE);
    }
    /* Waited for without the lock, which a callback on a BUSY carrier may be taking. Carriers are only ever added
     * at the head, and one added now finds running off and opens nothing. */
    pthread_mutex_lock(&lock);
    struct carrier *first = carriers;
    pthread_mutex_unlock(&lock);
    for (struct carrier *c = first; c != NULL; c = c->next) {
        for (;;) {
            int idle = CARRIER_IDLE;
            if (__atomic_compare_exchange_n(&c->state, &idle, CARRIER_BUSY, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
                fold_mounted(c);
                close_group(c);
                __atomic_store_n(&c->state, CARRIER_CLOSED, __ATOMIC_RELEASE);
                break;
            }
            int state = __atomic_load_n(&c->state, __ATOMIC_SEQ_CST);
            if (state == CARRIER_CLOSED || state == CARRIER_EXITED) {
                break;
            }
            if (now_nanos() > deadline) {
                /* BUSY still: its callback closes the group as it returns, running off or left set (give_carrier).
                 * Set while it is BUSY, so that the callback's give_carrier sees it, even after a new start. */
                __atomic_store_n(&c->left, 1, __ATOMIC_SEQ_CST);
                if (__atomic_load_n(&c->state, __ATOMIC_SEQ_CST) != CARRIER_BUSY) {
                    __atomic_store_n(&c->left, 0, __ATOMIC_SEQ_CST);
                    continue; /* given back meanwhile: closed by its callback (running is off) */
                }
                if (*left_count < left_size) {
                    left[*left_count] = c->tid;
                }
                (*left_count)++;
                break;
            }
            sched_yield(); /* a callback reads its group: a few microseconds */
        }
    }
    /*
     * Java is called without the lock: a hook that started a virtual thread would take it. A state gets a record
     * when its thread ended while stopping (marked ended), or when it is still alive; none when it outlived its
     * thread otherwise (the JVM lost the thread-local storage that pointed at it and a second state was made, whose
     * record its thread's is). Each is taken out of the list before its thread's state is asked, and asked whether
     * it ended after: a thread that ends after it was taken ends alive at the ask (its end comes before it is
     * terminated, and marks it), so that it gets one record either way, never two, and none is lost.
     */
    struct vthread *taken = NULL;
    int taken_count = 0;
    for (struct vthread *v = take_first(); v != NULL; v = take_first()) {
        if (v == &walk_marker) {
            continue; /* the walk's, not a state: taken out, which the walk sees */
        }
        taken_count++;
        jobject thread = v->recorded ? (*env)->NewLocalRef(env, v->thread) : NULL;
        jint state = 0;
        int alive = thread != NULL && env_jvmti != NULL
                && (*env_jvmti)->GetThreadState(env_jvmti, thread, &state) == JVMTI_ERROR_NONE
                && (state & JVMTI_THREAD_STATE_ALIVE) != 0;
        pthread_mutex_lock(&lock);
        jobject ended = v->ended;
        pthread_mutex_unlock(&lock);
        if (ended != NULL) {
            report_totals(env, ended, v, JNI_FALSE);
        } else if (alive) {
            report_totals(env, thread, v, JNI_TRUE);
        }
        if (thread != NULL) {
            (*env)->DeleteLocalRef(env, thread);
        }
        v->next = taken;
        taken = v;
    }
    if (env_jvmti != NULL) {
        (*env_jvmti)->SetEventNotificationMode(env_jvmti, JVMTI_DISABLE, EVENT_VIRTUAL_THREAD_END, NULL);
    }
    __atomic_store_n(&freeing, 1, __ATOMIC_SEQ_CST);
    int ends_done = 0;
    while (!(ends_done = __atomic_load_n(&enders, __ATOMIC_SEQ_CST) == 0) && now_nanos() <= deadline) {
        sched_yield(); /* an end that began before: a thread-local storage lookup and a global reference */
    }
    jvmti = NULL; /* a start may follow: the environment of a callback still under way is not its */
    if (*left_count > 0 || !ends_done) {
        /* A callback still under way may use any state, and the environment: both are kept (see the top), but no
         * longer counted among the states alive, which the next start would otherwise find taken. */
        __atomic_sub_fetch(&states_live, taken_count, __ATOMIC_SEQ_CST);
        return __atomic_exchange_n(&carriers_refused, 0, __ATOMIC_ACQ_REL);
    }
    while (taken != NULL) {
        struct vthread *v = taken;
        taken = v->next;
        free_state(env, v);
    }
    if (env_jvmti != NULL) {
        (*env_jvmti)->DisposeEnvironment(env_jvmti);
    }
    return __atomic_exchange_n(&carriers_refused, 0, __ATOMIC_ACQ_REL);
}

/*
 * The calling virtual thread's totals so far, its current mount included, into out (as virtualEnded gets them); a
 * virtual thread not followed yet is from now on, without a final record: its @Counted methods count from here.
 */
jint JNICALL perfpin_virtual_read(JNIEnv *env, jclass cls, jlongArray out) {
    (void) cls;
    if (jvmti == NULL) {
        return -ENOSYS;
    }
    jsize size = 3 * event_count + 1;
    if ((*env)->GetArrayLength(env, out) < size) {
        return -EINVAL;
    }
    struct carrier *c = take_carrier();
    if (c == NULL) {
        return -EAGAIN;
    }
    /* Only now: a stop and the next start may have come since the check, and given back the environment taken before
     * it; a stop waits for this carrier until it is given back, and keeps the environment if it gives up. */
    jvmtiEnv *env_jvmti = jvmti;
    if (env_jvmti == NULL) {
        give_carrier(c);
        return -EAGAIN;
    }
    void *data = NULL;
    if ((*env_jvmti)->GetThreadLocalStorage(env_jvmti, NULL, &data) != JVMTI_ERROR_NONE) {
        give_carrier(c);
        return -EIO;
    }
    struct vthread *v = data;
    if (data == NULL || data == &unselected) {
        v = new_state();
        if (v == NULL || (*env_jvmti)->SetThreadLocalStorage(env_jvmti, NULL, v) != JVMTI_ERROR_NONE) {
            if (v != NULL && unlink_thread(v)) {
                free_memory(v); /* else a stop took it from the list, and frees it */
            }
            give_carrier(c);
            return -ENOMEM;
        }
        mounted(v, c);
    }
    uint64_t totals[3 * MAX_EVENTS] = {0};
    uint32_t opened = v->opened;
    memcpy(totals, v->totals, (size_t) (3 * v->events) * sizeof(uint64_t));
    uint64_t now[3 + MAX_EVENTS];
    if (v->mounted_on == c && v->counting && read_group(c, now) == 0) {
        add_since_mount(v, c, now, totals, &opened);
    }
    give_carrier(c);
    jlong values[3 * MAX_EVENTS + 1];
    for (int i = 0; i < 3 * event_count; i++) {
        values[i] = (jlong) totals[i];
    }
    values[3 * event_count] = (jlong) opened;
    (*env)->SetLongArrayRegion(env, out, 0, size, values);
    return 0;
}

/*
 * Per group, the running members (selected, not ended) and their totals summed, as of their last unmount: a walk of
 * the list, O(states), that allocates nothing. It holds the lock for WALK_CHUNK states at a time (100,000 states took
 * 3 ms in all, each a cache miss or two, which every start and end of a counted virtual thread would wait for), and
 * between two chunks leaves walk_marker in the list where it goes on: a state unlinked meanwhile is not summed, one
 * made meanwhile (at the head) only from the next walk.
 */
jint JNICALL perfpin_virtual_running(JNIEnv *env, jclass cls, jlongArray out) {
    (void) cls;
    if (jvmti == NULL) {
        return -ENOSYS;
    }
    int idle = 0;
    if (!__atomic_compare_exchange_n(&walking, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return -EBUSY; /* one walker: the sampler; the marker is its */
    }
    jint stride = 3 * event_count + 2;
    jint groups = (*env)->GetArrayLength(env, out) / stride;
    groups = groups > MAX_RUNNING_GROUPS ? MAX_RUNNING_GROUPS : groups;
    jlong sums[MAX_RUNNING_GROUPS * (3 * MAX_EVENTS + 2)];
    memset(sums, 0, sizeof(sums));
    pthread_mutex_lock(&lock);
    struct vthread *v = vthreads;
    for (;;) {
        for (int n = 0; v != NULL && n < WALK_CHUNK; v = v->next, n++) {
            if (!v->recorded || v->ended != NULL || v->group < 0 || v->group >= groups || v->events != event_count) {
                continue; /* walk_marker, which is never recorded, too */
            }
            jlong *sum = sums + v->group * stride;
            sum[0]++;
            for (int i = 0; i < 3 * event_count; i++) {
                sum[1 + i] += (jlong) __atomic_load_n(&v->totals[i], __ATOMIC_RELAXED);
            }
            sum[stride - 1] |= (jlong) __atomic_load_n(&v->opened, __ATOMIC_RELAXED);
        }
        if (v == NULL) {
            break;
        }
        /* the marker before v, the next to sum; others unlink their neighbours of it as of any state */
        walk_marker.next = v;
        walk_marker.prev = v->prev;
        if (v->prev != NULL) {
            v->prev->next = &walk_marker;
        } else {
            vthreads = &walk_marker;
        }
        v->prev = &walk_marker;
        walk_marker.listed = 1;
        pthread_mutex_unlock(&lock);
        pthread_mutex_lock(&lock);
        if (!walk_marker.listed) {
            break; /* stop took it, with the rest of the list */
        }
        v = walk_marker.next;
        if (walk_marker.prev != NULL) {
            walk_marker.prev->next = v;
        } else {
            vthreads = v;
        }
        if (v != NULL) {
            v->prev = walk_marker.prev;
        }
        walk_marker.prev = walk_marker.next = NULL;
        walk_marker.listed = 0;
    }
    pthread_mutex_unlock(&lock);
    __atomic_store_n(&walking, 0, __ATOMIC_RELEASE);
    (*env)->SetLongArrayRegion(env, out, 0, groups * stride, sums);
    return groups;
}

jint JNICALL perfpin_virtual_stop(JNIEnv *env, jclass cls, jintArray left) {
    (void) cls;
    jint tids[MAX_LEFT];
    jint size = left == NULL ? 0 : (*env)->GetArrayLength(env, left) - 1;
    size = size < 0 ? 0 : size > MAX_LEFT ? MAX_LEFT : size;
    jint count = 0;
    jint rc = stop_events(env, tids, size, &count);
    if (left != NULL && (*env)->GetArrayLength(env, left) > 0) {
        (*env)->SetIntArrayRegion(env, left, 0, 1, &count);
        (*env)->SetIntArrayRegion(env, left, 1, count < size ? count : size, tids);
    }
    return rc;
}

jint JNICALL perfpin_virtual_threads(JNIEnv *env, jclass cls, jclass hooks, jlong attr_address, jint count,
                                     jint groups, jint states) {
    (void) cls;
    if (hooks == NULL) {
        return -EINVAL;
    }
    if (jvmti != NULL) {
        return -EBUSY;
    }
    if (count < 1 || count > MAX_EVENTS || groups < 0 || states < 0) {
        return -EINVAL;
    }
    if (hooks_class == NULL) {
        /* kept for good once given, as threadevents.c does: a callback in flight while stopping still finds it */
        jmethodID selected = perfpin_static_method(env, hooks, "virtualSelected", "(Ljava/lang/Thread;)I");
        jmethodID ended = selected == NULL ? NULL
                : perfpin_static_method(env, hooks, "virtualEnded", "(Ljava/lang/Thread;[JI[IZ)V");
        if (ended == NULL) {
            return -EINVAL;
        }
        selected_method = selected;
        ended_method = ended;
        hooks_class = (jclass) (*env)->NewGlobalRef(env, hooks);
        if (hooks_class == NULL) {
            return -ENOMEM;
        }
    }
    /* Java writes each attribute in ATTR_STRIDE bytes, its size field saying how many of them the kernel reads */
    memset(attrs, 0, sizeof(attrs));
    size_t each = sizeof(struct perf_event_attr) < ATTR_STRIDE ? sizeof(struct perf_event_attr) : ATTR_STRIDE;
    for (int i = 0; i < count; i++) {
        memcpy(&attrs[i], (const char *) (intptr_t) attr_address + (size_t) i * ATTR_STRIDE, each);
    }
    event_count = count;
    max_groups = groups;
    max_states = states;
    __atomic_store_n(&carriers_refused, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&threads_refused, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&freeing, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
    jint rc = start_events(env);
    if (rc != 0) {
        __atomic_store_n(&running, 0, __ATOMIC_RELEASE);
    }
    return rc;
}

/* How many virtual threads were not counted for want of a state's room since the last ask; 0 when none. */
jint JNICALL perfpin_virtual_refused(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return __atomic_exchange_n(&threads_refused, 0, __ATOMIC_ACQ_REL);
}
