#ifndef PERFPIN_JAVATHREADS_H
#define PERFPIN_JAVATHREADS_H

#include <jni.h>

/* Fills tids[i] with the Linux TID of threads[i], or -1 when it is not running; returns how many it found, or
 * -ENOSYS where the JVM does not describe its thread structures (not HotSpot). */
jint JNICALL perfpin_java_thread_ids(JNIEnv *env, jclass cls, jobjectArray threads, jintArray tids);

#endif
