/*
 * The pin watchdog: a child process that gives the threads perfpin pinned in another process their CPUs
 * back when perfpin ends without doing it itself, SIGKILL included. perfpin writes a record into a pipe
 * before it pins a thread, and another once it has given the thread its CPUs back itself. The watchdog
 * holds the pins not given back. When the pipe reaches end of file, which the kernel brings about however
 * perfpin ends, it restores them and exits.
 *
 * It is forked from a running JVM. Only the forking thread lives on in the child, and a lock that any other
 * thread held at the fork (malloc's, stdio's, the JVM's) stays locked for good, so the child makes system
 * calls and nothing else: no malloc, no stdio, no JNI. It starts a session of its own, so that Ctrl-C, which
 * the terminal sends to perfpin's whole process group, cannot end it before perfpin has restored the pins
 * itself. It closes every descriptor it inherited but its end of the pipe, so that it keeps none of
 * perfpin's files, locks, counters or pipes open, before perfpin goes on.
 *
 * A thread gets its CPUs back only while it is still the thread perfpin pinned (/proc/P/task/T/stat shows
 * the start time recorded: TIDs are reused), its process still runs the program and as the users it did
 * when pinned (an exec keeps TIDs, start times and masks, and a setuid program runs as root: perfpin, often
 * root, must not write onto it), and its affinity is still the one perfpin set (a tool that pinned it since
 * then wins). Between those checks and sched_setaffinity the thread could end and its TID be taken again, or
 * the process exec: a window of a few system calls, which no interface of the kernel closes.
 *
 * It keeps perfpin's standard error, where perfpin's own messages go: a thread it leaves alone because its
 * process changed is said there in one line. A killed perfpin has no other place to say it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pinwatchdog.h"
#include "rawcalls.h"

/* 8192 CPUs: the most an x86-64 kernel supports (NR_CPUS with MAXSMP). */
#define MASK_WORDS 128
/* The file descriptors every process has: standard input, output and error. */
#define STANDARD_FDS 3
/* Field 22 of /proc/P/task/T/stat; the fields after the command's last ')' start with field 3. */
#define START_TIME_FIELD 22
#define FIRST_FIELD_AFTER_COMMAND 3
/* Record slots mapped at the first pin; the table doubles when full. */
#define FIRST_CAPACITY 64
/* Real, effective, saved and filesystem uid, then the same four gids: /proc/P/status's Uid: and Gid:. */
#define IDS 4
#define CREDENTIALS (2 * IDS)
/* "/proc/" pid "/task/" tid "/status" and its NUL, with room to spare. */
#define PATH_SIZE 64

enum record_kind { PINNING = 1, RELEASED = 2 };

/* How long starting a watchdog waits for it to take its name. */
#define NAMED_WAIT_MS 5000

/* What perfpin writes into the pipe; at most PIPE_BUF bytes, so that each record is written whole. */
struct record {
    int32_t kind;
    int32_t pid;
    int32_t tid;
    int32_t unused;
    uint64_t start_time; /* clock ticks from boot to the thread's start */
    uint64_t exe_device; /* the program /proc/P/exe leads to; inode 0 when perfpin could not tell */
    uint64_t exe_inode;
    int32_t credentials[CREDENTIALS];
    uint64_t before[MASK_WORDS];
    uint64_t pinned[MASK_WORDS];
};

_Static_assert(sizeof(struct record) <= PIPE_BUF, "a record must be written atomically");

/* The pins the watchdog holds: records of kind PINNING, one per thread. */
struct pins {
    struct record *at;
    size_t count;
    size_t capacity;
};

/* mmap and mremap, not malloc: they are bare system calls, and take no lock another thread may have held. */
static int grow(struct pins *pins) {
    size_t capacity = pins->capacity == 0 ? FIRST_CAPACITY : pins->capacity * 2;
    void *at = pins->capacity == 0
            ? mmap(NULL, capacity * sizeof(struct record), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            : mremap(pins->at, pins->capacity * sizeof(struct record), capacity * sizeof(struct record), MREMAP_MAYMOVE);
    if (at == MAP_FAILED) {
        return -1;
    }
    pins->at = at;
    pins->capacity = capacity;
    return 0;
}

/* A pin replaces the one held for the same thread; a release forgets it. Out of memory, a pin goes unheld. */
static void hold(struct pins *pins, const struct record *record) {
    size_t i = 0;
    while (i < pins->count && (pins->at[i].pid != record->pid || pins->at[i].tid != record->tid)) {
        i++;
    }
    if (record->kind == RELEASED) {
        if (i < pins->count) {
            pins->at[i] = pins->at[--pins->count];
        }
        return;
    }
    if (record->kind != PINNING) {
        return;
    }
    if (i == pins->count) {
        if (pins->count == pins->capacity && grow(pins) != 0) {
            return;
        }
        pins->count++;
    }
    pins->at[i] = *record;
}

/* 1 with a whole record; 0 at end of file or on an error, which both mean that perfpin is gone. */
static int read_record(int in, struct record *record) {
    size_t got = 0;
    while (got < sizeof(*record)) {
        ssize_t n = read(in, (char *) record + got, sizeof(*record) - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 0;
        }
        got += (size_t) n;
    }
    return 1;
}

static char *put_text(char *at, const char *text) {
    while (*text != '\0') {
        *at++ = *text++;
    }
    return at;
}

static char *put_number(char *at, uint32_t value) {
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char) ('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (n > 0) {
        *at++ = digits[--n];
    }
    return at;
}

/* /proc/pid/file, or /proc/pid/task/tid/file when tid is not 0. */
static void proc_path(char path[PATH_SIZE], int32_t pid, int32_t tid, const char *file) {
    char *at = put_number(put_text(path, "/proc/"), (uint32_t) pid);
    if (tid != 0) {
        at = put_number(put_text(at, "/task/"), (uint32_t) tid);
    }
    *put_text(put_text(at, "/"), file) = '\0';
}

/*
 * The first bytes of a regular file of /proc, up to size; their number, or -1 when it cannot be opened. Walked as
 * every path is: no link followed, and no read that could block (a FIFO) before fstat says it is a file.
 */
static ssize_t read_start(const char *path, char *into, size_t size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    struct stat status;
    if (perfpin_fstatat(fd, "", &status, AT_EMPTY_PATH) != 0 || !S_ISREG(status.st_mode)) {
        close(fd);
        return -1;
    }
    size_t length = 0;
    ssize_t n;
    while (length < size && (n = read(fd, into + length, size - length)) > 0) {
        length += (size_t) n;
    }
    close(fd);
    return (ssize_t) length;
}

/* Field 22 of /proc/pid/task/tid/stat into *out; -1 when the thread is gone or the file cannot be read. */
static int start_time(int32_t pid, int32_t tid, uint64_t *out) {
    char path[PATH_SIZE];
    proc_path(path, pid, tid, "stat");
    /* Field 22 ends within the first few hundred bytes; a line cut after it is still read right. */
    char stat[1024];
    ssize_t got = read_start(path, stat, sizeof(stat));
    if (got < 0) {
        return -1;
    }
    size_t length = (size_t) got;
    /* The command may hold spaces and ')': the fields begin after its last ')'. */
    size_t i = length;
    while (i > 0 && stat[i - 1] != ')') {
        i--;
    }
    if (i == 0) {
        return -1;
    }
    for (int field = FIRST_FIELD_AFTER_COMMAND - 1; i < length && field < START_TIME_FIELD; i++) {
        if (stat[i] == ' ') {
            field++;
        }
    }
    uint64_t value = 0;
    size_t first = i;
    for (; i < length && stat[i] >= '0' && stat[i] <= '9'; i++) {
        value = value * 10 + (uint64_t) (stat[i] - '0');
    }
    if (i == first) {
        return -1;
    }
    *out = value;
    return 0;
}

/* The four ids after "\nKey:" in a status file into out; -1 when they are not there whole. */
static int ids_after(const char *status, size_t length, const char *key, int32_t out[IDS]) {
    size_t key_length = strlen(key);
    for (size_t i = 0; i + key_length < length; i++) {
        if (status[i] != '\n' || memcmp(status + i + 1, key, key_length) != 0) {
            continue;
        }
        size_t at = i + 1 + key_length;
        for (int id = 0; id < IDS; id++) {
            while (at < length && (status[at] == '\t' || status[at] == ' ')) {
                at++;
            }
            uint64_t value = 0;
            size_t first = at;
            for (; at < length && status[at] >= '0' && status[at] <= '9'; at++) {
                value = value * 10 + (uint64_t) (status[at] - '0');
            }
            if (at == first || at == length || value > UINT32_MAX) {
                return -1;
            }
            out[id] = (int32_t) (uint32_t) value;
        }
        return 0;
    }
    return -1;
}

/* Why process pid is no longer as perfpin pinned it, in a few words; NULL while it is. */
static const char *process_changed(const struct record *pin) {
    char path[PATH_SIZE];
    if (pin->exe_inode != 0) {
        struct stat exe;
        proc_path(path, pin->pid, 0, "exe");
        if (perfpin_fstatat(AT_FDCWD, path, &exe, 0) != 0 || (uint64_t) exe.st_dev != pin->exe_device
            || (uint64_t) exe.st_ino != pin->exe_inode) {
            return "exec'd another program";
        }
    }
    /* Uid: and Gid: come within the first few hundred bytes, after Name: (at most 64 escaped bytes). */
    char status[2048];
    proc_path(path, pin->pid, 0, "status");
    ssize_t length = read_start(path, status, sizeof(status));
    int32_t now[CREDENTIALS];
    if (length < 0 || ids_after(status, (size_t) length, "Uid:", now) != 0
        || ids_after(status, (size_t) length, "Gid:", now + IDS) != 0
        || memcmp(now, pin->credentials, sizeof(now)) != 0) {
        return "runs as other users";
    }
    return NULL;
}

/* One line on perfpin's standard error: write(2) and nothing else, as everything here. */
static void say_left_alone(const struct record *pin, const char *why) {
    char line[256];
    char *at = put_number(put_text(line, "perfpin: left thread (tid "), (uint32_t) pin->tid);
    at = put_number(put_text(at, ") of process "), (uint32_t) pin->pid);
    at = put_text(put_text(put_text(at, " alone: the process "), why), " since perfpin pinned it\n");
    ssize_t n;
    do {
        n = write(STDERR_FILENO, line, (size_t) (at - line));
    } while (n < 0 && errno == EINTR);
}

static void restore(const struct record *pin) {
    uint64_t started;
    if (start_time(pin->pid, pin->tid, &started) != 0 || started != pin->start_time) {
        return;
    }
    const char *why = process_changed(pin);
    if (why != NULL) {
        say_left_alone(pin, why);
        return;
    }
    uint64_t now[MASK_WORDS] = {0};
    if (syscall(SYS_sched_getaffinity, (pid_t) pin->tid, sizeof(now), now) < 0
        || memcmp(now, pin->pinned, sizeof(now)) != 0) {
        return;
    }
    syscall(SYS_sched_setaffinity, (pid_t) pin->tid, sizeof(pin->before), pin->before);
}

/* The JVM's handlers would act for a JVM that does not exist in the child; its blocked signals likewise. */
static void default_signals(void) {
    struct sigaction default_action;
    memset(&default_action, 0, sizeof(default_action));
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) {
        sigaction(sig, &default_action, NULL); /* SIGKILL, SIGSTOP and libc's own signals refuse: fine */
    }
    /* Standard error may be a pipe whose reader left with perfpin: a line said there must not end the restores. */
    default_action.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &default_action, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The bytes of getdents64's records read at once: on the stack, since the forked child must not malloc. */
#define DIRENT_BYTES 4096

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/*
 * Kernels before 5.9 have no close_range: closes what /proc/self/fd lists in [first, last], not every number up to
 * the limit on descriptors, which the JVM raises to its hard limit (a million and more: seconds, while perfpin waits).
 * The listing goes by descriptor number, so closing those already listed loses none. Without /proc, every number.
 */
static void close_listed(unsigned first, unsigned last) {
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        struct rlimit limit;
        unsigned long end = last;
        if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= end) {
            end = limit.rlim_cur - 1;
        }
        for (unsigned long fd = first; fd <= end; fd++) {
            close((int) fd);
        }
        return;
    }
    char records[DIRENT_BYTES] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, dir, records, sizeof(records))) > 0) {
        for (long at = 0; at < n;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *) (records + at);
            at += entry->d_reclen;
            unsigned long fd = 0;
            const char *digit = entry->d_name;
            if (*digit < '0' || *digit > '9') {
                continue; /* . and .. */
            }
            while (*digit >= '0' && *digit <= '9') {
                fd = fd * 10 + (unsigned long) (*digit++ - '0');
            }
            if (fd >= first && fd <= last && fd != (unsigned long) dir) {
                close((int) fd);
            }
        }
    }
    close(dir);
}

static void close_range_of(unsigned first, unsigned last) {
    if (first > last) {
        return;
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, first, last, 0) == 0) {
        return;
    }
#endif
    close_listed(first, last);
}

/* fd, or a duplicate of it above the standard descriptors, which keep_only gives other files. */
static int above_standard(int fd) {
    if (fd >= STANDARD_FDS) {
        return fd;
    }
    int moved = fcntl(fd, F_DUPFD, STANDARD_FDS);
    if (moved < 0) {
        _exit(1);
    }
    return moved;
}

/*
 * Keeps the two pipes' ends (moved above the standard descriptors where they were not), /dev/null as 0 and 1, and
 * perfpin's standard error as 2 (/dev/null where perfpin had none); closes the rest.
 */
static void keep_only(int *in, int *named) {
    int has_error = *in != STDERR_FILENO && *named != STDERR_FILENO && fcntl(STDERR_FILENO, F_GETFD) >= 0;
    *in = above_standard(*in);
    *named = above_standard(*named);
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < STANDARD_FDS; fd++) {
        if (fd == STDERR_FILENO && has_error) {
            continue;
        }
        if (null < 0) {
            close(fd);
        } else if (null != fd) {
            dup2(null, fd);
        }
    }
    unsigned low = (unsigned) (*in < *named ? *in : *named);
    unsigned high = (unsigned) (*in < *named ? *named : *in);
    close_range_of(STANDARD_FDS, low - 1);
    close_range_of(low + 1, high - 1);
    close_range_of(high + 1, ~0U);
}

/* in and named are the child's ends of the two pipes, out and told perfpin's, closed first: whatever number they
 * have, even a standard descriptor's where perfpin's were closed, the child keeps none of them. */
__attribute__((noreturn)) static void watch(int in, int named, int out, int told) {
    close(out);
    close(told);
    setsid();
    prctl(PR_SET_NAME, (unsigned long) "perfpin-pins", 0, 0, 0);
    default_signals();
    keep_only(&in, &named);
    /* Told only now: until it has its name it looks like the JVM it was forked from, to perfpin list as to ps; and
     * until it has closed what it inherited, it holds the locks of perfpin's CPU reservations, which belong to a
     * file's open, not to a process, and would outlive their release in perfpin. */
    while (write(named, "n", 1) < 0 && errno == EINTR) {
    }
    close(named);
    struct pins pins = {0};
    struct record record;
    while (read_record(in, &record)) {
        hold(&pins, &record);
    }
    for (size_t i = 0; i < pins.count; i++) {
        restore(&pins.at[i]);
    }
    _exit(0);
}

jint JNICALL perfpin_watchdog_start(JNIEnv *env, jclass cls, jintArray pid_and_fd) {
    (void) cls;
    if ((*env)->GetArrayLength(env, pid_and_fd) < 2) {
        return -EINVAL;
    }
    int fds[2];
    int named[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return -errno;
    }
    if (pipe2(named, O_CLOEXEC) != 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        return -saved;
    }
    pid_t child = fork();
    if (child == 0) {
        watch(fds[0], named[1], fds[1], named[0]);
    }
    int saved = errno;
    close(fds[0]);
    close(named[1]);
    if (child < 0) {
        close(named[0]);
        close(fds[1]);
        return -saved;
    }
    /* Returns once the watchdog has its name: a byte, or end of file where it died first (the pipe then says so).
     * At most NAMED_WAIT_MS: a child that was stopped still watches once it runs, and perfpin must not hang on it. */
    struct pollfd named_in = {.fd = named[0], .events = POLLIN};
    while (poll(&named_in, 1, NAMED_WAIT_MS) < 0 && errno == EINTR) {
    }
    close(named[0]);
    jint out[2] = {(jint) child, (jint) fds[1]};
    (*env)->SetIntArrayRegion(env, pid_and_fd, 0, 2, out);
    return 0;
}

static jint send_record(int fd, const struct record *record) {
    ssize_t n;
    do {
        n = write(fd, record, sizeof(*record));
    } while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n == (ssize_t) sizeof(*record) ? 0 : -EIO;
}

static jint copy_mask(JNIEnv *env, jlongArray mask, uint64_t out[MASK_WORDS]) {
    jsize words = (*env)->GetArrayLength(env, mask);
    if (words > MASK_WORDS) {
        return -E2BIG;
    }
    (*env)->GetLongArrayRegion(env, mask, 0, words, (jlong *) out);
    return 0;
}

jint JNICALL perfpin_watchdog_pinning(JNIEnv *env, jclass cls, jint fd, jint pid, jint tid, jlong start_time,
                                      jlong exe_device, jlong exe_inode, jintArray credentials, jlongArray before,
                                      jlongArray pinned) {
    (void) cls;
    if ((*env)->GetArrayLength(env, credentials) != CREDENTIALS) {
        return -EINVAL;
    }
    struct record record;
    memset(&record, 0, sizeof(record));
    record.kind = PINNING;
    record.pid = pid;
    record.tid = tid;
    record.start_time = (uint64_t) start_time;
    record.exe_device = (uint64_t) exe_device;
    record.exe_inode = (uint64_t) exe_inode;
    (*env)->GetIntArrayRegion(env, credentials, 0, CREDENTIALS, (jint *) record.credentials);
    jint rc = copy_mask(env, before, record.before);
    if (rc == 0) {
        rc = copy_mask(env, pinned, record.pinned);
    }
    return rc == 0 ? send_record(fd, &record) : rc;
}

jint JNICALL perfpin_watchdog_released(JNIEnv *env, jclass cls, jint fd, jint pid, jint tid) {
    (void) env; (void) cls;
    struct record record;
    memset(&record, 0, sizeof(record));
    record.kind = RELEASED;
    record.pid = pid;
    record.tid = tid;
    return send_record(fd, &record);
}

jint JNICALL perfpin_watchdog_reap(JNIEnv *env, jclass cls, jint pid) {
    (void) env; (void) cls;
    int status;
    pid_t rc = waitpid((pid_t) pid, &status, WNOHANG);
    return rc < 0 ? -errno : (jint) rc;
}
