/*
 * Thread start and end through JVMTI, as async-profiler follows threads: the JVM calls ThreadStart on the
 * new thread before its run() begins and ThreadEnd on it after run() has returned, for every platform
 * thread, whatever its class. A JVMTI environment can be had from JNI code at any time (GetEnv), and these
 * two events need no capability, so a Java agent's library can use them without being a JVMTI agent.
 *
 * A thread the C library enrols (nativeenrol.c) is not reported to the hooks: only those it leaves to Java are.
 *
 * The hooks class is kept for good once given: a callback in flight while events are being disabled still
 * finds it. Exceptions thrown by the hooks are cleared, never left pending in the thread.
 */
#include <errno.h>
#include <jvmti.h>
#include <stddef.h>

#include "jnilookups.h"
#include "nativeenrol.h"
#include "threadevents.h"

static jvmtiEnv *jvmti;
static jclass hooks_class;
static jmethodID run_starting;
static jmethodID run_ended;

static void clear_exception(JNIEnv *env) {
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
    }
}

static void JNICALL on_thread_start(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    (void) env_jvmti;
    jclass hooks = hooks_class;
    if (hooks != NULL && thread != NULL && !perfpin_enrol_starting(env, hooks, thread)) {
        (*env)->CallStaticBooleanMethod(env, hooks, run_starting, thread);
        clear_exception(env);
    }
}

static void JNICALL on_thread_end(jvmtiEnv *env_jvmti, JNIEnv *env, jthread thread) {
    (void) env_jvmti;
    jclass hooks = hooks_class;
    if (hooks != NULL && thread != NULL && perfpin_enrol_ended()) {
        (*env)->CallStaticVoidMethod(env, hooks, run_ended, thread);
        clear_exception(env);
    }
}

/* Sets both events to mode; when the second cannot be enabled, the first is disabled again: both or neither. */
static jint set_events(jvmtiEventMode mode) {
    if ((*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_THREAD_START, NULL) != JVMTI_ERROR_NONE) {
        return -EIO;
    }
    if ((*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_THREAD_END, NULL) != JVMTI_ERROR_NONE) {
        if (mode == JVMTI_ENABLE) {
            (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
        }
        return -EIO;
    }
    return 0;
}

/*
 * Takes a JVMTI environment with the callbacks set, and only then keeps it in jvmti: one kept without them would
 * let a later call enable events that call nothing, and never try again. An environment whose callbacks could not
 * be set is given back.
 */
static jint get_jvmti(JNIEnv *env) {
    JavaVM *vm;
    jvmtiEnv *taken;
    if ((*env)->GetJavaVM(env, &vm) != JNI_OK || (*vm)->GetEnv(vm, (void **) &taken, JVMTI_VERSION_1_2) != JNI_OK) {
        return -ENOSYS;
    }
    jvmtiEventCallbacks callbacks = {0};
    callbacks.ThreadStart = on_thread_start;
    callbacks.ThreadEnd = on_thread_end;
    if ((*taken)->SetEventCallbacks(taken, &callbacks, (jint) sizeof(callbacks)) != JVMTI_ERROR_NONE) {
        (*taken)->DisposeEnvironment(taken);
        return -EIO;
    }
    jvmti = taken;
    return 0;
}

jint JNICALL perfpin_thread_events(JNIEnv *env, jclass cls, jclass hooks, jboolean enable) {
    (void) cls;
    if (jvmti == NULL) {
        jint rc = get_jvmti(env);
        if (rc != 0) {
            return rc;
        }
    }
    if (!enable) {
        return set_events(JVMTI_DISABLE);
    }
    if (hooks_class == NULL) {
        jmethodID starting = perfpin_static_method(env, hooks, "runStarting", "(Ljava/lang/Thread;)Z");
        jmethodID ended = starting == NULL ? NULL
                : perfpin_static_method(env, hooks, "runEnded", "(Ljava/lang/Thread;)V");
        if (ended == NULL) {
            return -EINVAL;
        }
        run_starting = starting;
        run_ended = ended;
        hooks_class = (jclass) (*env)->NewGlobalRef(env, hooks);
        if (hooks_class == NULL) {
            return -ENOMEM;
        }
    }
    return set_events(JVMTI_ENABLE);
}
