/*
 * libperfpin-agent.so: the agent's native way in, -agentpath:DIR/libperfpin-agent.so[=OPTIONS], which starts the
 * Java agent DIR/perfpin-agent.jar with OPTIONS as -javaagent:DIR/perfpin-agent.jar[=OPTIONS] would.
 *
 * Why: -javaagent makes the JVM add the java.instrument module to its boot layer by an option, and the module graph
 * that class-data sharing maps ready-made holds only for a JVM started without such options, so every -javaagent costs
 * a JVM's start the resolution of its modules, some 30 ms on two CPUs, whatever the agent does. A native agent is no
 * such option. At VMInit, where libinstrument would call premain, this puts the jar on the class path, hands OPTIONS
 * to the agent's class (PerfpinAgent.launching), and has the JDK start it as it starts the Launcher-Agent-Class of an
 * executable jar (sun.instrument.InstrumentationImpl.loadAgent): an agentmain with an Instrumentation, on the thread
 * that runs main() next, with no warning that an agent was loaded into a running JVM, since none was.
 *
 * That entry is the JDK's own, not an API: where a JDK lacks it, one line says so and the application runs without
 * the agent, as with any failure here. Nothing else in the JVM is touched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JAR_NAME "perfpin-agent.jar"
#define AGENT_CLASS "io/perfpin/agent/PerfpinAgent"

static char *jar;
static char *options;

static void say(const char *what) {
    fprintf(stderr, "[perfpin] %s; the application runs without the agent\n", what);
}

/* Said with the exception's own words, then cleared: the JVM goes on to main(). */
static int failed(JNIEnv *env, const char *what) {
    if (!(*env)->ExceptionCheck(env)) {
        return 0;
    }
    jthrowable thrown = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    const char *text = NULL;
    jstring shown = NULL;
    jclass object = (*env)->FindClass(env, "java/lang/Object");
    jmethodID to_string = object == NULL ? NULL : (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;");
    if (to_string != NULL) {
        shown = (jstring) (*env)->CallObjectMethod(env, thrown, to_string);
    }
    (*env)->ExceptionClear(env);
    if (shown != NULL) {
        text = (*env)->GetStringUTFChars(env, shown, NULL);
    }
    fprintf(stderr, "[perfpin] %s: %s; the application runs without the agent\n", what,
            text != NULL ? text : "an exception");
    if (text != NULL) {
        (*env)->ReleaseStringUTFChars(env, shown, text);
    }
    (*env)->ExceptionClear(env);
    return 1;
}

static void JNICALL vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void) thread;
    jvmtiError added = (*jvmti)->AddToSystemClassLoaderSearch(jvmti, jar);
    if (added != JVMTI_ERROR_NONE) {
        fprintf(stderr, "[perfpin] cannot put %s on the class path (JVMTI error %d); the application runs without"
                        " the agent\n", jar, (int) added);
        return;
    }
    jclass agent = (*env)->FindClass(env, AGENT_CLASS);
    if (failed(env, "cannot load the agent's class from " JAR_NAME) || agent == NULL) {
        return;
    }
    jmethodID launching = (*env)->GetStaticMethodID(env, agent, "launching", "(Ljava/lang/String;)V");
    if (failed(env, "the agent jar beside libperfpin-agent.so is not of its build") || launching == NULL) {
        return;
    }
    jstring text = (*env)->NewStringUTF(env, options);
    if (failed(env, "cannot pass the options") || text == NULL) {
        return;
    }
    (*env)->CallStaticVoidMethod(env, agent, launching, text);
    if (failed(env, "cannot pass the options")) {
        return;
    }
    jclass instrumentation = (*env)->FindClass(env, "sun/instrument/InstrumentationImpl");
    jmethodID load = instrumentation == NULL
            ? NULL
            : (*env)->GetStaticMethodID(env, instrumentation, "loadAgent", "(Ljava/lang/String;)V");
    if (load == NULL) {
        (*env)->ExceptionClear(env);
        say("this JDK has no sun.instrument.InstrumentationImpl.loadAgent, by which -agentpath starts the agent: use"
            " -javaagent:" JAR_NAME " instead");
        return;
    }
    jstring path = (*env)->NewStringUTF(env, jar);
    if (failed(env, "cannot name the agent jar") || path == NULL) {
        return;
    }
    (*env)->CallStaticVoidMethod(env, instrumentation, load, path);
    failed(env, "the JDK did not start the agent");
}

/* DIR/perfpin-agent.jar, DIR this library's own directory; NULL when that cannot be told. */
static char *jar_beside_this_library(void) {
    Dl_info info;
    if (dladdr((void *) jar_beside_this_library, &info) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash == NULL ? 0 : (size_t) (slash - info.dli_fname) + 1;
    char *path = malloc(dir + sizeof(JAR_NAME));
    if (path != NULL) {
        memcpy(path, info.dli_fname, dir);
        memcpy(path + dir, JAR_NAME, sizeof(JAR_NAME));
    }
    return path;
}

/* Never fails the JVM's start: what goes wrong is one line, and the application runs without the agent. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *given, void *reserved) {
    (void) reserved;
    jvmtiEnv *jvmti = NULL;
    jar = jar_beside_this_library();
    options = strdup(given != NULL ? given : "");
    if (jar == NULL || options == NULL) {
        say("cannot tell where libperfpin-agent.so is, to find " JAR_NAME " beside it");
        return JNI_OK;
    }
    if (access(jar, R_OK) != 0) {
        fprintf(stderr, "[perfpin] no %s to read beside libperfpin-agent.so: keep the two together, as the build"
                        " leaves them; the application runs without the agent\n", jar);
        return JNI_OK;
    }
    if ((*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) {
        say("this JVM offers no JVMTI environment");
        return JNI_OK;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMInit = vm_init;
    if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint) sizeof(callbacks)) != JVMTI_ERROR_NONE
            || (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL)
                    != JVMTI_ERROR_NONE) {
        say("cannot be told when the JVM is up (JVMTI VMInit)");
    }
    return JNI_OK;
}
