#ifndef PERFPIN_NATIVEENROL_H
#define PERFPIN_NATIVEENROL_H

#include <jni.h>

/* On a starting thread: 1 when the rules' cached decision dealt with it here, 0 when Java's hooks must. */
int perfpin_enrol_starting(JNIEnv *env, jclass hooks, jobject thread);
/* On an ending thread: closes its group, if it has one here; 1 when Java's hooks must hear of its end too. */
int perfpin_enrol_ended(void);

jint JNICALL perfpin_enrol_start(JNIEnv *env, jclass cls, jclass hooks, jlongArray attr_addresses, jobject budget,
                                 jlong limit, jint capacity);
jboolean JNICALL perfpin_enrol_enrolled(JNIEnv *env, jclass cls);
jint JNICALL perfpin_enrol_stop(JNIEnv *env, jclass cls);
void JNICALL perfpin_enrol_end_calls(JNIEnv *env, jclass cls);
jint JNICALL perfpin_enrol_adopt(JNIEnv *env, jclass cls, jobjectArray threads, jintArray info);
jlong JNICALL perfpin_enrol_read(JNIEnv *env, jclass cls, jint slot, jlong generation, jlong out, jint bytes);
void JNICALL perfpin_enrol_release(JNIEnv *env, jclass cls, jint slot, jlong generation);
jint JNICALL perfpin_enrol_table_mark(JNIEnv *env, jclass cls, jint mark, jobject sampler);
jint JNICALL perfpin_enrol_table_reached(JNIEnv *env, jclass cls);

#endif
