/*
 * The TIDs of Java threads that already run, read from HotSpot's own structures, as async-profiler does: a
 * java.lang.Thread's eetop field holds its JavaThread, whose OSThread holds the TID. HotSpot publishes the
 * offsets of those fields in its gHotSpotVMStructs table (what the serviceability agent reads), so nothing
 * here depends on one JDK build: JDK 17 has JavaThread::_osthread, JDK 21 and later Thread::_osthread.
 *
 * A thread may end while we read. HotSpot clears eetop when a thread ends, before it frees the JavaThread, so
 * reading eetop again after the TID, and finding the same value, proves the JavaThread was still there while
 * the TID was read; a thread that changed is reported as not running. No thread is suspended, no safepoint is
 * needed, and the JVM's attach listener is left alone (on JDK 24 and later it writes Thread.print from a
 * safepoint, which a JVM reading its own dump would deadlock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "glibcfloor.h"
#include "javathreads.h"

static int offsets_read;
static int64_t osthread_offset = -1;
static int64_t thread_id_offset = -1;
static jfieldID eetop;

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

/* Looks the two offsets up once; returns 0 when both are known. */
static int read_offsets(JNIEnv *env) {
    if (offsets_read) {
        return osthread_offset >= 0 && thread_id_offset >= 0 && eetop != NULL ? 0 : -1;
    }
    offsets_read = 1;
    char **table = jvm_symbol("gHotSpotVMStructs");
    uint64_t stride = table_value("gHotSpotVMStructEntryArrayStride");
    uint64_t type_at = table_value("gHotSpotVMStructEntryTypeNameOffset");
    uint64_t field_at = table_value("gHotSpotVMStructEntryFieldNameOffset");
    uint64_t offset_at = table_value("gHotSpotVMStructEntryOffsetOffset");
    if (table == NULL || *table == NULL || stride == 0) {
        return -1;
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
    return osthread_offset >= 0 && thread_id_offset >= 0 && eetop != NULL ? 0 : -1;
}

static jint tid_of(JNIEnv *env, jobject thread) {
    jlong java_thread = (*env)->GetLongField(env, thread, eetop);
    if (java_thread == 0) {
        return -1;
    }
    const char *os_thread = *(const char *const volatile *) ((const char *) (intptr_t) java_thread + osthread_offset);
    jint tid = os_thread == NULL ? -1 : *(const volatile jint *) (os_thread + thread_id_offset);
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the TID was read before eetop is read again */
    return (*env)->GetLongField(env, thread, eetop) == java_thread ? tid : -1;
}

jint JNICALL perfpin_java_thread_ids(JNIEnv *env, jclass cls, jobjectArray threads, jintArray tids) {
    (void) cls;
    if (read_offsets(env) != 0) {
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
