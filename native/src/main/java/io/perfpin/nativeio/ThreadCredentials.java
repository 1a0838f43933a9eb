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
 * capability of root's to override them (the thread gives up every capability set): a file root could read and
 * the user could not stays closed, a file created belongs to the user, and a Unix socket's peer sees the user's uid
 * and gid. The real and saved uid stay root's, so the user cannot signal or trace the helper.
 *
 * <p>A change of effective uid away from root makes the kernel mark the whole process not dumpable (no core dump,
 * {@code /proc/PID} files root's): perfpin, root already, loses nothing it uses by that.
 */
public final class ThreadCredentials {
    private ThreadCredentials() {}

    /**
     * Runs {@code action} as {@code uid}/{@code gid} with supplementary {@code groups}, waiting at most
     * {@code deadline} for it; a process that is not root may only "switch" to its own ids.
     *
     * @throws NativeException the ids could not be taken (EPERM: not root), before the action ran
     * @throws TimeoutException the action did not end in time: it goes on alone, with those rights only
     */
    public static <T> T callAs(
            Syscalls syscalls, int uid, int gid, List<Integer> groups, Duration deadline, Callable<T> action)
            throws Exception {
        SyscallNumbers numbers = SyscallNumbers.forThisMachine();
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread helper = new Thread(
                () -> {
                    try {
                        become(syscalls, numbers, uid, gid, groups);
                        result.complete(action.call());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "perfpin-as-uid-" + uid);
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

    /** {@code _LINUX_CAPABILITY_VERSION_3}: two 32-bit words of each set. */
    private static final int CAPABILITY_VERSION_3 = 0x20080522;

    private static void become(Syscalls syscalls, SyscallNumbers numbers, int uid, int gid, List<Integer> groups) {
        if (uid < 0 || gid < 0) {
            throw new IllegalArgumentException("no uid or gid to act as (" + uid + ", " + gid + ")");
        }
        if (!root(syscalls, numbers)) {
            // A user may act only as itself, with the rights it has: nothing to give up, nothing to take (a JVM
            // of its own started under another of its groups is acted on with this one, as before).
            check(syscalls.syscall(numbers.setresuid, -1, uid, -1, 0, 0), "setresuid");
            return;
        }
        // Groups and gid first: once the uid is no longer root, neither may change.
        NativeBuffer list = NativeBuffer.allocate(syscalls, Math.max(1, groups.size()) * Integer.BYTES);
        for (int i = 0; i < groups.size(); i++) {
            list.buffer().putInt(i * Integer.BYTES, groups.get(i));
        }
        long rc = syscalls.syscall(numbers.setgroups, groups.size(), list.address(), 0, 0, 0);
        Reference.reachabilityFence(list); // its address was all the call held of it
        check(rc, "setgroups");
        check(syscalls.syscall(numbers.setresgid, -1, gid, -1, 0, 0), "setresgid");
        check(syscalls.syscall(numbers.setresuid, -1, uid, -1, 0, 0), "setresuid");
        // The kernel clears the effective capabilities when the uid leaves 0, but keeps the permitted ones (and,
        // under SECBIT_NO_SETUID_FIXUP, the effective too): the thread gives up every set, so that no check of
        // the kernel's lets it do more than the user could.
        NativeBuffer capabilities = NativeBuffer.allocate(syscalls, 8 + 2 * 12);
        capabilities.buffer().putInt(0, CAPABILITY_VERSION_3).putInt(4, 0);
        rc = syscalls.syscall(numbers.capset, capabilities.address(), capabilities.address() + 8, 0, 0, 0);
        Reference.reachabilityFence(capabilities);
        check(rc, "capset");
    }

    /** Whether this thread may change its ids: it has root's effective uid (setting the effective uid to 0). */
    private static boolean root(Syscalls syscalls, SyscallNumbers numbers) {
        return syscalls.syscall(numbers.setresuid, -1, 0, -1, 0, 0) == 0;
    }

    private static void check(long rc, String call) {
        if (rc < 0) {
            throw new NativeException(call, (int) -rc);
        }
    }
}
