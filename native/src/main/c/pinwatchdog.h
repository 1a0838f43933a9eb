#ifndef PERFPIN_PINWATCHDOG_H
#define PERFPIN_PINWATCHDOG_H

#include <jni.h>

/* Forks the watchdog; writes {its pid, the write end of its pipe} into pid_and_fd. Returns 0 or -errno. */
jint JNICALL perfpin_watchdog_start(JNIEnv *env, jclass cls, jintArray pid_and_fd);

/*
 * Records that thread tid of pid, started at start_time, is pinned to pinned and had before, while pid runs the
 * program of exe_device and exe_inode (0: not known) with credentials (Uid: then Gid: of its status file, 8
 * ids). 0 or -errno.
 */
jint JNICALL perfpin_watchdog_pinning(JNIEnv *env, jclass cls, jint fd, jint pid, jint tid, jlong start_time,
                                      jlong exe_device, jlong exe_inode, jintArray credentials, jlongArray before,
                                      jlongArray pinned);

/* Records that perfpin gave thread tid of pid its CPUs back itself. 0 or -errno. */
jint JNICALL perfpin_watchdog_released(JNIEnv *env, jclass cls, jint fd, jint pid, jint tid);

/* waitpid(pid, WNOHANG): pid once it has exited and is reaped, 0 while it runs, or -errno. */
jint JNICALL perfpin_watchdog_reap(JNIEnv *env, jclass cls, jint pid);

#endif
