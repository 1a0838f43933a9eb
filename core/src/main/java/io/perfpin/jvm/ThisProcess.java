package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's pid, read where the kernel keeps it: the link {@code /proc/self}. {@code ProcessHandle.current()}
 * says the same, but first initialises the JDK's process handling (its reaper's executor among it), which took
 * 14 ms of an application's start-up when the agent asked it in premain.
 */
public final class ThisProcess {
    private static final long PID = read();

    private ThisProcess() {}

    public static long pid() {
        return PID;
    }

    private static long read() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid(); // no /proc mounted: the JDK knows by getpid()
        }
    }
}
