package io.perfpin.files;

import java.io.IOException;

/**
 * A path perfpin refuses to use because someone other than root and this user could change what it names. Its
 * message is the one line a user reads; its {@link #reason} is what a caller (or a test) acts on.
 */
public final class UntrustedPathException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Why the path is refused. */
    public enum Reason {
        /** A symbolic link that root or this user does not own, or one in a directory another user owns. */
        FOREIGN_LINK,
        /** More symbolic links on the way than perfpin follows. */
        TOO_MANY_LINKS,
        /** Not the kind of file it must be: a file where a directory must be. */
        NOT_A_DIRECTORY,
        /** It belongs to another user, who could replace what is below it. */
        OTHER_OWNER,
        /** Its mode lets other users replace its entries, or use a directory only its owner may. */
        OPEN_MODE,
        /** What it named changed between perfpin's check and its use. */
        REPLACED,
        /** A path that can never be perfpin's directory: {@code /}. */
        NOT_ALLOWED,
    }

    private final Reason reason;

    public UntrustedPathException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
