package io.perfpin.files;

import io.perfpin.nativeio.FileCalls;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * A file a user names for perfpin to read (a recording for {@code report}, the agent's {@code config=}, a stats
 * file for {@code top --stats}), opened by one rule: walked from {@code /} or the working directory with
 * {@link PathWalk#onHost} (a link followed only where root or this user owns it and its directory), located
 * {@code O_PATH}, checked with {@code fstat} to be a regular file, and only then opened for reading,
 * {@code O_NONBLOCK}, through {@code /proc/self/fd}. A FIFO is never waited on, a device's open routine never
 * runs, another user's link never leads root to a file of its choosing.
 */
public final class NamedFile {
    private static final Set<StandardOpenOption> READ = Set.of(StandardOpenOption.READ);

    private NamedFile() {}

    /**
     * @return the file, open for reading
     * @throws Refused one line that names the file, or the component on the way to it, and what is wrong
     */
    public static FileChannel openForReading(Path file) throws Refused {
        FileCalls calls = FileCalls.ofProcess();
        String shownAs = file.toString();
        try {
            int located = PathWalk.onHost(calls).locate(shownAs);
            try {
                int opened = PathWalk.reopen(calls, located, FileCalls.O_RDONLY, shownAs);
                try {
                    return PathWalk.channel(opened, READ);
                } finally {
                    calls.close(opened);
                }
            } finally {
                calls.close(located);
            }
        } catch (Refused e) {
            throw e;
        } catch (IOException e) {
            throw new Refused(e.getMessage(), e);
        }
    }

    /** Why a named file was not opened, said in full: the message names the file, callers add nothing to it. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        /** {@code cause}: what was refused, an {@link UntrustedPathException} with its reason among others. */
        Refused(String message, IOException cause) {
            super(message, cause);
        }
    }
}
