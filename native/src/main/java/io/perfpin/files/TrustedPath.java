package io.perfpin.files;

import io.perfpin.files.UntrustedPathException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The directories on the way to perfpin's own. perfpin hands paths to the kernel and the JVM by name (a library
 * to {@code System.load}, an agent jar to {@code -javaagent:}), so a name must mean tomorrow what it meant when
 * it was checked: every directory from {@code /} down is owned by root or by this user, and no one else may
 * rename what is in it (not writable by group or others, unless sticky, as {@code /tmp} is, where only an
 * entry's owner may rename it, and the next step is checked to be root's or ours).
 *
 * <p>A link on the way is followed by the rule of {@link PathWalk#onHost}: only where root or this user owns both
 * the link and its directory; another user's link to a directory of root's is refused, not resolved. In a user
 * namespace, what an owner outside it owns is trusted only as {@link EffectiveUser#trustsDirectory} says. This walk
 * reads with {@code lstat} alone, for it runs before any system call backend is loaded (the JNI library is itself
 * extracted into an {@link OwnedDirectory}); what it checks cannot change after it, since no one but root and this
 * user may change any directory on the way.
 */
public final class TrustedPath {
    /** As the kernel's own limit on links in one lookup. */
    private static final int MAX_LINKS = 40;

    private TrustedPath() {}

    /**
     * The real path of {@code dir} (links resolved, as the system's own locations may be links), after checking
     * each directory on it.
     *
     * @throws UntrustedPathException naming the first directory that another user could change, or a link that
     *                                perfpin does not follow
     */
    public static Path verify(Path dir) throws IOException {
        Path walked = Path.of("/");
        FileStatus current = check(walked);
        Deque<Path> left = new ArrayDeque<>();
        for (Path part : dir.toAbsolutePath()) {
            left.add(part);
        }
        int links = 0;
        while (!left.isEmpty()) {
            String part = left.removeFirst().toString();
            if (part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                // walked holds no link, so its parent by name is its parent on disk
                walked = walked.getParent() == null ? walked : walked.getParent();
                current = FileStatus.of(walked);
                continue;
            }
            Path next = walked.resolve(part);
            FileStatus status = FileStatus.of(next);
            if (!status.isSymbolicLink()) {
                current = check(next);
                walked = next;
                continue;
            }
            if (!EffectiveUser.trusts(status.uid) || !current.trustedDirectory()) {
                throw new UntrustedPathException(
                        Reason.FOREIGN_LINK,
                        next + " is a symbolic link of " + EffectiveUser.owner(status.uid) + " in a directory"
                                + " of uid " + current.uid + "; perfpin follows links only where root or you (uid "
                                + EffectiveUser.uid() + ") own both");
            }
            if (++links > MAX_LINKS) {
                throw new UntrustedPathException(Reason.TOO_MANY_LINKS, dir + ": too many levels of symbolic links");
            }
            Path target = Files.readSymbolicLink(next);
            List<Path> parts = new ArrayList<>();
            for (Path name : target) {
                parts.add(name);
            }
            for (int i = parts.size() - 1; i >= 0; i--) {
                left.addFirst(parts.get(i));
            }
            if (target.isAbsolute()) {
                walked = Path.of("/");
                current = check(walked);
            }
        }
        return walked;
    }

    private static FileStatus check(Path dir) throws IOException {
        FileStatus status = FileStatus.of(dir);
        if (!status.isDirectory()) {
            throw new UntrustedPathException(
                    Reason.NOT_A_DIRECTORY, dir + " is " + status.kind() + ", not a directory");
        }
        if (!status.trustedDirectory()) {
            // asked only here: whether an owner is foreign reads the user namespace's map
            throw new UntrustedPathException(
                    Reason.OTHER_OWNER,
                    EffectiveUser.isForeign(status.uid)
                            ? dir + " belongs to " + EffectiveUser.owner(status.uid) + ", who could replace what"
                                    + " perfpin keeps below it; perfpin trusts such a directory only on the way to"
                                    + " $HOME or $XDG_RUNTIME_DIR, and only where no one else may write it: use a"
                                    + " directory of yours below one of those"
                            : dir + " belongs to uid " + status.uid + ", who could replace what perfpin keeps below"
                                    + " it");
        }
        if (status.othersMayReplaceEntries()) {
            throw new UntrustedPathException(
                    Reason.OPEN_MODE,
                    dir + " is writable by other users (mode "
                            + FileStatus.octal(status.permissions())
                            + ", not sticky), who could replace what perfpin keeps"
                            + " below it");
        }
        return status;
    }
}
