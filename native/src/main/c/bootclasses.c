/*
 * Classes defined in the bootstrap class loader without touching its search path. Appending a jar to that path
 * after start-up (Instrumentation.appendToBootstrapClassLoaderSearch, or an agent manifest's Boot-Class-Path on
 * each dynamic load) makes HotSpot print a warning and give up class-data sharing for other loaders, and it
 * opens the jar for the rest of the JVM's life. JNI's DefineClass with no loader defines the class there
 * directly, as the boot loader would from a jar on its path.
 */
#include <errno.h>

#include "bootclasses.h"

jint JNICALL perfpin_define_boot_class(JNIEnv *env, jclass cls, jstring name, jbyteArray bytes) {
    (void) cls;
    const char *utf = (*env)->GetStringUTFChars(env, name, NULL);
    if (utf == NULL) {
        (*env)->ExceptionClear(env);
        return -ENOMEM;
    }
    jsize length = (*env)->GetArrayLength(env, bytes);
    jbyte *body = (*env)->GetByteArrayElements(env, bytes, NULL);
    jint rc = -ENOMEM;
    if (body != NULL) {
        jclass defined = (*env)->DefineClass(env, utf, NULL, body, length);
        rc = defined == NULL ? -EINVAL : 0;
        if (defined != NULL) {
            (*env)->DeleteLocalRef(env, defined);
        }
        (*env)->ReleaseByteArrayElements(env, bytes, body, JNI_ABORT);
    }
    /* what DefineClass or the copy threw is told by rc, never left pending */
    (*env)->ExceptionClear(env);
    (*env)->ReleaseStringUTFChars(env, name, utf);
    return rc;
}
