#ifndef PERFPIN_JNILOOKUPS_H
#define PERFPIN_JNILOOKUPS_H

#include <jni.h>

/*
 * A static method of cls, or NULL with the NoSuchMethodError that the lookup threw cleared: a JNI call made while
 * it is pending (the next lookup, a reference taken) is undefined, and -Xcheck:jni says so.
 */
static inline jmethodID perfpin_static_method(JNIEnv *env, jclass cls, const char *name, const char *signature) {
    jmethodID method = (*env)->GetStaticMethodID(env, cls, name, signature);
    if (method == NULL) {
        (*env)->ExceptionClear(env);
    }
    return method;
}

#endif
