/*
 * The TIDs of Java threads that already run, read from HotSpot's own structures, as async-profiler does: a
 * java.lang.Thread's eetop field holds its JavaThread, whose OSThread holds the TID. HotSpot publishes the
 * offsets of those fields in its gHotSpotVMStructs table (what the serviceability agent reads), so nothing
 * here depends on one JDK build: JDK 17 has JavaThread::_osthread, JDK 21 and later Thread::_osthread.
 *
 * A thread may end while we read. HotSpot clears eetop when a thread ends, before it frees the JavaThread, so
 * reading eetop again after the TID, and finding the same value, proves the JavaThread was still there while
 * the TID was read; a thread that changed is reported as not running. Until that second look, the JavaThread and
 * its OSThread may be freed under us (a JNI caller holds none of HotSpot's hazard pointers), their memory given
 * back to the kernel: both words are read with process_vm_readv on this process, which says EFAULT where a load
 * would crash the JVM, and what freed memory still mapped holds is rejected by the second look. A kernel or a
 * seccomp filter that refuses process_vm_readv (an older container runtime's default profile) leaves the TIDs to
 * the caller's other way (-ENOSYS), as a JVM that is not HotSpot does.
 *
 * No thread is suspended, no safepoint is needed, and the JVM's attach listener is left alone (on JDK 24 and later
 * it writes Thread.print from a safepoint, which a JVM reading its own dump would deadlock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "glibcfloor.h"
#include "javathreads.h"

static pthread_once_t offsets_once = PTHREAD_ONCE_INIT;
/* The caller's, for read_offsets, which pthread_once runs on the calling thread and without an argument. */
static __thread JNIEnv *reading_env;
static int64_t osthread_offset = -1;
static int64_t thread_id_offset = -1;
static jfieldID eetop;
static pid_t self;
static int offsets_known;

static void *jvm_symbol(const char *name) {
    void *symbol = dlsym(RTLD_DEFAULT, name);
    if (symbol == NULL) {
        /* a JVM embedded by a program that loaded libjvm.so without RTLD_GLOBAL */
        void *jvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        symbol = jvm == NULL ? NULL : dlsym(jvm, name);
    }
    return symbol;
}

static uint64_t table_value(const char *name) {
    uint64_t *value = jvm_symbol(name);
    return value == NULL ? 0 : *value;
}

/* size bytes of this process's memory at address into out; 0, or -1 where it is no longer mapped. */
static int read_memory(const void *address, void *out, size_t size) {
    struct iovec local = {out, size};
    struct iovec remote = {(void *) (uintptr_t) address, size};
    return process_vm_readv(self, &local, 1, &remote, 1, 0) == (ssize_t) size ? 0 : -1;
}

/* Looks the offsets up, once for every caller (pthread_once): offsets_known once they all are. */
static void read_offsets(void) {
    JNIEnv *env = reading_env;
    self = getpid();
    uint64_t probe = 0, copy = 1;
    if (read_memory(&probe, &copy, sizeof(copy)) != 0) {
        return; /* process_vm_readv refused */
    }
    char **table = jvm_symbol("gHotSpotVMStructs");
    uint64_t stride = table_value("gHotSpotVMStructEntryArrayStride");
    uint64_t type_at = table_value("gHotSpotVMStructEntryTypeNameOffset");
    uint64_t field_at = table_value("gHotSpotVMStructEntryFieldNameOffset");
    uint64_t offset_at = table_value("gHotSpotVMStructEntryOffsetOffset");
    if (table == NULL || *table == NULL || stride == 0) {
        return;
    }
    for (const char *entry = *table; ; entry += stride) {
        const char *type = *(const char *const *) (entry + type_at);
        const char *field = *(const char *const *) (entry + field_at);
        if (type == NULL) {
            break;
        }
        if (field == NULL) {
            continue;
        }
        int64_t offset = (int64_t) *(const uint64_t *) (entry + offset_at);
        if (strcmp(field, "_osthread") == 0 && (strcmp(type, "Thread") == 0 || strcmp(type, "JavaThread") == 0)) {
            osthread_offset = offset;
        } else if (strcmp(field, "_thread_id") == 0 && strcmp(type, "OSThread") == 0) {
            thread_id_offset = offset;
        }
    }
    jclass thread = (*env)->FindClass(env, "java/lang/Thread");
    if (thread != NULL) {
        eetop = (*env)->GetFieldID(env, thread, "eetop", "J");
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        eetop = NULL;
    }
    offsets_known = osthread_offset >= 0 && thread_id_offset >= 0 && eetop != NULL;
}

static jint tid_of(JNIEnv *env, jobject thread) {
    jlong java_thread = (*env)->GetLongField(env, thread, eetop);
    if (java_thread == 0) {
        return -1;
    }
    const char *os_thread = NULL;
    jint tid = -1;
    if (read_memory((const char *) (intptr_t) java_thread + osthread_offset, &os_thread, sizeof(os_thread)) != 0
            || os_thread == NULL || read_memory(os_thread + thread_id_offset, &tid, sizeof(tid)) != 0) {
        return -1;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the TID was read before eetop is read again */
    return (*env)->GetLongField(env, thread, eetop) == java_thread ? tid : -1;
}

jint JNICALL perfpin_java_thread_ids(JNIEnv *env, jclass cls, jobjectArray threads, jintArray tids) {
    (void) cls;
    reading_env = env;
    pthread_once(&offsets_once, read_offsets);
    if (!offsets_known) {
        return -ENOSYS;
    }
    jsize count = (*env)->GetArrayLength(env, threads);
    if ((*env)->GetArrayLength(env, tids) < count) {
        return -EINVAL;
    }
    jint found = 0;
    for (jsize i = 0; i < count; i++) {
        jobject thread = (*env)->GetObjectArrayElement(env, threads, i);
        jint tid = thread == NULL ? -1 : tid_of(env, thread);
        (*env)->SetIntArrayRegion(env, tids, i, 1, &tid);
        if (thread != NULL) {
            (*env)->DeleteLocalRef(env, thread);
        }
        found += tid > 0;
    }
    return found;
}
