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

#include "glibcfloor.h"

#define JAR_NAME "perfpin-agent.jar"
#define AGENT_CLASS "io/perfpin/agent/PerfpinAgent"

static char *jar;
static char *options;

static void say(const char *what) {
    fprintf(stderr, "[perfpin] %s; the application runs without the agent\n", what);
}

/* Said with the exception's own words, then cleared: the JVM goes on to main(). Returns whether one was pending. */
static int failed(JNIEnv *env, const char *what) {
    if (!(*env)->ExceptionCheck(env)) {
        return 0;
    }
    jthrowable thrown = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    jstring shown = NULL;
    jclass type = (*env)->GetObjectClass(env, thrown);
    jmethodID to_string = (*env)->GetMethodID(env, type, "toString", "()Ljava/lang/String;");
    if (!(*env)->ExceptionCheck(env) && to_string != NULL) {
        shown = (jstring) (*env)->CallObjectMethod(env, thrown, to_string);
    }
    const char *text = NULL;
    if (!(*env)->ExceptionCheck(env) && shown != NULL) {
        text = (*env)->GetStringUTFChars(env, shown, NULL);
    }
    (*env)->ExceptionClear(env);
    fprintf(stderr, "[perfpin] %s: %s; the application runs without the agent\n", what,
            text != NULL ? text : "an exception");
    if (text != NULL) {
        (*env)->ReleaseStringUTFChars(env, shown, text);
    }
    return 1;
}

/* PerfpinAgent.launching(options), or launching(null) to take back what a start that failed left there. */
static int hand_options(JNIEnv *env, jclass agent, jmethodID launching, const char *given) {
    jstring text = NULL;
    if (given != NULL) {
        text = (*env)->NewStringUTF(env, given);
        if (failed(env, "cannot pass the options") || text == NULL) {
            return 0;
        }
    }
    (*env)->CallStaticVoidMethod(env, agent, launching, text);
    return !failed(env, "cannot pass the options");
}

static void JNICALL vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void) thread;
    /* first: without the JDK's entry, nothing of the agent's is touched */
    jclass instrumentation = (*env)->FindClass(env, "sun/instrument/InstrumentationImpl");
    if (failed(env, "cannot reach the JDK's java.instrument module, not in this JVM's modules (java -m, jlink,"
                    " --limit-modules?): use -javaagent:" JAR_NAME ", which adds it")
            || instrumentation == NULL) {
        return;
    }
    jmethodID load = (*env)->GetStaticMethodID(env, instrumentation, "loadAgent", "(Ljava/lang/String;)V");
    if ((*env)->ExceptionCheck(env) || load == NULL) {
        (*env)->ExceptionClear(env);
        say("this JDK has no sun.instrument.InstrumentationImpl.loadAgent, by which -agentpath starts the agent: use"
            " -javaagent:" JAR_NAME " instead");
        return;
    }
    jvmtiError added = (*jvmti)->AddToSystemClassLoaderSearch(jvmti, jar);
    if (added != JVMTI_ERROR_NONE) {
        fprintf(stderr, "[perfpin] cannot put %s on the class path (JVMTI error %d: a system class loader of the"
                        " application's own?); the application runs without the agent\n", jar, (int) added);
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
    jstring path = (*env)->NewStringUTF(env, jar);
    if (failed(env, "cannot name the agent jar") || path == NULL || !hand_options(env, agent, launching, options)) {
        return;
    }
    (*env)->CallStaticVoidMethod(env, instrumentation, load, path);
    failed(env, "the JDK did not start the agent");
    /* whether it started or not: what agentmain did not take goes, so that no later attach takes it */
    hand_options(env, agent, launching, NULL);
}

/*
 * DIR/perfpin-agent.jar, DIR the directory of this library's file, links resolved: the jar beside the file the build
 * left, wherever a link to it is. NULL when that cannot be told.
 */
static char *jar_beside_this_library(void) {
    Dl_info info;
    if (dladdr((void *) jar_beside_this_library, &info) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    char *library = realpath(info.dli_fname, NULL);
    if (library == NULL) {
        return NULL;
    }
    const char *slash = strrchr(library, '/');
    size_t dir = slash == NULL ? 0 : (size_t) (slash - library) + 1;
    char *path = malloc(dir + sizeof(JAR_NAME));
    if (path != NULL) {
        memcpy(path, library, dir);
        memcpy(path + dir, JAR_NAME, sizeof(JAR_NAME));
    }
    free(library);
    return path;
}

/* Never fails the JVM's start: what goes wrong is one line, and the application runs without the agent. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *given, void *reserved) {
    (void) reserved;
    jvmtiEnv *jvmti = NULL;
    if (jar != NULL) {
        fprintf(stderr, "[perfpin] -agentpath named libperfpin-agent.so twice: the first one's options stand, and"
                        " the agent starts once\n");
        return JNI_OK;
    }
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
