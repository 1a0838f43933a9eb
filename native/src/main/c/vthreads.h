#ifndef PERFPIN_VTHREADS_H
#define PERFPIN_VTHREADS_H

#include <jni.h>

/*
 * Counts the virtual threads that hooks.virtualSelected(Thread) selects (it returns their group, or -1 for not
 * counted) over their mounted time, with the count
 * events at attr_address (PerfEventAttr.SIZE bytes each, read_format PERF_FORMAT_GROUP with both times) in at most
 * groups carriers' groups, keeping at most states of them alive at once (one beyond is not counted: see
 * perfpin_virtual_refused), and reports each one's totals at its end to
 * hooks.virtualEnded(Thread, long[], int, int[], boolean stillRunning). Returns 0 or -errno: -EOPNOTSUPP where the
 * JVM has no virtual threads to follow (JDK 17), -ENOSYS without HotSpot's mount events, -EINVAL for hooks null.
 */
jint JNICALL perfpin_virtual_threads(JNIEnv *env, jclass cls, jclass hooks, jlong attr_address, jint count,
                                     jint groups, jint states);

/*
 * Stops it all, waiting 2 s at most for the callbacks under way, and reports the totals of those still running
 * (stillRunning true, on the calling thread). left[0] gets how many carriers were still in a callback then (each
 * closes its group as that callback returns), left[1...] their TIDs, as many as it holds. Returns how many carriers
 * found no room for a group.
 */
jint JNICALL perfpin_virtual_stop(JNIEnv *env, jclass cls, jintArray left);

/*
 * Called on a virtual thread: its totals so far into out (3 per event, then the mask of events counted), as
 * virtualEnded gets them. Returns 0 or -errno: -ENOSYS when not started, -EINVAL for too short an array.
 */
jint JNICALL perfpin_virtual_read(JNIEnv *env, jclass cls, jlongArray out);

/*
 * Per group, the running members and their totals so far (as of their last unmount), into out: per group 3 * events +
 * 2 long, the count, the totals (3 per event), the mask of events counted; as many groups as out holds, 16 at most.
 * Returns how many groups it wrote, or -ENOSYS when not started.
 */
jint JNICALL perfpin_virtual_running(JNIEnv *env, jclass cls, jlongArray out);

/* How many selected virtual threads were not counted, states allowing no more, since the last call. */
jint JNICALL perfpin_virtual_refused(JNIEnv *env, jclass cls);

#endif
