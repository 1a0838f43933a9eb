#ifndef PERFPIN_THREADEVENTS_H
#define PERFPIN_THREADEVENTS_H

#include <jni.h>

/* Reports each Java thread's start and end to hooks.runStarting(Thread) and hooks.runEnded(Thread). */
jint JNICALL perfpin_thread_events(JNIEnv *env, jclass cls, jclass hooks, jboolean enable);

#endif
