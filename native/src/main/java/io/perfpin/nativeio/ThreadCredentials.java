package io.perfpin.nativeio;

import java.lang.ref.Reference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs an action with another user's rights, as a short-lived helper would: on a thread of its own whose effective
 * (and so file system) uid, gid and supplementary groups are set to that user's before the action and which ends
 * after it. Linux keeps credentials per thread; glibc's wrappers copy a change to every thread of the process,
 * which is why these are raw system calls: only the helper thread changes, and the rest of the JVM keeps its
 * rights. The real and saved ids stay as they were, so nothing else is given up for good, but the thread never
 * takes its rights back: it ends.
 *
 * <p>What the action opens, creates and connects to is checked by the kernel against that user's rights, with no
 * capability of root's to override them: a file root could read and the user could not stays closed, a file
 * created belongs to the user, and a Unix socket's peer sees the user's uid and gid.
 */
public final class ThreadCredentials {
    private ThreadCredentials() {
    }

    /**
     * Runs {@code action} as {@code uid}/{@code gid} with supplementary {@code groups}, waiting at most
     * {@code deadline} for it; a process that is not root may only "switch" to its own ids.
     *
     * @throws NativeException the ids could not be taken (EPERM: not root), before the action ran
     * @throws TimeoutException the action did not end in time: it goes on alone, with those rights only
     */
    public static <T> T callAs(Syscalls syscalls, int uid, int gid, List<Integer> groups, Duration deadline,
                               Callable<T> action) throws Exception {
        SyscallNumbers numbers = SyscallNumbers.forThisMachine();
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread helper = new Thread(() -> {
            try {
                become(syscalls, numbers, uid, gid, groups);
                result.complete(action.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "perfpin-as-uid-" + uid);
        helper.setDaemon(true);
        helper.start();
        try {
            return result.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw (Error) cause;
        }
    }

    private static void become(Syscalls syscalls, SyscallNumbers numbers, int uid, int gid, List<Integer> groups) {
        // Groups and gid first: once the uid is no longer root, neither may change.
        NativeBuffer list = NativeBuffer.allocate(syscalls, Math.max(1, groups.size()) * Integer.BYTES);
        for (int i = 0; i < groups.size(); i++) {
            list.buffer().putInt(i * Integer.BYTES, groups.get(i));
        }
        long rc = syscalls.syscall(numbers.setgroups, groups.size(), list.address(), 0, 0, 0);
        Reference.reachabilityFence(list); // its address was all the call held of it
        if (rc == -Errno.EPERM && ownIds(syscalls, numbers, uid, gid)) {
            rc = 0; // not root: our own groups are the only ones we have, and all we may ask for
        }
        check(rc, "setgroups");
        check(syscalls.syscall(numbers.setresgid, -1, gid, -1, 0, 0), "setresgid");
        check(syscalls.syscall(numbers.setresuid, -1, uid, -1, 0, 0), "setresuid");
    }

    /** Whether {@code uid} and {@code gid} are already this thread's effective ids (setting them again succeeds). */
    private static boolean ownIds(Syscalls syscalls, SyscallNumbers numbers, int uid, int gid) {
        return syscalls.syscall(numbers.setresgid, -1, gid, -1, 0, 0) == 0
                && syscalls.syscall(numbers.setresuid, -1, uid, -1, 0, 0) == 0;
    }

    private static void check(long rc, String call) {
        if (rc < 0) {
            throw new NativeException(call, (int) -rc);
        }
    }
}
