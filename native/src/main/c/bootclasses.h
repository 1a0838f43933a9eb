#ifndef PERFPIN_BOOTCLASSES_H
#define PERFPIN_BOOTCLASSES_H

#include <jni.h>

/* Defines the class in name ("a/b/C") from its class file bytes in the bootstrap class loader; returns 0 or -errno:
 * -EINVAL when the JVM refuses it (not a class file, another name, or already defined there). */
jint JNICALL perfpin_define_boot_class(JNIEnv *env, jclass cls, jstring name, jbyteArray bytes);

#endif
