/*
 * perfpin's JNI library: the few system calls Java cannot make.
 *
 * Every function returns a non-negative result or -errno; nothing here aborts, throws or allocates on
 * the Java heap. The natives are bound with RegisterNatives in JNI_OnLoad against the class named by the
 * system property "io.perfpin.jni.bindingClass", which the Java side sets to its own (possibly relocated)
 * class name before loading us, so shading the Java classes into another package cannot break binding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bootclasses.h"
#include "javathreads.h"
#include "mappings.h"
#include "nativeenrol.h"
#include "pinwatchdog.h"
#include "rawcalls.h"
#include "selfread.h"
#include "threadevents.h"
#include "vthreads.h"

#define BINDING_CLASS_PROPERTY "io.perfpin.jni.bindingClass"

static jlong result_or_errno(long rc) {
    return rc < 0 ? -(jlong) errno : (jlong) rc;
}

static jlong JNICALL pp_syscall(JNIEnv *env, jclass cls, jlong nr, jlong a1, jlong a2, jlong a3, jlong a4,
                                jlong a5) {
    (void) env; (void) cls;
    return result_or_errno(syscall((long) nr, (long) a1, (long) a2, (long) a3, (long) a4, (long) a5));
}

static jint JNICALL pp_gettid(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    return (jint) syscall(SYS_gettid);
}

/*
 * sched_setaffinity or sched_getaffinity on a Java long[]: the kernel's cpu mask is an array of unsigned
 * long, which on LP64 is exactly a Java long[], so the array is passed in place. release_mode is JNI_ABORT
 * when the kernel only reads the mask, 0 when it writes it.
 */
static jint affinity_call(JNIEnv *env, long nr, jint tid, jlongArray mask, jint release_mode) {
    jsize words = (*env)->GetArrayLength(env, mask);
    void *bits = (*env)->GetPrimitiveArrayCritical(env, mask, NULL);
    if (bits == NULL) {
        (*env)->ExceptionClear(env); /* the OutOfMemoryError it may throw: this says -ENOMEM instead */
        return -ENOMEM;
    }
    long rc = syscall(nr, (pid_t) tid, (size_t) words * sizeof(jlong), bits);
    int saved = errno;
    (*env)->ReleasePrimitiveArrayCritical(env, mask, bits, release_mode);
    errno = saved;
    return (jint) result_or_errno(rc);
}

static jint JNICALL pp_set_affinity(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    (void) cls;
    return affinity_call(env, SYS_sched_setaffinity, tid, mask, JNI_ABORT);
}

/* Returns the number of bytes the kernel wrote (the raw syscall, not glibc's wrapper, which says 0). */
static jint JNICALL pp_get_affinity(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    (void) cls;
    return affinity_call(env, SYS_sched_getaffinity, tid, mask, 0);
}

/* The CPU in the low 32 bits, the NUMA node in the high 32 bits. */
static jlong JNICALL pp_getcpu(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    unsigned cpu = 0, node = 0;
    long rc = syscall(SYS_getcpu, &cpu, &node, NULL);
    return rc < 0 ? -(jlong) errno : (jlong) (((uint64_t) node << 32) | cpu);
}

static jint JNICALL pp_perf_event_open(JNIEnv *env, jclass cls, jlong attr, jint pid, jint cpu,
                                       jint group_fd, jlong flags) {
    (void) env; (void) cls;
    long rc = syscall(SYS_perf_event_open, (struct perf_event_attr *) (intptr_t) attr, (pid_t) pid, (int) cpu,
                      (int) group_fd, (unsigned long) flags);
    return (jint) result_or_errno(rc);
}

static jlong JNICALL pp_read(JNIEnv *env, jclass cls, jint fd, jlong address, jint length) {
    (void) env; (void) cls;
    return result_or_errno(perfpin_read(fd, (void *) (intptr_t) address, (size_t) length));
}

static jint JNICALL pp_ioctl(JNIEnv *env, jclass cls, jint fd, jlong request, jlong arg) {
    (void) env; (void) cls;
    return (jint) result_or_errno(ioctl(fd, (unsigned long) request, (unsigned long) arg));
}

static jint JNICALL pp_close(JNIEnv *env, jclass cls, jint fd) {
    (void) env; (void) cls;
    return (jint) result_or_errno(perfpin_close(fd));
}

static jlong JNICALL pp_mmap_perf_page(JNIEnv *env, jclass cls, jint fd) {
    (void) env; (void) cls;
    void *page = mmap(NULL, (size_t) sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
    return page == MAP_FAILED ? -(jlong) errno : (jlong) (intptr_t) page;
}

static jint JNICALL pp_munmap_perf_page(JNIEnv *env, jclass cls, jlong address) {
    (void) env; (void) cls;
    return (jint) result_or_errno(munmap((void *) (intptr_t) address, (size_t) sysconf(_SC_PAGESIZE)));
}

static jint JNICALL pp_self_read(JNIEnv *env, jclass cls, jlong page, jint fd, jlong out) {
    (void) env; (void) cls;
    return perfpin_self_read((const struct perf_event_mmap_page *) (intptr_t) page, fd, (uint64_t *) (intptr_t) out);
}

static jlong JNICALL pp_address_of(JNIEnv *env, jclass cls, jobject buffer) {
    (void) cls;
    void *address = (*env)->GetDirectBufferAddress(env, buffer);
    return address == NULL ? -EINVAL : (jlong) (intptr_t) address;
}

static const JNINativeMethod METHODS[] = {
    {"syscall0", "(JJJJJJ)J", (void *) pp_syscall},
    {"gettid0", "()I", (void *) pp_gettid},
    {"setAffinity0", "(I[J)I", (void *) pp_set_affinity},
    {"getAffinity0", "(I[J)I", (void *) pp_get_affinity},
    {"getcpu0", "()J", (void *) pp_getcpu},
    {"perfEventOpen0", "(JIIIJ)I", (void *) pp_perf_event_open},
    {"read0", "(IJI)J", (void *) pp_read},
    {"ioctl0", "(IJJ)I", (void *) pp_ioctl},
    {"close0", "(I)I", (void *) pp_close},
    {"mmapPerfPage0", "(I)J", (void *) pp_mmap_perf_page},
    {"munmapPerfPage0", "(J)I", (void *) pp_munmap_perf_page},
    {"selfRead0", "(JIJ)I", (void *) pp_self_read},
    {"addressOf0", "(Ljava/nio/ByteBuffer;)J", (void *) pp_address_of},
    {"threadEvents0", "(Ljava/lang/Class;Z)I", (void *) perfpin_thread_events},
    {"javaThreadIds0", "([Ljava/lang/Thread;[I)I", (void *) perfpin_java_thread_ids},
    {"watchdogStart0", "([I)I", (void *) perfpin_watchdog_start},
    {"watchdogPinning0", "(IIIJJJ[I[J[J)I", (void *) perfpin_watchdog_pinning},
    {"watchdogReleased0", "(III)I", (void *) perfpin_watchdog_released},
    {"watchdogReap0", "(I)I", (void *) perfpin_watchdog_reap},
    {"defineBootClass0", "(Ljava/lang/String;[B)I", (void *) perfpin_define_boot_class},
    {"releaseMapping0", "(Ljava/nio/ByteBuffer;)I", (void *) perfpin_release_mapping},
    {"enrolStart0", "(Ljava/lang/Class;[JLjava/nio/ByteBuffer;JI)I", (void *) perfpin_enrol_start},
    {"enrolStop0", "()I", (void *) perfpin_enrol_stop},
    {"enrolEnrolled0", "()Z", (void *) perfpin_enrol_enrolled},
    {"enrolEndCalls0", "()V", (void *) perfpin_enrol_end_calls},
    {"enrolAdopt0", "([Ljava/lang/Thread;[I)I", (void *) perfpin_enrol_adopt},
    {"enrolRead0", "(IJJI)J", (void *) perfpin_enrol_read},
    {"enrolRelease0", "(IJ)V", (void *) perfpin_enrol_release},
    {"enrolTableMark0", "(ILjava/lang/Thread;)I", (void *) perfpin_enrol_table_mark},
    {"enrolTableReached0", "()I", (void *) perfpin_enrol_table_reached},
    {"virtualThreads0", "(Ljava/lang/Class;JIII)I", (void *) perfpin_virtual_threads},
    {"virtualRead0", "([J)I", (void *) perfpin_virtual_read},
    {"virtualStop0", "([I)I", (void *) perfpin_virtual_stop},
    {"virtualRunning0", "([J)I", (void *) perfpin_virtual_running},
    {"virtualRefused0", "()I", (void *) perfpin_virtual_refused},
};

/* Reads the binding class's name from the system property; '.' becomes '/'. Returns 0 on success. */
static int binding_class_name(JNIEnv *env, char *name, size_t size) {
    jclass system = (*env)->FindClass(env, "java/lang/System");
    if (system == NULL) {
        return -1;
    }
    jmethodID get_property = (*env)->GetStaticMethodID(env, system, "getProperty",
                                                       "(Ljava/lang/String;)Ljava/lang/String;");
    jstring key = (*env)->NewStringUTF(env, BINDING_CLASS_PROPERTY);
    if (get_property == NULL || key == NULL) {
        return -1;
    }
    jstring value = (jstring) (*env)->CallStaticObjectMethod(env, system, get_property, key);
    if ((*env)->ExceptionCheck(env) || value == NULL) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    const char *chars = (*env)->GetStringUTFChars(env, value, NULL);
    if (chars == NULL) {
        return -1;
    }
    size_t length = strlen(chars);
    int rc = length < size ? 0 : -1;
    if (rc == 0) {
        for (size_t i = 0; i <= length; i++) {
            name[i] = chars[i] == '.' ? '/' : chars[i];
        }
    }
    (*env)->ReleaseStringUTFChars(env, value, chars);
    return rc;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void) reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    char name[512];
    if (binding_class_name(env, name, sizeof(name)) != 0) {
        return JNI_ERR;
    }
    jclass binding = (*env)->FindClass(env, name);
    if (binding == NULL) {
        return JNI_ERR;
    }
    if ((*env)->RegisterNatives(env, binding, METHODS, sizeof(METHODS) / sizeof(METHODS[0])) != 0) {
        return JNI_ERR;
    }
    return JNI_VERSION_1_8;
}
