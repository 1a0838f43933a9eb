package io.perfpin.files;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The directories on the way to perfpin's own. perfpin hands paths to the kernel and the JVM by name (a library
 * to {@code System.load}, an agent jar to {@code -javaagent:}), so a name must mean tomorrow what it meant when
 * it was checked: every directory from {@code /} down is owned by root or by this user, and no one else may
 * rename what is in it (not writable by group or others, unless sticky, as {@code /tmp} is, where only an
 * entry's owner may rename it, and the next step is checked to be root's or ours).
 */
public final class TrustedPath {
    private TrustedPath() {
    }

    /**
     * The real path of {@code dir} (links resolved, as the system's own locations may be links), after checking
     * each directory on it.
     *
     * @throws UntrustedPathException naming the first directory that another user could change
     */
    public static Path verify(Path dir) throws IOException {
        Path real = dir.toRealPath();
        Path walked = real.getRoot();
        check(walked);
        for (Path part : real) {
            walked = walked.resolve(part);
            check(walked);
        }
        return real;
    }

    private static void check(Path dir) throws IOException {
        FileStatus status = FileStatus.of(dir);
        if (!status.isDirectory()) {
            throw new UntrustedPathException(dir + " is " + status.kind() + ", not a directory");
        }
        if (!EffectiveUser.trusts(status.uid)) {
            throw new UntrustedPathException(dir + " belongs to uid " + status.uid
                    + ", who could replace what perfpin keeps below it");
        }
        if (status.othersMayReplaceEntries()) {
            throw new UntrustedPathException(dir + " is writable by other users (mode "
                    + FileStatus.octal(status.permissions()) + ", not sticky), who could replace what perfpin keeps"
                    + " below it");
        }
    }
}
