#ifndef PERFPIN_MAPPINGS_H
#define PERFPIN_MAPPINGS_H

#include <jni.h>

/* Puts empty anonymous memory in place of the file mapping behind a direct buffer; returns 0 or -errno. */
jint JNICALL perfpin_release_mapping(JNIEnv *env, jclass cls, jobject buffer);

#endif
