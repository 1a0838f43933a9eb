package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A JVM that tests launch behind wrappers (env, nice, time): it writes what the wrappers gave it, as
 * {@code pid=<its pid> FOO=<$FOO> nice=<its niceness>}, to FILE; then, given RELEASE, waits until that file
 * exists (a minute at most); then exits with CODE.
 *
 * <p>Usage: {@code WrappedChild FILE CODE [RELEASE]}.
 */
public final class WrappedChild {
    private WrappedChild() {}

    private static final long RELEASE_DEADLINE_NANOS = 60_000_000_000L;

    public static void main(String[] args) throws IOException, InterruptedException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        // Written whole under another name and renamed, so that a test reading it meanwhile never sees half of it.
        Path seen = Path.of(args[0]);
        Path writing = Path.of(args[0] + ".writing");
        Files.writeString(
                writing,
                "pid=" + ProcessHandle.current().pid() + " FOO=" + System.getenv("FOO") + " nice=" + niceness(stat));
        Files.move(writing, seen, StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + RELEASE_DEADLINE_NANOS;
        while (args.length > 2 && !Files.exists(Path.of(args[2])) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.exit(Integer.parseInt(args[1]));
    }

    /** Field 19 of /proc/PID/stat; the fields after the command name, which may hold spaces, start at 3. */
    static int niceness(String stat) {
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19 - 3]);
    }
}
